#include "e2e/kubesim/schema/list_type.h"

#include <map>
#include <string>
#include <string_view>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/schema/go_format.h"
#include "e2e/kubesim/schema/schema_node.h"

namespace berth::kubesim::schema {
namespace {

using rapidjson::Value;

constexpr int kMaxDepth = 64;

std::string_view StringOf(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

std::string_view ListType(const Value* schema) {
  const Value* t = SchemaMember(schema, "x-kubernetes-list-type");
  return t != nullptr && t->IsString() ? StringOf(*t) : std::string_view();
}

class ListValidator {
 public:
  std::vector<Cause> causes;

  void Walk(const Value* schema, const Value& data, const std::string& path, int depth) {
    if (schema == nullptr || !schema->IsObject() || depth > kMaxDepth) return;
    if (data.IsArray()) {
      Array(schema, data, path, depth);
    } else if (data.IsObject()) {
      Object(schema, data, path, depth);
    }
  }

 private:
  void Object(const Value* schema, const Value& data, const std::string& path, int depth) {
    const Value* props = SchemaMember(schema, "properties");
    const Value* additional = SchemaMember(schema, "additionalProperties");
    for (const auto& m : data.GetObject()) {
      const std::string_view key = StringOf(m.name);
      if (const Value* sub = SchemaMember(props, key)) {
        Walk(sub, m.value, path.empty() ? std::string(key) : path + "." + std::string(key), depth + 1);
      } else if (additional != nullptr && additional->IsObject()) {
        Walk(additional, m.value, path + "[" + std::string(key) + "]", depth + 1);
      }
    }
  }

  void Array(const Value* schema, const Value& data, const std::string& path, int depth) {
    const std::string_view type = ListType(schema);
    if (type == "set") Set(data, path);
    if (type == "map") Map(schema, data, path);
    if (const Value* items = ItemsSchema(schema)) {
      for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
        Walk(items, data[i], Index(path, i), depth + 1);
      }
    }
  }

  static std::string Index(const std::string& path, rapidjson::SizeType i) {
    return path + "[" + std::to_string(i) + "]";
  }

  void Duplicate(const std::string& field, const Value& bad) {
    causes.push_back(MakeCause("FieldValueDuplicate", field, GoBadValue(bad), ""));
  }

  // Set: the second occurrence of a value is reported (later ones are not), as upstream.
  void Set(const Value& data, const std::string& path) {
    std::map<std::string, int> seen;
    for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
      if (++seen[json::Serialize(data[i])] == 2) Duplicate(Index(path, i), data[i]);
    }
  }

  // Map: items are keyed by the values of x-kubernetes-list-map-keys; the bad value is the key
  // object (only the keys present), as upstream prints it.
  void Map(const Value* schema, const Value& data, const std::string& path) {
    const Value* keys = SchemaMember(schema, "x-kubernetes-list-map-keys");
    if (keys == nullptr || !keys->IsArray()) return;
    for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
      if (!data[i].IsObject() && !data[i].IsNull()) {
        causes.push_back(MakeCause(kCauseInvalid, Index(path, i), GoBadValue(data[i]),
                                   "must be an object for an array of list-type map"));
        return;
      }
    }
    std::map<std::string, int> seen;
    rapidjson::Document key_doc;
    for (rapidjson::SizeType i = 0; i < data.Size(); ++i) {
      Value key(rapidjson::kObjectType);
      for (const auto& k : keys->GetArray()) {
        if (!k.IsString() || !data[i].IsObject()) continue;
        auto it = data[i].FindMember(k);
        if (it == data[i].MemberEnd()) continue;
        key.AddMember(Value(k, key_doc.GetAllocator()), Value(it->value, key_doc.GetAllocator()),
                      key_doc.GetAllocator());
      }
      if (++seen[json::Serialize(key)] == 2) Duplicate(Index(path, i), key);
    }
  }
};

}  // namespace

std::vector<Cause> ValidateListSetsAndMaps(const rapidjson::Value& schema,
                                           const rapidjson::Value& object) {
  ListValidator v;
  v.Walk(&schema, object, "", 0);
  return std::move(v.causes);
}

}  // namespace berth::kubesim::schema
