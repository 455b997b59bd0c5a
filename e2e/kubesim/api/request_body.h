// e2e/kubesim/api/request_body.h
//
// Decoding of request bodies (JSON or YAML, by Content-Type) into one JSON object, with the
// apiserver's errors: 415 for an unknown media type, 400 for a body that does not parse.
#pragma once

#include <optional>
#include <string_view>
#include <variant>

#include <rapidjson/document.h>

#include "clientgo-shim/base/go_bool.h"
#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

// DecodeBody returns the object, or the error response to send.
std::variant<rapidjson::Document, HttpResponse> DecodeBody(const HttpRequest& request);

// DecodeBodyOrReply is DecodeBody for handlers: on an error it sends the response through `sink`
// and returns nullopt.
std::optional<rapidjson::Document> DecodeBodyOrReply(const HttpRequest& request, ResponseSink& sink);

// JsonObjectResponse serialises `doc` as the body of a response with status `code`.
HttpResponse JsonObjectResponse(int code, const rapidjson::Value& doc);

// ParseGoBool reads a boolean query parameter as Go's strconv.ParseBool does (go_bool.h).
using berth::ParseGoBool;

// kMaxJsonDepth bounds the nesting of request JSON, as Go's decoder does (it refuses more than
// 10000 levels); deeper input would exhaust the stack of kubesim's recursive walks.
inline constexpr int kMaxJsonDepth = 10000;

// ParseRequestJson parses client-supplied JSON after checking its nesting depth.
// Errors: kInvalidArgument for bad JSON or "exceeded max depth".
Result<rapidjson::Document> ParseRequestJson(std::string_view text);

// DecodeObjectText decodes JSON or YAML text as one object (used for --seed-file too).
std::variant<rapidjson::Document, HttpResponse> DecodeObjectText(std::string_view text, bool yaml);

}  // namespace berth::kubesim
