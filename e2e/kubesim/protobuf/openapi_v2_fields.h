// e2e/kubesim/protobuf/openapi_v2_fields.h -- GENERATED, do not edit.
//
// Field numbers of gnostic's openapi.v2 messages (openapiv2/OpenAPIv2.proto), read from the
// descriptor compiled into kubectl (kubectl). Regenerate with:
//   /usr/bin/python3 e2e/kubesim/protobuf/gen_openapi_v2_fields.py > e2e/kubesim/protobuf/openapi_v2_fields.h
#pragma once

#include <cstdint>

namespace berth::kubesim::protobuf::openapi_v2 {

struct AdditionalPropertiesItem {
  static constexpr std::uint32_t kSchema = 1;
  static constexpr std::uint32_t kBoolean = 2;
};
struct Any {
  static constexpr std::uint32_t kValue = 1;
  static constexpr std::uint32_t kYaml = 2;
};
struct ApiKeySecurity {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kName = 2;
  static constexpr std::uint32_t kIn = 3;
  static constexpr std::uint32_t kDescription = 4;
  static constexpr std::uint32_t kVendorExtension = 5;
};
struct BasicAuthenticationSecurity {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kDescription = 2;
  static constexpr std::uint32_t kVendorExtension = 3;
};
struct BodyParameter {
  static constexpr std::uint32_t kDescription = 1;
  static constexpr std::uint32_t kName = 2;
  static constexpr std::uint32_t kIn = 3;
  static constexpr std::uint32_t kRequired = 4;
  static constexpr std::uint32_t kSchema = 5;
  static constexpr std::uint32_t kVendorExtension = 6;
};
struct Contact {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kUrl = 2;
  static constexpr std::uint32_t kEmail = 3;
  static constexpr std::uint32_t kVendorExtension = 4;
};
struct Default {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct Definitions {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct Document {
  static constexpr std::uint32_t kSwagger = 1;
  static constexpr std::uint32_t kInfo = 2;
  static constexpr std::uint32_t kHost = 3;
  static constexpr std::uint32_t kBasePath = 4;
  static constexpr std::uint32_t kSchemes = 5;
  static constexpr std::uint32_t kConsumes = 6;
  static constexpr std::uint32_t kProduces = 7;
  static constexpr std::uint32_t kPaths = 8;
  static constexpr std::uint32_t kDefinitions = 9;
  static constexpr std::uint32_t kParameters = 10;
  static constexpr std::uint32_t kResponses = 11;
  static constexpr std::uint32_t kSecurity = 12;
  static constexpr std::uint32_t kSecurityDefinitions = 13;
  static constexpr std::uint32_t kTags = 14;
  static constexpr std::uint32_t kExternalDocs = 15;
  static constexpr std::uint32_t kVendorExtension = 16;
};
struct Examples {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct ExternalDocs {
  static constexpr std::uint32_t kDescription = 1;
  static constexpr std::uint32_t kUrl = 2;
  static constexpr std::uint32_t kVendorExtension = 3;
};
struct FileSchema {
  static constexpr std::uint32_t kFormat = 1;
  static constexpr std::uint32_t kTitle = 2;
  static constexpr std::uint32_t kDescription = 3;
  static constexpr std::uint32_t kDefault = 4;
  static constexpr std::uint32_t kRequired = 5;
  static constexpr std::uint32_t kType = 6;
  static constexpr std::uint32_t kReadOnly = 7;
  static constexpr std::uint32_t kExternalDocs = 8;
  static constexpr std::uint32_t kExample = 9;
  static constexpr std::uint32_t kVendorExtension = 10;
};
struct FormDataParameterSubSchema {
  static constexpr std::uint32_t kRequired = 1;
  static constexpr std::uint32_t kIn = 2;
  static constexpr std::uint32_t kDescription = 3;
  static constexpr std::uint32_t kName = 4;
  static constexpr std::uint32_t kAllowEmptyValue = 5;
  static constexpr std::uint32_t kType = 6;
  static constexpr std::uint32_t kFormat = 7;
  static constexpr std::uint32_t kItems = 8;
  static constexpr std::uint32_t kCollectionFormat = 9;
  static constexpr std::uint32_t kDefault = 10;
  static constexpr std::uint32_t kMaximum = 11;
  static constexpr std::uint32_t kExclusiveMaximum = 12;
  static constexpr std::uint32_t kMinimum = 13;
  static constexpr std::uint32_t kExclusiveMinimum = 14;
  static constexpr std::uint32_t kMaxLength = 15;
  static constexpr std::uint32_t kMinLength = 16;
  static constexpr std::uint32_t kPattern = 17;
  static constexpr std::uint32_t kMaxItems = 18;
  static constexpr std::uint32_t kMinItems = 19;
  static constexpr std::uint32_t kUniqueItems = 20;
  static constexpr std::uint32_t kEnum = 21;
  static constexpr std::uint32_t kMultipleOf = 22;
  static constexpr std::uint32_t kVendorExtension = 23;
};
struct Header {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kFormat = 2;
  static constexpr std::uint32_t kItems = 3;
  static constexpr std::uint32_t kCollectionFormat = 4;
  static constexpr std::uint32_t kDefault = 5;
  static constexpr std::uint32_t kMaximum = 6;
  static constexpr std::uint32_t kExclusiveMaximum = 7;
  static constexpr std::uint32_t kMinimum = 8;
  static constexpr std::uint32_t kExclusiveMinimum = 9;
  static constexpr std::uint32_t kMaxLength = 10;
  static constexpr std::uint32_t kMinLength = 11;
  static constexpr std::uint32_t kPattern = 12;
  static constexpr std::uint32_t kMaxItems = 13;
  static constexpr std::uint32_t kMinItems = 14;
  static constexpr std::uint32_t kUniqueItems = 15;
  static constexpr std::uint32_t kEnum = 16;
  static constexpr std::uint32_t kMultipleOf = 17;
  static constexpr std::uint32_t kDescription = 18;
  static constexpr std::uint32_t kVendorExtension = 19;
};
struct HeaderParameterSubSchema {
  static constexpr std::uint32_t kRequired = 1;
  static constexpr std::uint32_t kIn = 2;
  static constexpr std::uint32_t kDescription = 3;
  static constexpr std::uint32_t kName = 4;
  static constexpr std::uint32_t kType = 5;
  static constexpr std::uint32_t kFormat = 6;
  static constexpr std::uint32_t kItems = 7;
  static constexpr std::uint32_t kCollectionFormat = 8;
  static constexpr std::uint32_t kDefault = 9;
  static constexpr std::uint32_t kMaximum = 10;
  static constexpr std::uint32_t kExclusiveMaximum = 11;
  static constexpr std::uint32_t kMinimum = 12;
  static constexpr std::uint32_t kExclusiveMinimum = 13;
  static constexpr std::uint32_t kMaxLength = 14;
  static constexpr std::uint32_t kMinLength = 15;
  static constexpr std::uint32_t kPattern = 16;
  static constexpr std::uint32_t kMaxItems = 17;
  static constexpr std::uint32_t kMinItems = 18;
  static constexpr std::uint32_t kUniqueItems = 19;
  static constexpr std::uint32_t kEnum = 20;
  static constexpr std::uint32_t kMultipleOf = 21;
  static constexpr std::uint32_t kVendorExtension = 22;
};
struct Headers {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct Info {
  static constexpr std::uint32_t kTitle = 1;
  static constexpr std::uint32_t kVersion = 2;
  static constexpr std::uint32_t kDescription = 3;
  static constexpr std::uint32_t kTermsOfService = 4;
  static constexpr std::uint32_t kContact = 5;
  static constexpr std::uint32_t kLicense = 6;
  static constexpr std::uint32_t kVendorExtension = 7;
};
struct ItemsItem {
  static constexpr std::uint32_t kSchema = 1;
};
struct JsonReference {
  static constexpr std::uint32_t kRef = 1;
  static constexpr std::uint32_t kDescription = 2;
};
struct License {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kUrl = 2;
  static constexpr std::uint32_t kVendorExtension = 3;
};
struct NamedAny {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedHeader {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedParameter {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedPathItem {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedResponse {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedResponseValue {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedSchema {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedSecurityDefinitionsItem {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedString {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NamedStringArray {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kValue = 2;
};
struct NonBodyParameter {
  static constexpr std::uint32_t kHeaderParameterSubSchema = 1;
  static constexpr std::uint32_t kFormDataParameterSubSchema = 2;
  static constexpr std::uint32_t kQueryParameterSubSchema = 3;
  static constexpr std::uint32_t kPathParameterSubSchema = 4;
};
struct Oauth2AccessCodeSecurity {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kFlow = 2;
  static constexpr std::uint32_t kScopes = 3;
  static constexpr std::uint32_t kAuthorizationUrl = 4;
  static constexpr std::uint32_t kTokenUrl = 5;
  static constexpr std::uint32_t kDescription = 6;
  static constexpr std::uint32_t kVendorExtension = 7;
};
struct Oauth2ApplicationSecurity {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kFlow = 2;
  static constexpr std::uint32_t kScopes = 3;
  static constexpr std::uint32_t kTokenUrl = 4;
  static constexpr std::uint32_t kDescription = 5;
  static constexpr std::uint32_t kVendorExtension = 6;
};
struct Oauth2ImplicitSecurity {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kFlow = 2;
  static constexpr std::uint32_t kScopes = 3;
  static constexpr std::uint32_t kAuthorizationUrl = 4;
  static constexpr std::uint32_t kDescription = 5;
  static constexpr std::uint32_t kVendorExtension = 6;
};
struct Oauth2PasswordSecurity {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kFlow = 2;
  static constexpr std::uint32_t kScopes = 3;
  static constexpr std::uint32_t kTokenUrl = 4;
  static constexpr std::uint32_t kDescription = 5;
  static constexpr std::uint32_t kVendorExtension = 6;
};
struct Oauth2Scopes {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct Operation {
  static constexpr std::uint32_t kTags = 1;
  static constexpr std::uint32_t kSummary = 2;
  static constexpr std::uint32_t kDescription = 3;
  static constexpr std::uint32_t kExternalDocs = 4;
  static constexpr std::uint32_t kOperationId = 5;
  static constexpr std::uint32_t kProduces = 6;
  static constexpr std::uint32_t kConsumes = 7;
  static constexpr std::uint32_t kParameters = 8;
  static constexpr std::uint32_t kResponses = 9;
  static constexpr std::uint32_t kSchemes = 10;
  static constexpr std::uint32_t kDeprecated = 11;
  static constexpr std::uint32_t kSecurity = 12;
  static constexpr std::uint32_t kVendorExtension = 13;
};
struct Parameter {
  static constexpr std::uint32_t kBodyParameter = 1;
  static constexpr std::uint32_t kNonBodyParameter = 2;
};
struct ParameterDefinitions {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct ParametersItem {
  static constexpr std::uint32_t kParameter = 1;
  static constexpr std::uint32_t kJsonReference = 2;
};
struct PathItem {
  static constexpr std::uint32_t kRef = 1;
  static constexpr std::uint32_t kGet = 2;
  static constexpr std::uint32_t kPut = 3;
  static constexpr std::uint32_t kPost = 4;
  static constexpr std::uint32_t kDelete = 5;
  static constexpr std::uint32_t kOptions = 6;
  static constexpr std::uint32_t kHead = 7;
  static constexpr std::uint32_t kPatch = 8;
  static constexpr std::uint32_t kParameters = 9;
  static constexpr std::uint32_t kVendorExtension = 10;
};
struct PathParameterSubSchema {
  static constexpr std::uint32_t kRequired = 1;
  static constexpr std::uint32_t kIn = 2;
  static constexpr std::uint32_t kDescription = 3;
  static constexpr std::uint32_t kName = 4;
  static constexpr std::uint32_t kType = 5;
  static constexpr std::uint32_t kFormat = 6;
  static constexpr std::uint32_t kItems = 7;
  static constexpr std::uint32_t kCollectionFormat = 8;
  static constexpr std::uint32_t kDefault = 9;
  static constexpr std::uint32_t kMaximum = 10;
  static constexpr std::uint32_t kExclusiveMaximum = 11;
  static constexpr std::uint32_t kMinimum = 12;
  static constexpr std::uint32_t kExclusiveMinimum = 13;
  static constexpr std::uint32_t kMaxLength = 14;
  static constexpr std::uint32_t kMinLength = 15;
  static constexpr std::uint32_t kPattern = 16;
  static constexpr std::uint32_t kMaxItems = 17;
  static constexpr std::uint32_t kMinItems = 18;
  static constexpr std::uint32_t kUniqueItems = 19;
  static constexpr std::uint32_t kEnum = 20;
  static constexpr std::uint32_t kMultipleOf = 21;
  static constexpr std::uint32_t kVendorExtension = 22;
};
struct Paths {
  static constexpr std::uint32_t kVendorExtension = 1;
  static constexpr std::uint32_t kPath = 2;
};
struct PrimitivesItems {
  static constexpr std::uint32_t kType = 1;
  static constexpr std::uint32_t kFormat = 2;
  static constexpr std::uint32_t kItems = 3;
  static constexpr std::uint32_t kCollectionFormat = 4;
  static constexpr std::uint32_t kDefault = 5;
  static constexpr std::uint32_t kMaximum = 6;
  static constexpr std::uint32_t kExclusiveMaximum = 7;
  static constexpr std::uint32_t kMinimum = 8;
  static constexpr std::uint32_t kExclusiveMinimum = 9;
  static constexpr std::uint32_t kMaxLength = 10;
  static constexpr std::uint32_t kMinLength = 11;
  static constexpr std::uint32_t kPattern = 12;
  static constexpr std::uint32_t kMaxItems = 13;
  static constexpr std::uint32_t kMinItems = 14;
  static constexpr std::uint32_t kUniqueItems = 15;
  static constexpr std::uint32_t kEnum = 16;
  static constexpr std::uint32_t kMultipleOf = 17;
  static constexpr std::uint32_t kVendorExtension = 18;
};
struct Properties {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct QueryParameterSubSchema {
  static constexpr std::uint32_t kRequired = 1;
  static constexpr std::uint32_t kIn = 2;
  static constexpr std::uint32_t kDescription = 3;
  static constexpr std::uint32_t kName = 4;
  static constexpr std::uint32_t kAllowEmptyValue = 5;
  static constexpr std::uint32_t kType = 6;
  static constexpr std::uint32_t kFormat = 7;
  static constexpr std::uint32_t kItems = 8;
  static constexpr std::uint32_t kCollectionFormat = 9;
  static constexpr std::uint32_t kDefault = 10;
  static constexpr std::uint32_t kMaximum = 11;
  static constexpr std::uint32_t kExclusiveMaximum = 12;
  static constexpr std::uint32_t kMinimum = 13;
  static constexpr std::uint32_t kExclusiveMinimum = 14;
  static constexpr std::uint32_t kMaxLength = 15;
  static constexpr std::uint32_t kMinLength = 16;
  static constexpr std::uint32_t kPattern = 17;
  static constexpr std::uint32_t kMaxItems = 18;
  static constexpr std::uint32_t kMinItems = 19;
  static constexpr std::uint32_t kUniqueItems = 20;
  static constexpr std::uint32_t kEnum = 21;
  static constexpr std::uint32_t kMultipleOf = 22;
  static constexpr std::uint32_t kVendorExtension = 23;
};
struct Response {
  static constexpr std::uint32_t kDescription = 1;
  static constexpr std::uint32_t kSchema = 2;
  static constexpr std::uint32_t kHeaders = 3;
  static constexpr std::uint32_t kExamples = 4;
  static constexpr std::uint32_t kVendorExtension = 5;
};
struct ResponseDefinitions {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct ResponseValue {
  static constexpr std::uint32_t kResponse = 1;
  static constexpr std::uint32_t kJsonReference = 2;
};
struct Responses {
  static constexpr std::uint32_t kResponseCode = 1;
  static constexpr std::uint32_t kVendorExtension = 2;
};
struct Schema {
  static constexpr std::uint32_t kRef = 1;
  static constexpr std::uint32_t kFormat = 2;
  static constexpr std::uint32_t kTitle = 3;
  static constexpr std::uint32_t kDescription = 4;
  static constexpr std::uint32_t kDefault = 5;
  static constexpr std::uint32_t kMultipleOf = 6;
  static constexpr std::uint32_t kMaximum = 7;
  static constexpr std::uint32_t kExclusiveMaximum = 8;
  static constexpr std::uint32_t kMinimum = 9;
  static constexpr std::uint32_t kExclusiveMinimum = 10;
  static constexpr std::uint32_t kMaxLength = 11;
  static constexpr std::uint32_t kMinLength = 12;
  static constexpr std::uint32_t kPattern = 13;
  static constexpr std::uint32_t kMaxItems = 14;
  static constexpr std::uint32_t kMinItems = 15;
  static constexpr std::uint32_t kUniqueItems = 16;
  static constexpr std::uint32_t kMaxProperties = 17;
  static constexpr std::uint32_t kMinProperties = 18;
  static constexpr std::uint32_t kRequired = 19;
  static constexpr std::uint32_t kEnum = 20;
  static constexpr std::uint32_t kAdditionalProperties = 21;
  static constexpr std::uint32_t kType = 22;
  static constexpr std::uint32_t kItems = 23;
  static constexpr std::uint32_t kAllOf = 24;
  static constexpr std::uint32_t kProperties = 25;
  static constexpr std::uint32_t kDiscriminator = 26;
  static constexpr std::uint32_t kReadOnly = 27;
  static constexpr std::uint32_t kXml = 28;
  static constexpr std::uint32_t kExternalDocs = 29;
  static constexpr std::uint32_t kExample = 30;
  static constexpr std::uint32_t kVendorExtension = 31;
};
struct SchemaItem {
  static constexpr std::uint32_t kSchema = 1;
  static constexpr std::uint32_t kFileSchema = 2;
};
struct SecurityDefinitions {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct SecurityDefinitionsItem {
  static constexpr std::uint32_t kBasicAuthenticationSecurity = 1;
  static constexpr std::uint32_t kApiKeySecurity = 2;
  static constexpr std::uint32_t kOauth2ImplicitSecurity = 3;
  static constexpr std::uint32_t kOauth2PasswordSecurity = 4;
  static constexpr std::uint32_t kOauth2ApplicationSecurity = 5;
  static constexpr std::uint32_t kOauth2AccessCodeSecurity = 6;
};
struct SecurityRequirement {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct StringArray {
  static constexpr std::uint32_t kValue = 1;
};
struct Tag {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kDescription = 2;
  static constexpr std::uint32_t kExternalDocs = 3;
  static constexpr std::uint32_t kVendorExtension = 4;
};
struct TypeItem {
  static constexpr std::uint32_t kValue = 1;
};
struct VendorExtension {
  static constexpr std::uint32_t kAdditionalProperties = 1;
};
struct Xml {
  static constexpr std::uint32_t kName = 1;
  static constexpr std::uint32_t kNamespace = 2;
  static constexpr std::uint32_t kPrefix = 3;
  static constexpr std::uint32_t kAttribute = 4;
  static constexpr std::uint32_t kWrapped = 5;
  static constexpr std::uint32_t kVendorExtension = 6;
};

}  // namespace berth::kubesim::protobuf::openapi_v2
