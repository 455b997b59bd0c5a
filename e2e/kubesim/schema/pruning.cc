#include "e2e/kubesim/schema/pruning.h"

#include <algorithm>

#include "e2e/kubesim/schema/go_format.h"
#include "e2e/kubesim/schema/schema_node.h"

namespace berth::kubesim::schema {
namespace {

using rapidjson::Value;

bool IsMetaField(std::string_view key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

std::string AppendKey(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string AppendIndex(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

class Pruner {
 public:
  std::vector<std::string> unknown;

  // Prune mirrors the apiserver's prune(x, s): `schema` may be nullptr (no schema: every field
  // of an object below is unknown). `embedded` forces embedded-resource treatment (the root).
  void Prune(Value& x, const Value* schema, const std::string& path, bool embedded, int depth) {
    if (depth > kMaxSchemaDepth) return;
    if (schema != nullptr && SchemaFlag(schema, "x-kubernetes-preserve-unknown-fields")) {
      SkipPrune(x, schema, path, embedded, depth);
      return;
    }
    if (x.IsObject()) {
      if (schema == nullptr) {
        for (auto& m : x.GetObject()) unknown.push_back(AppendKey(path, Key(m.name)));
        x.RemoveAllMembers();
        return;
      }
      const bool keep_meta = embedded || SchemaFlag(schema, "x-kubernetes-embedded-resource");
      const AdditionalProperties additional = GetAdditionalProperties(schema);
      const Value* props = SchemaMember(schema, "properties");
      for (auto it = x.MemberBegin(); it != x.MemberEnd();) {
        const std::string_view key = Key(it->name);
        if (keep_meta && IsMetaField(key)) {
          ++it;
          continue;
        }
        if (const Value* declared = SchemaMember(props, key); declared != nullptr) {
          Prune(it->value, declared->IsObject() ? declared : nullptr, AppendKey(path, key), false,
                depth + 1);
          ++it;
        } else if (additional.present) {
          Prune(it->value, additional.schema, AppendKey(path, key), false, depth + 1);
          ++it;
        } else {
          if (!IsMetaField(key) || !path.empty()) unknown.push_back(AppendKey(path, key));
          it = x.EraseMember(it);  // keeps the order of the remaining members
        }
      }
    } else if (x.IsArray()) {
      const Value* items = ItemsSchema(schema);
      size_t i = 0;
      for (auto& item : x.GetArray()) Prune(item, items, AppendIndex(path, i++), false, depth + 1);
    }
  }

 private:
  static std::string_view Key(const Value& name) {
    return std::string_view(name.GetString(), name.GetStringLength());
  }

  // SkipPrune keeps unknown fields at this node but still prunes declared properties.
  void SkipPrune(Value& x, const Value* schema, const std::string& path, bool embedded, int depth) {
    if (schema == nullptr || depth > kMaxSchemaDepth) return;
    if (x.IsObject()) {
      const bool keep_meta = embedded || SchemaFlag(schema, "x-kubernetes-embedded-resource");
      const AdditionalProperties additional = GetAdditionalProperties(schema);
      const Value* props = SchemaMember(schema, "properties");
      for (auto& m : x.GetObject()) {
        const std::string_view key = Key(m.name);
        if (keep_meta && IsMetaField(key)) continue;
        if (const Value* declared = SchemaMember(props, key); declared != nullptr) {
          Prune(m.value, declared->IsObject() ? declared : nullptr, AppendKey(path, key), false,
                depth + 1);
        } else if (additional.present) {
          Prune(m.value, additional.schema, AppendKey(path, key), false, depth + 1);
        }
      }
    } else if (x.IsArray()) {
      const Value* items = ItemsSchema(schema);
      size_t i = 0;
      for (auto& item : x.GetArray()) SkipPrune(item, items, AppendIndex(path, i++), false, depth + 1);
    }
  }
};

}  // namespace

std::vector<std::string> Prune(const rapidjson::Value& schema, rapidjson::Value& object) {
  Pruner pruner;
  pruner.Prune(object, &schema, "", /*embedded=*/true, 0);
  std::sort(pruner.unknown.begin(), pruner.unknown.end());
  return std::move(pruner.unknown);
}

std::string UnknownFieldMessage(std::string_view path) { return "unknown field " + GoQuote(path); }

std::string StrictDecodingMessage(const std::vector<std::string>& paths) {
  std::string out = "strict decoding error: ";
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i != 0) out += ", ";
    out += UnknownFieldMessage(paths[i]);
  }
  return out;
}

}  // namespace berth::kubesim::schema
