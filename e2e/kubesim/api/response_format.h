// e2e/kubesim/api/response_format.h
//
// How stored objects become response bodies: plain JSON objects and lists (mostly string
// concatenation of the stored JSON), meta.k8s.io Tables when the client's Accept header asks for
// them (kubectl get), watch event lines, and the opaque continue token of paginated lists.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

#include "e2e/kubesim/api/content_negotiation.h"
#include "e2e/kubesim/api/registry.h"
#include "e2e/kubesim/server/http_types.h"
#include "e2e/kubesim/store/object_store.h"

namespace berth::kubesim {

// WantsTable is true when Accept asks for as=Table (any version).
bool WantsTable(const HttpRequest& request);

// HasProtobufForm: kubesim can answer `type` in protobuf (a built-in kind with message tables
// for it and its List; never a custom resource).
bool HasProtobufForm(const ResourceType& type);

// FormatObject / FormatList render a GET/LIST/write response in `media` (kProtobuf: the
// `k8s\0` + runtime.Unknown body; otherwise JSON, or a Table when Accept asks for one). An object
// that cannot be encoded in protobuf gets a 500 InternalError naming the field.
HttpResponse FormatObject(const HttpRequest& request, const ResourceType& type, const ObjectPtr& obj,
                          ResponseMedia media = ResponseMedia::kJson);
HttpResponse FormatList(const HttpRequest& request, const ResourceType& type, const ListResult& page,
                        ResponseMedia media = ResponseMedia::kJson);

// WatchContentType: the Content-Type of a watch stream in `media`.
std::string_view WatchContentType(ResponseMedia media);

// WatchEventLine renders one WatchEvent ("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"):
// in JSON a newline-terminated line, with as_table a one-row Table; in protobuf one
// length-framed WatchEvent (see protobuf/encoder.h). An object protobuf cannot encode becomes an
// ERROR event with a 500 Status.
std::string WatchEventLine(const HttpRequest& request, const ResourceType& type,
                           std::string_view event_type, const StoredObject& obj, bool as_table,
                           bool first_table_event, ResponseMedia media = ResponseMedia::kJson);
// BookmarkLine renders a BOOKMARK carrying only kind, apiVersion and metadata.resourceVersion.
std::string BookmarkLine(const ResourceType& type, uint64_t resource_version,
                         bool initial_events_end, ResponseMedia media = ResponseMedia::kJson);
// ErrorEventLine renders an ERROR event carrying a Status of `code`/`reason`/`message`.
std::string ErrorEventLine(int code, std::string_view reason, std::string_view message,
                           ResponseMedia media = ResponseMedia::kJson);

// EncodeContinue/DecodeContinue: the token is base64url(JSON {"v","rv","start"}), as the
// apiserver's etcd3 store builds it. kubesim adds "offset" (items already returned) so the next
// page can count what remains without walking the collection; clients treat tokens as opaque.
struct ContinueToken {
  uint64_t resource_version = 0;  // 0 continues at the current state
  std::string last_key;
  uint64_t offset = 0;
};
std::string EncodeContinue(uint64_t resource_version, const std::string& last_key, uint64_t offset = 0);
std::expected<ContinueToken, std::string> DecodeContinue(std::string_view token);
// EncodeContinueAtLatest is the token a 410 for an expired continue carries (rv -1 upstream).
std::string EncodeContinueAtLatest(const std::string& last_key);

// TableFor builds a Table body for `objects` (implemented in table_bridge.cc).
std::string TableFor(const HttpRequest& request, const ResourceType& type,
                     const std::vector<const StoredObject*>& objects, uint64_t list_rv,
                     const std::string& continue_token, int64_t remaining, bool include_headers);

}  // namespace berth::kubesim
