#include "e2e/kubesim/schema/defaulting.h"

#include "e2e/kubesim/schema/schema_node.h"

namespace berth::kubesim::schema {
namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

// IsNonNullableNull: a null the defaulter may replace.
bool IsNonNullableNull(const Value& v, const Value* schema) {
  return v.IsNull() && schema != nullptr && !SchemaFlag(schema, "nullable");
}

void Default(Value& x, const Value* schema, Allocator& alloc, int depth) {
  if (schema == nullptr || depth > kMaxSchemaDepth) return;
  if (x.IsObject()) {
    // First fill absent (or non-nullable null) properties, then recurse into every member, so
    // defaults copied in here are defaulted further down too.
    if (const Value* props = SchemaMember(schema, "properties"); props != nullptr && props->IsObject()) {
      for (const auto& prop : props->GetObject()) {
        if (!prop.value.IsObject()) continue;
        const Value* def = DefaultValue(&prop.value);
        if (def == nullptr) continue;
        auto it = x.FindMember(prop.name);
        if (it == x.MemberEnd()) {
          x.AddMember(Value(prop.name, alloc), Value(*def, alloc), alloc);
        } else if (IsNonNullableNull(it->value, &prop.value)) {
          it->value.CopyFrom(*def, alloc);
        }
      }
    }
    const AdditionalProperties additional = GetAdditionalProperties(schema);
    for (auto& member : x.GetObject()) {
      std::string_view key(member.name.GetString(), member.name.GetStringLength());
      if (const Value* prop = PropertySchema(schema, key); prop != nullptr) {
        Default(member.value, prop, alloc, depth + 1);
      } else if (SchemaMember(SchemaMember(schema, "properties"), key) == nullptr &&
                 additional.present) {
        if (const Value* def = DefaultValue(additional.schema);
            def != nullptr && IsNonNullableNull(member.value, additional.schema)) {
          member.value.CopyFrom(*def, alloc);
        }
        Default(member.value, additional.schema, alloc, depth + 1);
      }
    }
  } else if (x.IsArray()) {
    const Value* items = ItemsSchema(schema);
    if (items == nullptr) return;
    const Value* def = DefaultValue(items);
    for (auto& item : x.GetArray()) {
      if (def != nullptr && IsNonNullableNull(item, items)) item.CopyFrom(*def, alloc);
      Default(item, items, alloc, depth + 1);
    }
  }
}

}  // namespace

void ApplyDefaults(const rapidjson::Value& schema, rapidjson::Value& object,
                   rapidjson::Document::AllocatorType& alloc) {
  Default(object, &schema, alloc, 0);
}

}  // namespace berth::kubesim::schema
