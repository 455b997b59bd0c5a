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

#include "e2e/kubesim/api/registry.h"
#include "e2e/kubesim/server/http_types.h"
#include "e2e/kubesim/store/object_store.h"

namespace berth::kubesim {

// WantsTable is true when Accept asks for as=Table (any version).
bool WantsTable(const HttpRequest& request);

HttpResponse FormatObject(const HttpRequest& request, const ResourceType& type, const ObjectPtr& obj);
HttpResponse FormatList(const HttpRequest& request, const ResourceType& type, const ListResult& page);

// WatchEventLine renders one newline-terminated WatchEvent ("ADDED", "MODIFIED", "DELETED",
// "BOOKMARK", "ERROR"); with as_table the object is a one-row Table.
std::string WatchEventLine(const HttpRequest& request, const ResourceType& type,
                           std::string_view event_type, const StoredObject& obj, bool as_table,
                           bool first_table_event);
// BookmarkLine renders a BOOKMARK carrying only kind, apiVersion and metadata.resourceVersion.
std::string BookmarkLine(const ResourceType& type, uint64_t resource_version,
                         bool initial_events_end);

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
