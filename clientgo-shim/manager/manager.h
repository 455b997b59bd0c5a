// clientgo-shim/manager/manager.h
//
// Manager: controller-runtime's manager.Manager for berth. It owns
//   - the shared informers (a SharedInformerFactory over the manager's RestClient), started on
//     every replica so caches are warm when leadership changes;
//   - the metrics server (/metrics on metrics_bind_address) and the probe server (/healthz,
//     /readyz on health_probe_bind_address); /readyz passes once every cache has synced;
//   - leader election on a Lease (optional); controllers start only while this replica leads,
//     and only after the caches synced;
//   - the controllers.
// Losing leadership stops the manager at once: every controller queue is shut down in the
// lost-lease callback (no key is handed out after it) and Wait() returns
// "leader election lost". Stop() (or SIGTERM via Run) drains the controllers first, then
// releases the Lease, then stops informers and servers. The elector's LeaderElection Events
// ("<identity> became leader", and "<identity> stopped leading" on Stop()) go on the Lease, as
// client-go's; a lost Lease records none (nothing is written after a loss).
// Fencing: with leader election, rest() is a FencedRestClient over the elector's fence, so every
// POST/PUT/PATCH/DELETE a controller sends through it fails with kFenced (not retried) unless
// this replica renewed the Lease within renewDeadline on the monotonic clock — also while the
// elector thread has not yet noticed a loss (a resumed SIGSTOP). Controllers must write through
// rest(), never through options.rest, which stays unfenced for the elector and the informers.
// See leader/leader_fence.h for the guarantee and its limit.
// Thread-safety: AddController/AddCacheSyncWaiter before Start; Stop/Wait from any thread.
// Example:
//   auto mgr = Manager::Create(options);
//   auto pods = (*mgr)->informers().InformerFor({"/api/v1/pods"});
//   Controller* c = *(*mgr)->AddController({.name = "pods"}, reconcile);
//   pods->AddEventHandler({.on_add = [c](const ObjectPtr& o, bool) { c->queue().Add(o->Key()); }});
//   return (*mgr)->Run();  // until SIGTERM
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/events/event_recorder.h"
#include "clientgo-shim/informer/shared_informer_factory.h"
#include "clientgo-shim/leader/leader_elector.h"
#include "clientgo-shim/manager/controller.h"
#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/metrics_auth.h"
#include "clientgo-shim/metrics/probes.h"
#include "clientgo-shim/metrics/registry.h"

namespace berth::shim {

// ManagerOptions: each field says its default (flags in manager_flags.h set the first five).
struct ManagerOptions {
  RestClientPtr rest;                                  // Required.
  std::string metrics_bind_address = ":8080";          // "0" disables. Default: ":8080".
  std::string health_probe_bind_address = ":8081";     // "0" disables. Default: ":8081".
  // --metrics-secure: /metrics over HTTPS, each scrape authenticated (TokenReview) and authorised
  // (SubjectAccessReview) through `rest` (metrics_auth.h). Default: false (plain HTTP, open).
  bool metrics_secure = false;
  // --metrics-cert-dir: with metrics_secure, serve tls.crt/tls.key from here (reloaded when they
  // change); "" = a self-signed pair generated at start. Default: "".
  std::string metrics_cert_dir;
  bool leader_election = false;                        // Default: false.
  std::string leader_election_namespace;  // Default: the service-account namespace file, else
                                          // "default".
  std::string leader_election_id;         // Lease name; required with leader_election.
  std::string leader_election_identity;   // Default: hostname_uuid.
  std::chrono::milliseconds lease_duration{15000};   // Default: 15 s.
  std::chrono::milliseconds renew_deadline{10000};   // Default: 10 s.
  std::chrono::milliseconds retry_period{2000};      // Default: 2 s.
  bool leader_election_release_on_cancel = true;     // Default: true.
  // The elector's own client (controller-runtime builds the resource lock's client from a copy
  // of the rest config): Lease requests then share no connection pool or client-side rate
  // limiter with informers and controllers, so a busy controller cannot delay a renewal past
  // renewDeadline. Default: none (the elector uses `rest`).
  RestClientPtr leader_election_rest;
  std::chrono::milliseconds cache_sync_timeout{120000};  // Default: 2 min (controller-runtime).
  SharedInformerFactoryOptions informer_options;     // Default: DefaultTransform, 500/page.
  // Limits of the metrics and probe servers (connections, deadlines, header size).
  HttpServerOptions http_server_options;             // Default: HttpServerOptions{} (256 conns).
};

class Manager {
 public:
  // Create validates the options. Errors: kInvalidArgument (no rest client; leader election
  // without an id; bad bind addresses).
  static Result<std::unique_ptr<Manager>> Create(ManagerOptions options);
  ~Manager();  // Stop()

