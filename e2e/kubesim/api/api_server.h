// e2e/kubesim/api/api_server.h
//
// kubesim's REST layer: the kube-apiserver semantics over ObjectStore. Handle() is the ApiHandler
// the HTTPS transport calls; the Do* methods are the same operations for kubesim's in-process
// controllers (kubelet, disruption, garbage collector), so both paths share every rule:
// uid/creationTimestamp/generation, status subresources, finalizers, validation and defaults.
// Pipeline: HttpsServer → ApiServer::Handle → route → verb handler → ObjectStore → watchers.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/api/content_negotiation.h"
#include "e2e/kubesim/api/registry.h"
#include "e2e/kubesim/api/service_ip_allocator.h"
#include "e2e/kubesim/server/http_types.h"
#include "e2e/kubesim/store/object_store.h"

namespace berth::kubesim {

class FaultInjector;
class AuditLog;

// ApiServerOptions: behaviour switches. Each field says its default.
struct ApiServerOptions {
  // How often a watch with allowWatchBookmarks sends a BOOKMARK. Default: 60 s (kube-apiserver
  // sends one about every minute).
  std::chrono::milliseconds bookmark_interval{60000};
  // "host:port" reported in discovery's serverAddressByClientCIDRs.
  std::string server_address = "127.0.0.1:6443";
  // Fault injection (watch drops); may be null.
  FaultInjector* faults = nullptr;
  // Pods bound to a node are deleted gracefully (deletionTimestamp first; the simulated kubelet
  // completes the delete). Default: true; kubesim --no-kubelet turns it off.
  bool graceful_pod_deletion = true;
  // Audit log (kubesim --audit-log): one line per request once its status is known; may be null.
  AuditLog* audit_log = nullptr;
  // Built-in kinds are answered in protobuf when Accept prefers it (kubesim --disable-protobuf
  // turns it off: JSON only, for comparisons).
  bool serve_protobuf = true;
};

// ParsedPath: a resource request path split into its parts.
struct ParsedPath {
  std::string group, version, ns, resource, name, subresource;
};

// OpResult: an operation's outcome: an error response, or the stored object.
struct OpResult {
  std::optional<HttpResponse> error;
  ObjectPtr object;
  int code = 200;  // 200 or 201 on success
  std::vector<std::string> warnings;
  bool ok() const { return !error.has_value(); }
};

// WriteOptions: the query parameters that change a write.
struct WriteOptions {
  std::string field_validation = "Strict";  // Strict | Warn | Ignore (kubectl sends Strict)
  bool dry_run = false;
  std::string subresource;  // "" or "status"
  // internal: a write by kubesim itself (binding, eviction, kubelet, GC, scale) through Mutate.
  // Upstream those go through subresources with their own rules, so the update-immutability
  // checks of update_validation.h are skipped.
  bool internal = false;
};

// DeleteOptions: metav1.DeleteOptions as kubesim honours it.
struct DeleteOptions {
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "", Background, Foreground, Orphan
  std::string precondition_uid;
  std::string precondition_rv;
  bool dry_run = false;
};

// ApiServer: see the file comment.
class ApiServer {
 public:
  ApiServer(ApiServerOptions options, ObjectStore& store, Registry& registry);
  ~ApiServer();

  // Handle serves one HTTP request (the ApiHandler).
  void Handle(const HttpRequest& request, ResponseSink& sink);

  // Do* apply one operation with the full apiserver rules.
  OpResult DoCreate(const ResourceType& type, const std::string& ns, rapidjson::Document body,
                    const WriteOptions& opts);
  OpResult DoUpdate(const ResourceType& type, const std::string& ns, const std::string& name,
                    rapidjson::Document body, const WriteOptions& opts);
  OpResult DoPatch(const ResourceType& type, const std::string& ns, const std::string& name,
                   std::string_view content_type, std::string_view patch_body,
                   const WriteOptions& opts);
  OpResult DoDelete(const ResourceType& type, const std::string& ns, const std::string& name,
                    const DeleteOptions& opts);
  // Mutate re-reads the object and applies `edit` until the write does not conflict; `edit`
  // returns false to leave the object unchanged. `subresource` "status" writes only status.
  OpResult Mutate(const ResourceType& type, const std::string& ns, const std::string& name,
                  const std::string& subresource,
                  const std::function<bool(rapidjson::Document&)>& edit);

  ObjectStore& store() { return store_; }
  // service_addresses: the ClusterIP and NodePort allocators of Services.
  ServiceAddressAllocator& service_addresses() { return service_addresses_; }
  Registry& registry() { return registry_; }
  // TypeOf finds the type for a built-in or custom resource by group and plural.
  ResourceTypePtr TypeOf(std::string_view group, std::string_view plural) const;

  // NewUid returns a random RFC 4122 version-4 UUID.
  std::string NewUid();

  // ToStored builds the stored form of an object (serialized JSON plus selector fields).
  static ObjectPtr ToStored(const rapidjson::Value& object, uint64_t resource_version);

  // Called after CRD create/update/delete to (re)install the served types.
  void SyncCrd(const rapidjson::Value& crd, bool deleted);

  void Shutdown();

 private:
  bool options_graceful_pods() const { return options_.graceful_pod_deletion; }
  // Routing and the read verbs (api_server.cc).
  void Route(const HttpRequest& request, ResponseSink& sink);
  void HandleResource(const HttpRequest& request, const ParsedPath& path, ResponseSink& sink);
  void HandleGet(const HttpRequest& request, const ResourceType& type, const ParsedPath& path,
                 ResponseMedia media, ResponseSink& sink);
  void HandleList(const HttpRequest& request, const ResourceType& type, const ParsedPath& path,
                  ResponseMedia media, ResponseSink& sink);
  // watch_handler.cc
  void HandleWatch(const HttpRequest& request, const ResourceType& type, const ParsedPath& path,
                   ResponseMedia media, ResponseSink& sink);
  // subresources.cc
  void HandleEviction(const HttpRequest& request, const ParsedPath& path, ResponseSink& sink);
  void HandleBinding(const HttpRequest& request, const ParsedPath& path, ResponseSink& sink);
  void HandleScale(const HttpRequest& request, const ResourceType& type, const ParsedPath& path,
                   ResponseSink& sink);

  // write_path.cc: the shared commit step for create/update.
  OpResult Commit(const ResourceType& type, const std::string& ns, const std::string& name,
                  rapidjson::Document desired, const ObjectPtr& expected_current,
                  bool create);
  std::optional<HttpResponse> ValidateAndDefault(const ResourceType& type,
                                                 rapidjson::Document& object,
                                                 const WriteOptions& opts,
                                                 std::vector<std::string>& warnings);

  ApiServerOptions options_;
  ObjectStore& store_;
  Registry& registry_;
  ServiceAddressAllocator service_addresses_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
  std::atomic<bool> shutting_down_{false};
};

// ParseResourcePath splits "/api/v1/namespaces/ns/pods/name/status" and the /apis form.
// Returns nullopt for paths that are not resource paths.
std::optional<ParsedPath> ParseResourcePath(std::string_view path);

// NowRfc3339 is metav1.Time's wire form of the current time.
std::string NowRfc3339();

}  // namespace berth::kubesim
