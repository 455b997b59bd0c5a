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

// FindProperty returns obj[key] or nullptr. Unlike json::Member it takes the key's length as
// given (no strlen per lookup); the walk does one lookup per field of every request object.
const Value* FindProperty(const Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  Value name(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size())));
  auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

// RootStub returns the schema UnknownFieldsInCustomResource adds at the root for apiVersion,
// kind or metadata when the CRD's schema does not declare them, or nullptr for any other name.
const Value* RootStub(std::string_view name) {
  static const rapidjson::Document* const kStubs = [] {
    auto* d = new rapidjson::Document(rapidjson::kObjectType);
    auto& a = d->GetAllocator();
    for (std::string_view key : {"apiVersion", "kind", "metadata"}) {
      Value s(rapidjson::kObjectType);
      json::SetString(s, "type", key == "metadata" ? "object" : "string", a);
      json::SetMember(*d, key, std::move(s), a);
    }
    return d;
  }();
  return FindProperty(*kStubs, name);
}

class Walker {
 public:
  // `root_stubs`: the root object schema is treated as also declaring apiVersion, kind and
  // metadata (RootStub) when its properties do not, without copying the schema to add them.
  Walker(bool structural, bool root_stubs) : structural_(structural), root_stubs_(root_stubs) {}

  // Walk checks `value` against `schema`; path_ holds the value's path and is restored on return.
  void Walk(const Value* schema, const Value& value, int depth) {
    schema = (depth == 0 && root_stubs_) ? schema : Resolve(schema);
    if (schema == nullptr || !schema->IsObject() || depth > kMaxDepth) return;
    if (IsTrue(schema, "x-kubernetes-preserve-unknown-fields")) return;
    if (value.IsObject()) {
      WalkObject(*schema, value, depth);
    } else if (value.IsArray()) {
      const Value* items = FindProperty(*schema, "items");
      if (items == nullptr || !items->IsObject()) return;
      const std::size_t mark = path_.size();
      for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
        path_ += '[';
        path_ += std::to_string(i);
        path_ += ']';
        Walk(items, value[i], depth + 1);
        path_.resize(mark);
      }
    }
  }

  std::vector<std::string> TakeUnknown() { return std::move(unknown_); }

 private:
  static bool IsTrue(const Value* v, std::string_view key) {
    const Value* m = FindProperty(*v, key);
    return m != nullptr && m->IsBool() && m->GetBool();
  }

  // Resolve follows "$ref" and a single-element "allOf" (the apiserver's way of attaching a
  // description to a reference) to the schema that declares the fields.
  static const Value* Resolve(const Value* schema) {
    for (int hops = 0; schema != nullptr && schema->IsObject() && hops < 16; ++hops) {
      if (const Value* ref = FindProperty(*schema, "$ref"); ref != nullptr && ref->IsString()) {
        schema = BuiltinSchema(RefTarget(std::string_view(ref->GetString(), ref->GetStringLength())));
        continue;
      }
      const Value* all_of = FindProperty(*schema, "allOf");
      if (all_of != nullptr && all_of->IsArray() && all_of->Size() == 1 && !FindProperty(*schema, "properties")) {
        schema = &(*all_of)[0];
        continue;
      }
      return schema;
    }
    return schema;
  }

  // Enter appends `key` to path_ as a member of the current path; returns the size to restore.
  std::size_t Enter(std::string_view key) {
    const std::size_t mark = path_.size();
    if (mark > 0) path_ += '.';
    path_ += key;
    return mark;
  }

  void WalkObject(const Value& schema, const Value& value, int depth) {
    const bool stubs = depth == 0 && root_stubs_;
    const Value* props = FindProperty(schema, "properties");
    // With the stubs the root always has a properties object (a non-object one declares nothing).
    if (stubs && (props == nullptr || !props->IsObject())) props = nullptr;
    const Value* additional = FindProperty(schema, "additionalProperties");
    bool open_map = additional != nullptr && additional->IsBool() && additional->GetBool();
    if (!stubs && (props == nullptr || !props->IsObject())) {
      if (additional != nullptr && additional->IsObject()) {
        for (const auto& m : value.GetObject()) {
          const std::size_t mark = Enter(std::string_view(m.name.GetString(), m.name.GetStringLength()));
          Walk(additional, m.value, depth + 1);
          path_.resize(mark);
        }
        return;
      }
      // A built-in type with no declared fields (FieldsV1, RawExtension) holds free-form data; a
      // structural CRD schema without properties prunes every field.
      if (!structural_ || open_map) return;
      for (const auto& m : value.GetObject()) {
        const std::size_t mark = Enter(std::string_view(m.name.GetString(), m.name.GetStringLength()));
        unknown_.push_back(path_);
        path_.resize(mark);
      }
      return;
    }
    for (const auto& m : value.GetObject()) {
      std::string_view name(m.name.GetString(), m.name.GetStringLength());
      const std::size_t mark = Enter(name);
      const Value* prop = props != nullptr ? FindProperty(*props, name) : nullptr;
      if (prop == nullptr && stubs) prop = RootStub(name);
      if (prop != nullptr) {
        if (structural_ && depth == 0 && name == "metadata") {
          Walk(BuiltinSchema(kObjectMetaDef), m.value, depth + 1);
        } else {
          Walk(prop, m.value, depth + 1);
        }
      } else if (additional != nullptr && additional->IsObject()) {
        Walk(additional, m.value, depth + 1);
      } else if (!open_map) {
        unknown_.push_back(path_);
      }
      path_.resize(mark);
    }
  }

  bool structural_;
  bool root_stubs_;
  std::string path_;
  std::vector<std::string> unknown_;
};

}  // namespace

std::vector<std::string> UnknownFields(std::string_view group, std::string_view version, std::string_view kind,
                                       const rapidjson::Value& object) {
  std::optional<std::string> def = BuiltinDefinitionName(group, version, kind);
  if (!def) return {};
  Walker walker(/*structural=*/false, /*root_stubs=*/false);
  walker.Walk(BuiltinSchema(*def), object, 0);
  return walker.TakeUnknown();
}

std::vector<std::string> UnknownFieldsInCustomResource(const rapidjson::Value* schema,
                                                       const rapidjson::Value& object) {
  if (schema == nullptr || !schema->IsObject()) return {};
  // apiVersion and kind (and metadata) are always allowed at the root, whatever the schema
  // declares: the walker adds them as root stubs. A root "$ref" is followed instead, as for any
  // schema, and what it refers to declares the root's fields on its own.
  const Value* ref = FindProperty(*schema, "$ref");
  const bool root_ref = ref != nullptr && ref->IsString();
  Walker walker(/*structural=*/true, /*root_stubs=*/!root_ref);
  walker.Walk(schema, object, 0);
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
