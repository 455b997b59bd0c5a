// e2e/kubesim/openapi/unknown_fields.cc
#include "e2e/kubesim/openapi/unknown_fields.h"

#include <optional>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/builtin_schemas.h"

namespace berth::kubesim::openapi {
namespace {

using rapidjson::Value;

constexpr std::string_view kObjectMetaDef = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
// Guards against reference cycles (JSONSchemaProps refers to itself) on hostile input depth.
constexpr int kMaxDepth = 256;

class Walker {
 public:
  explicit Walker(bool structural) : structural_(structural) {}

  void Walk(const Value* schema, const Value& value, const std::string& path, int depth) {
    schema = Resolve(schema);
    if (schema == nullptr || !schema->IsObject() || depth > kMaxDepth) return;
    if (IsTrue(schema, "x-kubernetes-preserve-unknown-fields")) return;
    if (value.IsObject()) {
      WalkObject(*schema, value, path, depth);
    } else if (value.IsArray()) {
      const Value* items = json::Member(*schema, "items");
      if (items == nullptr || !items->IsObject()) return;
      for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
        Walk(items, value[i], path + "[" + std::to_string(i) + "]", depth + 1);
      }
    }
  }

  std::vector<std::string> TakeUnknown() { return std::move(unknown_); }

 private:
  static bool IsTrue(const Value* v, std::string_view key) {
    const Value* m = json::Member(*v, key);
    return m != nullptr && m->IsBool() && m->GetBool();
  }

  // Resolve follows "$ref" and a single-element "allOf" (the apiserver's way of attaching a
  // description to a reference) to the schema that declares the fields.
  static const Value* Resolve(const Value* schema) {
    for (int hops = 0; schema != nullptr && schema->IsObject() && hops < 16; ++hops) {
      if (const Value* ref = json::Member(*schema, "$ref"); ref != nullptr && ref->IsString()) {
        schema = BuiltinSchema(RefTarget(std::string_view(ref->GetString(), ref->GetStringLength())));
        continue;
      }
      const Value* all_of = json::Member(*schema, "allOf");
      if (all_of != nullptr && all_of->IsArray() && all_of->Size() == 1 && !json::Member(*schema, "properties")) {
        schema = &(*all_of)[0];
        continue;
      }
      return schema;
    }
    return schema;
  }

  static std::string Join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  void WalkObject(const Value& schema, const Value& value, const std::string& path, int depth) {
    const Value* props = json::Member(schema, "properties");
    const Value* additional = json::Member(schema, "additionalProperties");
    bool open_map = additional != nullptr && additional->IsBool() && additional->GetBool();
    if (props == nullptr || !props->IsObject()) {
      if (additional != nullptr && additional->IsObject()) {
        for (const auto& m : value.GetObject()) {
          Walk(additional, m.value, Join(path, m.name.GetString()), depth + 1);
        }
        return;
      }
      // A built-in type with no declared fields (FieldsV1, RawExtension) holds free-form data; a
      // structural CRD schema without properties prunes every field.
      if (!structural_ || open_map) return;
      for (const auto& m : value.GetObject()) unknown_.push_back(Join(path, m.name.GetString()));
      return;
    }
    for (const auto& m : value.GetObject()) {
      std::string_view name(m.name.GetString(), m.name.GetStringLength());
      std::string child = Join(path, name);
      if (const Value* prop = json::Member(*props, name); prop != nullptr) {
        if (structural_ && depth == 0 && name == "metadata") {
          Walk(BuiltinSchema(kObjectMetaDef), m.value, child, depth + 1);
        } else {
          Walk(prop, m.value, child, depth + 1);
        }
      } else if (additional != nullptr && additional->IsObject()) {
        Walk(additional, m.value, child, depth + 1);
      } else if (!open_map) {
        unknown_.push_back(std::move(child));
      }
    }
  }

  bool structural_;
  std::vector<std::string> unknown_;
};

}  // namespace

std::vector<std::string> UnknownFields(std::string_view group, std::string_view version, std::string_view kind,
                                       const rapidjson::Value& object) {
  std::optional<std::string> def = BuiltinDefinitionName(group, version, kind);
  if (!def) return {};
  Walker walker(/*structural=*/false);
  walker.Walk(BuiltinSchema(*def), object, "", 0);
  return walker.TakeUnknown();
}

std::vector<std::string> UnknownFieldsInCustomResource(const rapidjson::Value* schema,
                                                       const rapidjson::Value& object) {
  if (schema == nullptr || !schema->IsObject()) return {};
  Walker walker(/*structural=*/true);
  // apiVersion and kind are always allowed at the root, whatever the schema declares.
  rapidjson::Document root_schema(rapidjson::kObjectType);
  root_schema.CopyFrom(*schema, root_schema.GetAllocator());
  auto& a = root_schema.GetAllocator();
  Value& props = json::EnsureObject(root_schema, "properties", a);
  if (!props.IsObject()) props.SetObject();
  for (std::string_view key : {"apiVersion", "kind", "metadata"}) {
    if (!json::Member(props, key)) {
      Value s(rapidjson::kObjectType);
      json::SetString(s, "type", key == "metadata" ? "object" : "string", a);
      json::SetMember(props, key, std::move(s), a);
    }
  }
  walker.Walk(&root_schema, object, "", 0);
  return walker.TakeUnknown();
}

std::string StrictDecodingError(std::string_view kind, std::string_view version,
                                const std::vector<std::string>& unknown_fields) {
  std::string out = std::string(kind) + " in version \"" + std::string(version) + "\" cannot be handled as a " +
                    std::string(kind) + ": strict decoding error: ";
  for (std::size_t i = 0; i < unknown_fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += "unknown field \"" + unknown_fields[i] + "\"";
  }
  return out;
}

}  // namespace berth::kubesim::openapi
