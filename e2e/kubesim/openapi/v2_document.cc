// e2e/kubesim/openapi/v2_document.cc
#include "e2e/kubesim/openapi/v2_document.h"

#include <string>
#include <string_view>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/builtin_schemas.h"
#include "e2e/kubesim/openapi/v3_document.h"

namespace berth::kubesim::openapi {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

Value Str(std::string_view s, Alloc& a) { return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); }

// ToV2Schema rewrites a v3 schema in place: "#/definitions/" references, a description-carrying
// allOf back to a plain $ref, and oneOf (absent from swagger 2.0) dropped in favour of the type.
void ToV2Schema(Value& v, Alloc& a) {
  if (v.IsArray()) {
    for (auto& e : v.GetArray()) ToV2Schema(e, a);
    return;
  }
  if (!v.IsObject()) return;
  if (auto it = v.FindMember("$ref"); it != v.MemberEnd() && it->value.IsString()) {
    std::string target(RefTarget(std::string_view(it->value.GetString(), it->value.GetStringLength())));
    it->value = Str("#/definitions/" + target, a);
  }
  if (auto it = v.FindMember("allOf");
      it != v.MemberEnd() && it->value.IsArray() && it->value.Size() == 1 &&
      it->value[0].IsObject() && it->value[0].HasMember("$ref")) {
    Value ref;
    ref.CopyFrom(it->value[0]["$ref"], a);
    v.EraseMember(it);
    json::SetMember(v, "$ref", std::move(ref), a);
    ToV2Schema(v, a);
    return;
  }
  if (v.HasMember("oneOf")) {
    v.RemoveMember("oneOf");
    if (!v.HasMember("type")) json::SetMember(v, "type", Str("string", a), a);
  }
  for (auto& m : v.GetObject()) ToV2Schema(m.value, a);
}

// FirstSchema returns the schema of the first media type of a v3 "content" object.
const Value* FirstSchema(const Value& holder) {
  const Value* content = json::Member(holder, "content");
  if (content == nullptr || !content->IsObject() || content->MemberCount() == 0) return nullptr;
  return json::Member(content->MemberBegin()->value, "schema");
}

Value ToV2Parameter(const Value& p, Alloc& a) {
  Value out(rapidjson::kObjectType);
  for (const auto& m : p.GetObject()) {
    if (m.name == "schema" && m.value.IsObject()) {
      for (const auto& s : m.value.GetObject()) json::SetMember(out, s.name.GetString(), Value(s.value, a), a);
    } else {
      json::SetMember(out, m.name.GetString(), Value(m.value, a), a);
    }
  }
  return out;
}

Value ToV2Operation(const Value& op, Alloc& a) {
  Value out(rapidjson::kObjectType);
  Value params(rapidjson::kArrayType);
  if (const Value* ps = json::Member(op, "parameters"); ps != nullptr && ps->IsArray()) {
    for (const auto& p : ps->GetArray()) params.PushBack(ToV2Parameter(p, a), a);
  }
  if (const Value* body = json::Member(op, "requestBody"); body != nullptr) {
    Value consumes(rapidjson::kArrayType);
    if (const Value* content = json::Member(*body, "content"); content != nullptr && content->IsObject()) {
      for (const auto& m : content->GetObject()) consumes.PushBack(Value(m.name, a), a);
    }
    json::SetMember(out, "consumes", std::move(consumes), a);
    Value bp(rapidjson::kObjectType);
    json::SetString(bp, "name", "body", a);
    json::SetString(bp, "in", "body", a);
    json::SetMember(bp, "required", Value(true), a);
    if (const Value* schema = FirstSchema(*body)) json::SetMember(bp, "schema", Value(*schema, a), a);
    params.PushBack(std::move(bp), a);
  }
  for (const auto& m : op.GetObject()) {
    if (m.name == "parameters" || m.name == "requestBody" || m.name == "responses") continue;
    json::SetMember(out, m.name.GetString(), Value(m.value, a), a);
  }
  if (!params.Empty()) json::SetMember(out, "parameters", std::move(params), a);
  Value responses(rapidjson::kObjectType);
  if (const Value* rs = json::Member(op, "responses"); rs != nullptr && rs->IsObject()) {
    for (const auto& r : rs->GetObject()) {
      Value resp(rapidjson::kObjectType);
      json::SetString(resp, "description", json::GetString(r.value, {"description"}), a);
      if (const Value* schema = FirstSchema(r.value)) json::SetMember(resp, "schema", Value(*schema, a), a);
      json::SetMember(responses, r.name.GetString(), std::move(resp), a);
    }
  }
  json::SetMember(out, "responses", std::move(responses), a);
  return out;
}

}  // namespace

rapidjson::Document BuildV2(const std::vector<ResourceInfo>& resources) {
  rapidjson::Document doc(rapidjson::kObjectType);
  Alloc& a = doc.GetAllocator();
  Value paths(rapidjson::kObjectType);
  Value definitions(rapidjson::kObjectType);
  for (const std::string& gv : ServedGroupVersionPaths(resources)) {
    std::optional<rapidjson::Document> v3 = BuildV3GroupVersionDocument(gv, resources);
    if (!v3) continue;
    for (const auto& path : (*v3)["paths"].GetObject()) {
      Value item(rapidjson::kObjectType);
      for (const auto& m : path.value.GetObject()) {
        if (m.name == "parameters") {
          Value params(rapidjson::kArrayType);
          for (const auto& p : m.value.GetArray()) params.PushBack(ToV2Parameter(p, a), a);
          json::SetMember(item, "parameters", std::move(params), a);
        } else {
          json::SetMember(item, m.name.GetString(), ToV2Operation(m.value, a), a);
        }
      }
      json::SetMember(paths, path.name.GetString(), std::move(item), a);
    }
    for (const auto& def : (*v3)["components"]["schemas"].GetObject()) {
      if (!json::Member(definitions, def.name.GetString())) {
        json::SetMember(definitions, def.name.GetString(), Value(def.value, a), a);
      }
    }
  }
  ToV2Schema(paths, a);
  ToV2Schema(definitions, a);
  json::SetString(doc, "swagger", "2.0", a);
  Value info(rapidjson::kObjectType);
  json::SetString(info, "title", "Kubernetes", a);
  json::SetString(info, "version", "v1.32.0", a);
  json::SetMember(doc, "info", std::move(info), a);
  json::SetMember(doc, "paths", std::move(paths), a);
  json::SetMember(doc, "definitions", std::move(definitions), a);
  return doc;
}

}  // namespace berth::kubesim::openapi
