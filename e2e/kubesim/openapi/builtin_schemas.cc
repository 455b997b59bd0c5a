// e2e/kubesim/openapi/builtin_schemas.cc
#include "e2e/kubesim/openapi/builtin_schemas.h"

#include <functional>
#include <string>
#include <unordered_map>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/builtin_schemas_data.h"

namespace berth::kubesim::openapi {
namespace {

// GvkView is a lookup key over caller-owned strings, so a lookup allocates nothing.
struct GvkView {
  std::string_view group, version, kind;
  bool operator==(const GvkView&) const = default;
};

struct GvkHash {
  std::size_t operator()(const GvkView& k) const {
    std::hash<std::string_view> h;
    return (h(k.group) * 31 + h(k.version)) * 31 + h(k.kind);
  }
};

struct Embedded {
  rapidjson::Document schemas;
  // Definition name -> schema: BuiltinSchema is called for every $ref the strict-field walk
  // follows, and a member scan of the ~250 definitions cost ~3% of kubesim's CPU under load.
  // The views point into `schemas`, which is never modified after loading.
  std::unordered_map<std::string_view, const rapidjson::Value*> by_name;
  // (group, version, kind) -> definition name, from each schema's x-kubernetes-group-version-kind.
  // The key views point into `schemas` as well.
  std::unordered_map<GvkView, std::string, GvkHash> by_gvk;
};

std::string_view ViewOf(const rapidjson::Value& s) {
  return s.IsString() ? std::string_view(s.GetString(), s.GetStringLength()) : std::string_view();
}

Embedded LoadEmbedded() {
  Embedded out;
  std::string text;
  for (std::size_t i = 0; i < kBuiltinSchemaChunkCount; ++i) text += kBuiltinSchemaChunks[i];
  auto parsed = json::Parse(text);
  if (!parsed || !parsed->IsObject()) {
    out.schemas.SetObject();
    return out;
  }
  out.schemas = std::move(*parsed);
  for (const auto& def : out.schemas.GetObject()) {
    // emplace keeps the first of duplicate names, as a member scan would find it.
    out.by_name.emplace(ViewOf(def.name), &def.value);
    const json::Value* gvks = json::Member(def.value, "x-kubernetes-group-version-kind");
    if (gvks == nullptr || !gvks->IsArray()) continue;
    for (const auto& gvk : gvks->GetArray()) {
      GvkView key{json::GetString(gvk, {"group"}), json::GetString(gvk, {"version"}),
                  json::GetString(gvk, {"kind"})};
      out.by_gvk.emplace(key, def.name.GetString());
    }
  }
  return out;
}

const Embedded& Get() {
  static const Embedded embedded = LoadEmbedded();  // thread-safe one-time init
  return embedded;
}

}  // namespace

const rapidjson::Value& BuiltinSchemas() { return Get().schemas; }

const rapidjson::Value* BuiltinSchema(std::string_view name) {
  const auto& by_name = Get().by_name;
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

std::optional<std::string> BuiltinDefinitionName(std::string_view group, std::string_view version,
                                                 std::string_view kind) {
  const auto& by_gvk = Get().by_gvk;
  auto it = by_gvk.find(GvkView{group, version, kind});
  if (it == by_gvk.end()) return std::nullopt;
  return it->second;
}

std::string_view RefTarget(std::string_view ref) {
  constexpr std::string_view kV2Prefix = "#/definitions/";
  if (ref.starts_with(kV3RefPrefix)) return ref.substr(kV3RefPrefix.size());
  if (ref.starts_with(kV2Prefix)) return ref.substr(kV2Prefix.size());
  return {};
}

}  // namespace berth::kubesim::openapi