  // AddController creates a controller registered with the manager's metrics. Its workers start
  // when the manager leads and the caches synced. Errors: as Controller::Create, or a duplicate
  // name.
  Result<Controller*> AddController(ControllerOptions options, Reconciler reconciler);
  // AddCacheSyncWaiter adds a cache the manager waits for (besides informers()); `wait` blocks
  // until synced or the deadline and returns whether it synced. Also a /readyz check.
  void AddCacheSyncWaiter(std::string name, std::function<bool(SteadyTime deadline)> wait);

  // rest: the client controllers write through: fenced with leader election, else options.rest.
  const RestClientPtr& rest() const { return rest_; }
  SharedInformerFactory& informers() { return *informers_; }
  Registry& registry() { return registry_; }
  HealthChecks& healthz() { return healthz_; }
  HealthChecks& readyz() { return readyz_; }

  // Start serves metrics and probes, starts the informers and leader election (or, without it,
  // starts controllers once caches sync). Returns at once.
  // Errors: a server bind failure (kTransport) or bad address.
  Status Start();
  // Wait blocks until the manager stops: Stop(), RequestStop(), lost leadership or a cache-sync
  // timeout. Returns the reason when it was an error.
  Status Wait();
  // RequestStop asks Wait() to return (async-signal paths use this); it does not drain.
  void RequestStop();
  // Stop drains controllers, releases the Lease, stops informers and servers. Idempotent.
  void Stop();
  // Run is Start, then Wait until SIGTERM/SIGINT or another stop reason, then Stop.
  Status Run();

  bool IsLeader() const;
  // ControllersStarted: the controllers' workers are running.
  bool ControllersStarted() const { return controllers_started_.load(); }
  uint16_t metrics_port() const { return metrics_server_ ? metrics_server_->port() : 0; }
  uint16_t probe_port() const { return probe_server_ ? probe_server_->port() : 0; }
  const std::string& identity() const { return identity_; }

 private:
  explicit Manager(ManagerOptions options);
  void StartControllersWhenSynced();
  void Fail(std::string reason);
  bool WaitCachesSynced(SteadyTime deadline);

  ManagerOptions options_;
  std::string identity_;
  Registry registry_;
  HealthChecks healthz_;
  HealthChecks readyz_;
  std::unique_ptr<SharedInformerFactory> informers_;
  std::unique_ptr<MetricsAuthorizer> metrics_authorizer_;  // with metrics_secure
  std::unique_ptr<HttpServer> metrics_server_;
  std::unique_ptr<HttpServer> probe_server_;
  // The elector's Events (reason LeaderElection on the Lease, source.component = identity, as
  // controller-runtime's recorder for the resource lock), written unfenced: "stopped leading"
  // is recorded after the fence closed. Declared before elector_, so it outlives it.
  std::unique_ptr<EventRecorder> leader_events_;
  std::unique_ptr<LeaderElector> elector_;
  RestClientPtr rest_;  // fenced with leader election
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<std::pair<std::string, std::function<bool(SteadyTime)>>> waiters_;
  std::atomic<bool> controllers_started_{false};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;          // Wait() may return
  bool stopped_ = false;       // Stop() ran
  bool started_ = false;
  std::optional<Error> failure_;
  std::thread starter_;        // waits for cache sync, then starts controllers
};

// InformersSyncedCheck is the /readyz "informer-sync" check: it fails naming every informer
// that has not synced and why, e.g. "informer /api/v1/pods has not synced: last list error:
// Unauthorized (3 list/watch errors)".
Status InformersSyncedCheck(const SharedInformerFactory& informers);

// DefaultLeaderElectionNamespace: the in-cluster service-account namespace file, else "default".
std::string DefaultLeaderElectionNamespace();

}  // namespace berth::shim
