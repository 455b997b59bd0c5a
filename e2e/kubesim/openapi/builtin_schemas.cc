// e2e/kubesim/openapi/builtin_schemas.cc
#include "e2e/kubesim/openapi/builtin_schemas.h"

#include <map>
#include <string>
#include <tuple>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/builtin_schemas_data.h"

namespace berth::kubesim::openapi {
namespace {

struct Embedded {
  rapidjson::Document schemas;
  // (group, version, kind) -> definition name, from each schema's x-kubernetes-group-version-kind.
  std::map<std::tuple<std::string, std::string, std::string>, std::string> by_gvk;
};

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
    const json::Value* gvks = json::Member(def.value, "x-kubernetes-group-version-kind");
    if (gvks == nullptr || !gvks->IsArray()) continue;
    for (const auto& gvk : gvks->GetArray()) {
      auto key = std::make_tuple(std::string(json::GetString(gvk, {"group"})),
                                 std::string(json::GetString(gvk, {"version"})),
                                 std::string(json::GetString(gvk, {"kind"})));
      out.by_gvk.emplace(std::move(key), def.name.GetString());
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
  return json::Member(Get().schemas, name);
}

std::optional<std::string> BuiltinDefinitionName(std::string_view group, std::string_view version,
                                                 std::string_view kind) {
  const auto& by_gvk = Get().by_gvk;
  auto it = by_gvk.find(std::make_tuple(std::string(group), std::string(version), std::string(kind)));
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
