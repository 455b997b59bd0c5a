// e2e/kubesim/api/content_negotiation.h
//
// The media type of a resource response, from the request's Accept header, as kube-apiserver's
// NegotiateOutputMediaType chooses it: entries by q-value (q=0 refuses), then specificity, then
// order; `*/*`, `application/*` and application/json mean JSON (the first serializer upstream);
// application/yaml is answered with JSON too (JSON is YAML). Protobuf only where the kind has one
// (built-in kinds; custom resources have none), so a protobuf-only Accept for a custom resource is
// NotAcceptable. Transformations (`;as=Table`) are left to WantsTable; other `as=` forms on JSON
// get the plain object as before, and are skipped on protobuf.
#pragma once

#include <string_view>

namespace berth::kubesim {

enum class ResponseMedia { kJson, kProtobuf, kNotAcceptable };

ResponseMedia NegotiateResponseMedia(std::string_view accept, bool protobuf_available);

}  // namespace berth::kubesim
