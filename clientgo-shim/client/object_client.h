// clientgo-shim/client/object_client.h
//
// ObjectClient: typed reads and writes of Kubernetes objects (RapidJSON documents) over the
// RestClient seam — GET, LIST, CREATE, UPDATE (PUT), DELETE, merge/strategic/JSON patch, the
// status subresource, and client-go's retry.RetryOnConflict pattern: UpdateWithRetry re-reads the
// object and re-applies a mutation function whenever the write answers 409 Conflict.
// Errors are the RestClient's (kNotFound, kConflict, kInvalid, …) or kDecode for a 2xx body
// that is not JSON.
// Thread-safety: all methods may be called concurrently.
// Example:
//   ObjectClient client(rest);
//   ResourceRef ref{.group = "coordination.k8s.io", .resource = "leases", .ns = "kube-system",
//                   .name = "berth"};
//   auto updated = client.UpdateWithRetry(ref, [](json::Document& lease) -> Result<bool> {
//     json::SetString(json::EnsureObject(lease, "spec", lease.GetAllocator()), "holderIdentity",
//                     "me", lease.GetAllocator());
//     return true;
//   });
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/result.h"
#include "clientgo-shim/transport/rest_client.h"

namespace berth::shim {

// ResourceRef names a resource collection (name empty) or one object.
struct ResourceRef {
  std::string group;           // "" for the core group
  std::string version = "v1";
  std::string resource;        // plural, lower-case: "pods", "leases"
  std::string ns;              // "" for cluster-scoped (or all namespaces in a List)
  std::string name;            // "" for the collection
};

// ResourcePath builds "/api/v1/namespaces/ns/pods/name[/sub]" or the /apis/<group>/<version> form.
std::string ResourcePath(const ResourceRef& ref, std::string_view subresource = {});

// ListOptions: the LIST query parameters. Empty fields are not sent.
struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;
  std::string continue_token;
  int64_t limit = 0;
};

// ConflictRetry: client-go retry.DefaultRetry — 5 steps, 10 ms apart, jitter 0.1.
struct ConflictRetry {
  int steps = 5;                          // attempts in total. Default: 5.
  std::chrono::milliseconds delay{10};    // wait between attempts. Default: 10 ms.
  double jitter = 0.1;                    // up to +10% random extra. Default: 0.1.
};

// Mutation edits a freshly read object in place. Returns true to write it, false when nothing
// needs to change (UpdateWithRetry then returns the object as read), or an error to abort.
using Mutation = std::function<Result<bool>(json::Document& object)>;

// Patch content types.
inline constexpr std::string_view kMergePatch = "application/merge-patch+json";
inline constexpr std::string_view kStrategicMergePatch = "application/strategic-merge-patch+json";
inline constexpr std::string_view kJsonPatch = "application/json-patch+json";

class ObjectClient {
 public:
  // `timeout` bounds each request (0 = the RestClient's default).
  explicit ObjectClient(RestClientPtr rest, std::chrono::milliseconds timeout = {});

  // Get reads one object. Errors: kNotFound, …
  Result<json::Document> Get(const ResourceRef& ref) const;
  // List reads a collection (ref.name must be empty); returns the List object.
  Result<json::Document> List(const ResourceRef& ref, const ListOptions& options = {}) const;
  // Create POSTs `object` to the collection of `ref` (ref.name is ignored). Returns the stored
  // object. Errors: kAlreadyExists, kInvalid, …
  Result<json::Document> Create(const ResourceRef& ref, const json::Value& object) const;
  // Update PUTs `object` (which should carry metadata.resourceVersion for optimistic
  // concurrency). Errors: kConflict when the resourceVersion is stale.
  Result<json::Document> Update(const ResourceRef& ref, const json::Value& object) const;
  // UpdateStatus PUTs `object` to the status subresource: only .status changes and metadata.
  // generation does not move.
  Result<json::Document> UpdateStatus(const ResourceRef& ref, const json::Value& object) const;
  // Patch sends `patch` with `content_type` (kMergePatch, kStrategicMergePatch, kJsonPatch) to
  // the object or its `subresource` ("status").
  Result<json::Document> Patch(const ResourceRef& ref, std::string_view patch,
                               std::string_view content_type = kMergePatch,
                               std::string_view subresource = {}) const;
  // MergePatch is Patch with application/merge-patch+json.
  Result<json::Document> MergePatch(const ResourceRef& ref, const json::Value& patch,
                                    std::string_view subresource = {}) const;
  // Delete removes the object. Errors: kNotFound, …
  Status Delete(const ResourceRef& ref) const;

  // UpdateWithRetry: GET, `mutate`, PUT (to `subresource` when "status"); on 409 Conflict wait
  // `retry.delay` (+jitter) and start again, at most `retry.steps` times. Returns the stored
  // object. Errors: the last Conflict when every attempt conflicted; any other error at once.
  Result<json::Document> UpdateWithRetry(const ResourceRef& ref, const Mutation& mutate,
                                         std::string_view subresource = {},
                                         ConflictRetry retry = {}) const;

  RestClient& rest() const { return *rest_; }

 private:
  Result<json::Document> Send(RestRequest request, const std::string& what) const;

  RestClientPtr rest_;
  std::chrono::milliseconds timeout_;
};

}  // namespace berth::shim
