// e2e/kubesim/protobuf/openapi_v2_encoder.cc
#include "e2e/kubesim/protobuf/openapi_v2_encoder.h"

#include <string_view>
#include <utility>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/protobuf/openapi_v2_fields.h"
#include "e2e/kubesim/protobuf/wire_writer.h"

namespace berth::kubesim::protobuf {
namespace {

using rapidjson::Value;
namespace v2 = openapi_v2;

std::string_view Name(const Value& name) { return {name.GetString(), name.GetStringLength()}; }

bool IsExtension(std::string_view key) { return key.starts_with("x-"); }

const Value* Get(const Value& obj, std::string_view key) {
  return obj.IsObject() ? json::Member(obj, key) : nullptr;
}

void PutString(WireWriter& w, std::uint32_t number, const Value& obj, std::string_view key) {
  if (const Value* v = Get(obj, key); v && v->IsString()) w.String(number, Name(*v));
}

void PutBool(WireWriter& w, std::uint32_t number, const Value& obj, std::string_view key) {
  if (const Value* v = Get(obj, key); v && v->IsBool()) w.Bool(number, v->GetBool());
}

void PutInt64(WireWriter& w, std::uint32_t number, const Value& obj, std::string_view key) {
  if (const Value* v = Get(obj, key); v && v->IsInt64()) w.Int64(number, v->GetInt64());
}

void PutDouble(WireWriter& w, std::uint32_t number, const Value& obj, std::string_view key) {
  if (const Value* v = Get(obj, key); v && v->IsNumber()) w.Double(number, v->GetDouble());
}

void PutStrings(WireWriter& w, std::uint32_t number, const Value& obj, std::string_view key) {
  const Value* v = Get(obj, key);
  if (!v || !v->IsArray()) return;
  for (const auto& s : v->GetArray()) {
    if (s.IsString()) w.String(number, Name(s));
  }
}

// AnyOf: openapi.v2.Any with the value as YAML text (JSON is YAML; kube-openapi unmarshals it).
WireWriter AnyOf(const Value& v) {
  WireWriter any;
  any.String(v2::Any::kYaml, json::Serialize(v) + "\n");
  return any;
}

void PutAny(WireWriter& w, std::uint32_t number, const Value& obj, std::string_view key) {
  if (const Value* v = Get(obj, key)) w.Message(number, AnyOf(*v));
}

void PutAnyList(WireWriter& w, std::uint32_t number, const Value& obj, std::string_view key) {
  const Value* v = Get(obj, key);
  if (!v || !v->IsArray()) return;
  for (const auto& e : v->GetArray()) w.Message(number, AnyOf(e));
}

// PutExtensions writes each "x-" member as a NamedAny.
void PutExtensions(WireWriter& w, std::uint32_t number, const Value& obj) {
  if (!obj.IsObject()) return;
  for (const auto& m : obj.GetObject()) {
    if (!IsExtension(Name(m.name))) continue;
    WireWriter named;
    named.String(v2::NamedAny::kName, Name(m.name));
    named.Message(v2::NamedAny::kValue, AnyOf(m.value));
    w.Message(number, named);
  }
}

WireWriter ExternalDocs(const Value& v) {
  WireWriter w;
  PutString(w, v2::ExternalDocs::kDescription, v, "description");
  PutString(w, v2::ExternalDocs::kUrl, v, "url");
  PutExtensions(w, v2::ExternalDocs::kVendorExtension, v);
  return w;
}

WireWriter Schema(const Value& s);

// NamedSchemas: a JSON object of schemas as repeated NamedSchema inside a wrapper message
// (Definitions, Properties: both `repeated NamedSchema additional_properties = 1`).
WireWriter NamedSchemas(const Value& obj) {
  WireWriter w;
  if (!obj.IsObject()) return w;
  for (const auto& m : obj.GetObject()) {
    if (!m.value.IsObject()) continue;
    WireWriter named;
    named.String(v2::NamedSchema::kName, Name(m.name));
    named.Message(v2::NamedSchema::kValue, Schema(m.value));
    w.Message(v2::Definitions::kAdditionalProperties, named);
  }
  return w;
}

WireWriter Schema(const Value& s) {
  using S = v2::Schema;
  WireWriter w;
  if (!s.IsObject()) return w;
  PutString(w, S::kRef, s, "$ref");
  PutString(w, S::kFormat, s, "format");
  PutString(w, S::kTitle, s, "title");
  PutString(w, S::kDescription, s, "description");
  PutAny(w, S::kDefault, s, "default");
  PutDouble(w, S::kMultipleOf, s, "multipleOf");
  PutDouble(w, S::kMaximum, s, "maximum");
  PutBool(w, S::kExclusiveMaximum, s, "exclusiveMaximum");
  PutDouble(w, S::kMinimum, s, "minimum");
  PutBool(w, S::kExclusiveMinimum, s, "exclusiveMinimum");
  PutInt64(w, S::kMaxLength, s, "maxLength");
  PutInt64(w, S::kMinLength, s, "minLength");
  PutString(w, S::kPattern, s, "pattern");
  PutInt64(w, S::kMaxItems, s, "maxItems");
  PutInt64(w, S::kMinItems, s, "minItems");
  PutBool(w, S::kUniqueItems, s, "uniqueItems");
  PutInt64(w, S::kMaxProperties, s, "maxProperties");
  PutInt64(w, S::kMinProperties, s, "minProperties");
  PutStrings(w, S::kRequired, s, "required");
  PutAnyList(w, S::kEnum, s, "enum");
  if (const Value* ap = Get(s, "additionalProperties")) {
    WireWriter item;
    if (ap->IsBool()) {
      item.Bool(v2::AdditionalPropertiesItem::kBoolean, ap->GetBool());
    } else if (ap->IsObject()) {
      item.Message(v2::AdditionalPropertiesItem::kSchema, Schema(*ap));
    }
    if (!item.empty()) w.Message(S::kAdditionalProperties, item);
  }
  if (const Value* type = Get(s, "type")) {
    WireWriter item;
    if (type->IsString()) item.String(v2::TypeItem::kValue, Name(*type));
    PutStrings(item, v2::TypeItem::kValue, s, "type");
    if (!item.empty()) w.Message(S::kType, item);
  }
  if (const Value* items = Get(s, "items")) {
    WireWriter item;
    if (items->IsObject()) item.Message(v2::ItemsItem::kSchema, Schema(*items));
    if (items->IsArray()) {
      for (const auto& e : items->GetArray()) item.Message(v2::ItemsItem::kSchema, Schema(e));
    }
    w.Message(S::kItems, item);
  }
  if (const Value* all = Get(s, "allOf"); all && all->IsArray()) {
    for (const auto& e : all->GetArray()) w.Message(S::kAllOf, Schema(e));
  }
  if (const Value* props = Get(s, "properties"); props && props->IsObject()) {
    w.Message(S::kProperties, NamedSchemas(*props));
  }
  PutString(w, S::kDiscriminator, s, "discriminator");
  PutBool(w, S::kReadOnly, s, "readOnly");
  if (const Value* docs = Get(s, "externalDocs")) w.Message(S::kExternalDocs, ExternalDocs(*docs));
  PutAny(w, S::kExample, s, "example");
  PutExtensions(w, S::kVendorExtension, s);
  return w;
}

WireWriter PrimitivesItems(const Value& v) {
  using P = v2::PrimitivesItems;
  WireWriter w;
  PutString(w, P::kType, v, "type");
  PutString(w, P::kFormat, v, "format");
  if (const Value* items = Get(v, "items"); items && items->IsObject()) w.Message(P::kItems, PrimitivesItems(*items));
  PutString(w, P::kCollectionFormat, v, "collectionFormat");
  PutAny(w, P::kDefault, v, "default");
  PutBool(w, P::kUniqueItems, v, "uniqueItems");
  PutAnyList(w, P::kEnum, v, "enum");
  PutExtensions(w, P::kVendorExtension, v);
  return w;
}

// NonBodySubSchema: the four *ParameterSubSchema messages share field names, not numbers.
template <class F>
WireWriter NonBodySubSchema(const Value& p) {
  WireWriter w;
  PutBool(w, F::kRequired, p, "required");
  PutString(w, F::kIn, p, "in");
  PutString(w, F::kDescription, p, "description");
  PutString(w, F::kName, p, "name");
  if constexpr (requires { F::kAllowEmptyValue; }) PutBool(w, F::kAllowEmptyValue, p, "allowEmptyValue");
  PutString(w, F::kType, p, "type");
  PutString(w, F::kFormat, p, "format");
  if (const Value* items = Get(p, "items"); items && items->IsObject()) w.Message(F::kItems, PrimitivesItems(*items));
  PutString(w, F::kCollectionFormat, p, "collectionFormat");
  PutAny(w, F::kDefault, p, "default");
  PutBool(w, F::kUniqueItems, p, "uniqueItems");
  PutAnyList(w, F::kEnum, p, "enum");
  PutExtensions(w, F::kVendorExtension, p);
  return w;
}

WireWriter Parameter(const Value& p) {
  WireWriter w;
  std::string_view in = json::GetString(p, {"in"});
  if (in == "body") {
    using B = v2::BodyParameter;
    WireWriter body;
    PutString(body, B::kDescription, p, "description");
    PutString(body, B::kName, p, "name");
    PutString(body, B::kIn, p, "in");
    PutBool(body, B::kRequired, p, "required");
    if (const Value* schema = Get(p, "schema")) body.Message(B::kSchema, Schema(*schema));
    PutExtensions(body, B::kVendorExtension, p);
    w.Message(v2::Parameter::kBodyParameter, body);
    return w;
  }
  using N = v2::NonBodyParameter;
  WireWriter non_body;
  if (in == "header") {
    non_body.Message(N::kHeaderParameterSubSchema, NonBodySubSchema<v2::HeaderParameterSubSchema>(p));
  } else if (in == "formData") {
    non_body.Message(N::kFormDataParameterSubSchema, NonBodySubSchema<v2::FormDataParameterSubSchema>(p));
  } else if (in == "path") {
    non_body.Message(N::kPathParameterSubSchema, NonBodySubSchema<v2::PathParameterSubSchema>(p));
  } else {
    non_body.Message(N::kQueryParameterSubSchema, NonBodySubSchema<v2::QueryParameterSubSchema>(p));
  }
  w.Message(v2::Parameter::kNonBodyParameter, non_body);
  return w;
}

WireWriter JsonReference(const Value& v) {
  WireWriter w;
  PutString(w, v2::JsonReference::kRef, v, "$ref");
  PutString(w, v2::JsonReference::kDescription, v, "description");
  return w;
}

// PutParameters: a JSON array of parameters (or references) as repeated ParametersItem.
void PutParameters(WireWriter& w, std::uint32_t number, const Value& obj) {
  const Value* ps = Get(obj, "parameters");
  if (!ps || !ps->IsArray()) return;
  for (const auto& p : ps->GetArray()) {
    if (!p.IsObject()) continue;
    WireWriter item;
    if (Get(p, "$ref")) {
      item.Message(v2::ParametersItem::kJsonReference, JsonReference(p));
    } else {
      item.Message(v2::ParametersItem::kParameter, Parameter(p));
    }
    w.Message(number, item);
  }
}

WireWriter Response(const Value& r) {
  using R = v2::Response;
  WireWriter w;
  PutString(w, R::kDescription, r, "description");
  if (const Value* schema = Get(r, "schema"); schema && schema->IsObject()) {
    WireWriter item;
    item.Message(v2::SchemaItem::kSchema, Schema(*schema));
    w.Message(R::kSchema, item);
  }
  PutExtensions(w, R::kVendorExtension, r);
  return w;
}

WireWriter Responses(const Value& rs) {
  WireWriter w;
  if (!rs.IsObject()) return w;
  for (const auto& m : rs.GetObject()) {
    if (IsExtension(Name(m.name)) || !m.value.IsObject()) continue;
    WireWriter value;
    if (Get(m.value, "$ref")) {
      value.Message(v2::ResponseValue::kJsonReference, JsonReference(m.value));
    } else {
      value.Message(v2::ResponseValue::kResponse, Response(m.value));
    }
    WireWriter named;
    named.String(v2::NamedResponseValue::kName, Name(m.name));
    named.Message(v2::NamedResponseValue::kValue, value);
    w.Message(v2::Responses::kResponseCode, named);
  }
  PutExtensions(w, v2::Responses::kVendorExtension, rs);
  return w;
}

WireWriter SecurityRequirement(const Value& req) {
  WireWriter w;
  if (!req.IsObject()) return w;
  for (const auto& m : req.GetObject()) {
    WireWriter scopes;
    if (m.value.IsArray()) {
      for (const auto& s : m.value.GetArray()) {
        if (s.IsString()) scopes.String(v2::StringArray::kValue, Name(s));
      }
    }
    WireWriter named;
    named.String(v2::NamedStringArray::kName, Name(m.name));
    named.Message(v2::NamedStringArray::kValue, scopes);
    w.Message(v2::SecurityRequirement::kAdditionalProperties, named);
  }
  return w;
}

void PutSecurity(WireWriter& w, std::uint32_t number, const Value& obj) {
  const Value* list = Get(obj, "security");
  if (!list || !list->IsArray()) return;
  for (const auto& req : list->GetArray()) w.Message(number, SecurityRequirement(req));
}

WireWriter Operation(const Value& op) {
  using O = v2::Operation;
  WireWriter w;
  PutStrings(w, O::kTags, op, "tags");
  PutString(w, O::kSummary, op, "summary");
  PutString(w, O::kDescription, op, "description");
  if (const Value* docs = Get(op, "externalDocs")) w.Message(O::kExternalDocs, ExternalDocs(*docs));
  PutString(w, O::kOperationId, op, "operationId");
  PutStrings(w, O::kProduces, op, "produces");
  PutStrings(w, O::kConsumes, op, "consumes");
  PutParameters(w, O::kParameters, op);
  if (const Value* rs = Get(op, "responses")) w.Message(O::kResponses, Responses(*rs));
  PutStrings(w, O::kSchemes, op, "schemes");
  PutBool(w, O::kDeprecated, op, "deprecated");
  PutSecurity(w, O::kSecurity, op);
  PutExtensions(w, O::kVendorExtension, op);
  return w;
}

WireWriter PathItem(const Value& item) {
  using P = v2::PathItem;
  WireWriter w;
  PutString(w, P::kRef, item, "$ref");
  static constexpr std::pair<std::string_view, std::uint32_t> kVerbs[] = {
      {"get", P::kGet},         {"put", P::kPut},   {"post", P::kPost},  {"delete", P::kDelete},
      {"options", P::kOptions}, {"head", P::kHead}, {"patch", P::kPatch}};
  for (auto [verb, number] : kVerbs) {
    if (const Value* op = Get(item, verb); op && op->IsObject()) w.Message(number, Operation(*op));
  }
  PutParameters(w, P::kParameters, item);
  PutExtensions(w, P::kVendorExtension, item);
  return w;
}

WireWriter Paths(const Value& paths) {
  WireWriter w;
  PutExtensions(w, v2::Paths::kVendorExtension, paths);
  if (!paths.IsObject()) return w;
  for (const auto& m : paths.GetObject()) {
    if (!Name(m.name).starts_with("/") || !m.value.IsObject()) continue;
    WireWriter named;
    named.String(v2::NamedPathItem::kName, Name(m.name));
    named.Message(v2::NamedPathItem::kValue, PathItem(m.value));
    w.Message(v2::Paths::kPath, named);
  }
  return w;
}

WireWriter Info(const Value& info) {
  using I = v2::Info;
  WireWriter w;
  PutString(w, I::kTitle, info, "title");
  PutString(w, I::kVersion, info, "version");
  PutString(w, I::kDescription, info, "description");
  PutString(w, I::kTermsOfService, info, "termsOfService");
  if (const Value* c = Get(info, "contact"); c && c->IsObject()) {
    WireWriter contact;
    PutString(contact, v2::Contact::kName, *c, "name");
    PutString(contact, v2::Contact::kUrl, *c, "url");
    PutString(contact, v2::Contact::kEmail, *c, "email");
    PutExtensions(contact, v2::Contact::kVendorExtension, *c);
    w.Message(I::kContact, contact);
  }
  if (const Value* l = Get(info, "license"); l && l->IsObject()) {
    WireWriter license;
    PutString(license, v2::License::kName, *l, "name");
    PutString(license, v2::License::kUrl, *l, "url");
    PutExtensions(license, v2::License::kVendorExtension, *l);
    w.Message(I::kLicense, license);
  }
  PutExtensions(w, I::kVendorExtension, info);
  return w;
}

// SecurityDefinitions: kube-apiserver publishes one apiKey scheme (BearerToken); basic is kept
// for completeness, OAuth2 flows are not used by Kubernetes and are skipped.
WireWriter SecurityDefinitions(const Value& defs) {
  WireWriter w;
  if (!defs.IsObject()) return w;
  for (const auto& m : defs.GetObject()) {
    std::string_view type = json::GetString(m.value, {"type"});
    WireWriter item;
    if (type == "apiKey") {
      using A = v2::ApiKeySecurity;
      WireWriter key;
      PutString(key, A::kType, m.value, "type");
      PutString(key, A::kName, m.value, "name");
      PutString(key, A::kIn, m.value, "in");
      PutString(key, A::kDescription, m.value, "description");
      PutExtensions(key, A::kVendorExtension, m.value);
      item.Message(v2::SecurityDefinitionsItem::kApiKeySecurity, key);
    } else if (type == "basic") {
      using B = v2::BasicAuthenticationSecurity;
      WireWriter basic;
      PutString(basic, B::kType, m.value, "type");
      PutString(basic, B::kDescription, m.value, "description");
      PutExtensions(basic, B::kVendorExtension, m.value);
      item.Message(v2::SecurityDefinitionsItem::kBasicAuthenticationSecurity, basic);
    } else {
      continue;
    }
    WireWriter named;
    named.String(v2::NamedSecurityDefinitionsItem::kName, Name(m.name));
    named.Message(v2::NamedSecurityDefinitionsItem::kValue, item);
    w.Message(v2::SecurityDefinitions::kAdditionalProperties, named);
  }
  return w;
}

}  // namespace

Result<std::string> EncodeOpenApiV2Document(const Value& doc) {
  if (!doc.IsObject()) return MakeError(ErrorCode::kInvalidArgument, "openapi v2: the document is not a JSON object");
  using D = v2::Document;
  WireWriter w;
  PutString(w, D::kSwagger, doc, "swagger");
  if (const Value* info = Get(doc, "info"); info && info->IsObject()) w.Message(D::kInfo, Info(*info));
  PutString(w, D::kHost, doc, "host");
  PutString(w, D::kBasePath, doc, "basePath");
  PutStrings(w, D::kSchemes, doc, "schemes");
  PutStrings(w, D::kConsumes, doc, "consumes");
  PutStrings(w, D::kProduces, doc, "produces");
  if (const Value* paths = Get(doc, "paths"); paths && paths->IsObject()) w.Message(D::kPaths, Paths(*paths));
  if (const Value* defs = Get(doc, "definitions"); defs && defs->IsObject()) {
    w.Message(D::kDefinitions, NamedSchemas(*defs));
  }
  if (const Value* params = Get(doc, "parameters"); params && params->IsObject()) {
    WireWriter list;
    for (const auto& m : params->GetObject()) {
      if (!m.value.IsObject()) continue;
      WireWriter named;
      named.String(v2::NamedParameter::kName, Name(m.name));
      named.Message(v2::NamedParameter::kValue, Parameter(m.value));
      list.Message(v2::ParameterDefinitions::kAdditionalProperties, named);
    }
    w.Message(D::kParameters, list);
  }
  if (const Value* responses = Get(doc, "responses"); responses && responses->IsObject()) {
    WireWriter list;
    for (const auto& m : responses->GetObject()) {
      if (!m.value.IsObject()) continue;
      WireWriter named;
      named.String(v2::NamedResponse::kName, Name(m.name));
      named.Message(v2::NamedResponse::kValue, Response(m.value));
      list.Message(v2::ResponseDefinitions::kAdditionalProperties, named);
    }
    w.Message(D::kResponses, list);
  }
  PutSecurity(w, D::kSecurity, doc);
  if (const Value* defs = Get(doc, "securityDefinitions"); defs && defs->IsObject()) {
    w.Message(D::kSecurityDefinitions, SecurityDefinitions(*defs));
  }
  if (const Value* tags = Get(doc, "tags"); tags && tags->IsArray()) {
    for (const auto& t : tags->GetArray()) {
      if (!t.IsObject()) continue;
      WireWriter tag;
      PutString(tag, v2::Tag::kName, t, "name");
      PutString(tag, v2::Tag::kDescription, t, "description");
      if (const Value* docs = Get(t, "externalDocs")) tag.Message(v2::Tag::kExternalDocs, ExternalDocs(*docs));
      PutExtensions(tag, v2::Tag::kVendorExtension, t);
      w.Message(D::kTags, tag);
    }
  }
  if (const Value* docs = Get(doc, "externalDocs")) w.Message(D::kExternalDocs, ExternalDocs(*docs));
  PutExtensions(w, D::kVendorExtension, doc);
  return w.Take();
}

}  // namespace berth::kubesim::protobuf
