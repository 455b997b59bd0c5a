// clientgo-shim/manager/manager.cc — see manager.h.
#include "clientgo-shim/manager/manager.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <fstream>

#include "clientgo-shim/base/log.h"

#include "clientgo-shim/manager/signals.h"
#include "clientgo-shim/metrics/process_metrics.h"
#include "clientgo-shim/metrics/self_signed_cert.h"
#include "clientgo-shim/transport/fenced_rest_client.h"

namespace berth::shim {

std::string DefaultLeaderElectionNamespace() {
  std::ifstream f("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string ns;
  if (f && std::getline(f, ns) && !ns.empty()) return ns;
  return "default";
}

namespace {

// InformerName: the informer's path and selectors, as /readyz and the lifecycle log name it.
template <typename Key>
std::string InformerName(const Key& key) {
  std::string name = key.path;
  if (!key.label_selector.empty()) name += " labelSelector=" + key.label_selector;
  if (!key.field_selector.empty()) name += " fieldSelector=" + key.field_selector;
  return name;
}

}  // namespace

Status InformersSyncedCheck(const SharedInformerFactory& informers) {
  std::string why;
  for (const auto& [key, informer] : informers.Informers()) {
    if (informer->HasSynced()) continue;
    const std::string name = InformerName(key);
    const ReflectorStats stats = informer->Stats();
    if (!why.empty()) why += "; ";
    why += "informer " + name + " has not synced";
    if (stats.last_error.empty()) {
      why += " (no list has completed yet, no error so far)";
    } else {
      why += ": last " + stats.last_error_op + " error: " + stats.last_error + " (" +
             std::to_string(stats.errors) + " list/watch errors)";
    }
  }
  if (why.empty()) return {};
  return MakeError(ErrorCode::kInternal, std::move(why));
}

Result<std::unique_ptr<Manager>> Manager::Create(ManagerOptions options) {
  if (!options.rest) return MakeError(ErrorCode::kInvalidArgument, "manager: rest client is required");
  for (const std::string* a : {&options.metrics_bind_address, &options.health_probe_bind_address}) {
    auto parsed = ParseBindAddress(*a);
    if (!parsed) return std::unexpected(parsed.error());
  }
  if (options.leader_election && options.leader_election_id.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "LeaderElectionID must be configured (--leader-election-id) when leader "
                     "election is enabled");
  }
  if (options.leader_election_namespace.empty()) {
    options.leader_election_namespace = DefaultLeaderElectionNamespace();
  }
  std::unique_ptr<Manager> m(new Manager(std::move(options)));
  if (m->options_.leader_election) {
    LeaderElectionConfig c;
    c.rest = m->options_.leader_election_rest ? m->options_.leader_election_rest : m->options_.rest;
    c.lease_namespace = m->options_.leader_election_namespace;
    c.lease_name = m->options_.leader_election_id;
    c.identity = m->identity_;
    c.lease_duration = m->options_.lease_duration;
    c.renew_deadline = m->options_.renew_deadline;
    c.retry_period = m->options_.retry_period;
    c.release_on_cancel = m->options_.leader_election_release_on_cancel;
    c.metrics = &m->registry_;
    const std::string lease_namespace = c.lease_namespace, lease_name = c.lease_name;
    Manager* recorder_owner = m.get();  // leader_events_ is made below, before the elector runs
    c.record_event = [recorder_owner, lease_namespace, lease_name](const std::string& lease_uid,
                                                                  const std::string& message) {
      ObjectReference lease;
      lease.api_version = "coordination.k8s.io/v1";
      lease.kind = "Lease";
      lease.ns = lease_namespace;
      lease.name = lease_name;
      lease.uid = lease_uid;
      EventRecorder& recorder = *recorder_owner->leader_events_;
      recorder.Event(lease, EventType::kNormal, "LeaderElection", message);
      // "stopped leading" comes just before the fence closes and the Lease is released: written
      // first (for at most 1 s, the API server may be gone), while this replica still leads.
      if (message.ends_with(" stopped leading")) recorder.Flush(std::chrono::seconds(1));
    };
    Manager* self = m.get();
    c.callbacks.on_started_leading = [self] { self->StartControllersWhenSynced(); };
    c.callbacks.on_stopped_leading = [self] {
      // Stop handing out work at once; in-flight reconciles finish, nothing new starts.
      for (auto& ctrl : self->controllers_) ctrl->ShutDownQueue();
      std::lock_guard<std::mutex> l(self->mu_);
      if (!self->stopped_) {
        self->failure_ = Error{ErrorCode::kInternal, "leader election lost", 0, {}, {}};
        self->done_ = true;
        self->cv_.notify_all();
      }
    };
    auto e = LeaderElector::Create(std::move(c));
    if (!e) return std::unexpected(e.error());
    m->elector_ = std::move(*e);
    m->rest_ = std::make_shared<FencedRestClient>(m->options_.rest, m->elector_->fence());
    // Fenced like every other write: an Event still queued (or retrying after a fault) when this
    // replica loses the Lease is dropped, never written after a standby took over.
    EventRecorderOptions events;
    events.rest = m->rest_;
    events.component = m->identity_;
    events.stop_flush_timeout = std::chrono::seconds(1);
    m->leader_events_ = std::make_unique<EventRecorder>(std::move(events));
  } else {
    m->rest_ = m->options_.rest;
  }
  return m;
}

Manager::Manager(ManagerOptions options)
    : options_(std::move(options)),
      identity_(options_.leader_election_identity.empty() ? DefaultLeaderIdentity()
                                                          : options_.leader_election_identity),
      informers_(std::make_unique<SharedInformerFactory>(options_.rest,
                                                         options_.informer_options)) {
  healthz_.AddCheck("ping", PingCheck);
  readyz_.AddCheck("informer-sync", [this]() { return InformersSyncedCheck(*informers_); });
  // controller-runtime's registry always carries the process collector.
  RegisterProcessMetrics(registry_);
}

Manager::~Manager() { Stop(); }

Result<Controller*> Manager::AddController(ControllerOptions options, Reconciler reconciler) {
  for (const auto& c : controllers_) {
    if (c->name() == options.name) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "controller with name " + options.name + " already exists");
    }
  }
  options.metrics = &registry_;
  auto c = Controller::Create(std::move(options), std::move(reconciler));
  if (!c) return std::unexpected(c.error());
  controllers_.push_back(std::move(*c));
  return controllers_.back().get();
}

void Manager::AddCacheSyncWaiter(std::string name, std::function<bool(SteadyTime)> wait) {
  readyz_.AddCheck(name + "-sync", [wait, name]() -> Status {
    if (!wait(std::chrono::steady_clock::now())) {
      return MakeError(ErrorCode::kInternal, "the " + name + " cache has not synced");
    }
    return {};
  });
  waiters_.emplace_back(std::move(name), std::move(wait));
}

bool Manager::WaitCachesSynced(SteadyTime deadline) {
  if (!informers_->WaitForCacheSync(deadline)) return false;
  for (const auto& [name, wait] : waiters_) {
    if (!wait(deadline)) return false;
  }
  return true;
}

Status Manager::Start() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (started_) return {};
    started_ = true;
  }
  HttpServerOptions metrics_options = options_.http_server_options;
  if (options_.metrics_secure) {
    if (!options_.metrics_cert_dir.empty()) {
      metrics_options.tls_cert_file = options_.metrics_cert_dir + "/tls.crt";
      metrics_options.tls_key_file = options_.metrics_cert_dir + "/tls.key";
    } else {
      auto pair = GenerateSelfSignedCert();
      if (!pair) return std::unexpected(pair.error());
      metrics_options.tls_cert_pem = std::move(pair->cert_pem);
      metrics_options.tls_key_pem = std::move(pair->key_pem);
    }
  }
  metrics_server_ = std::make_unique<HttpServer>(options_.metrics_bind_address, metrics_options);
  ServeMetrics(*metrics_server_, registry_);
  if (options_.metrics_secure) {
    RestClientPtr rest = options_.rest;  // unfenced: standbys serve metrics too
    metrics_authorizer_ = std::make_unique<MetricsAuthorizer>(
        [rest](const std::string& path, const std::string& body) -> Result<std::string> {
          RestRequest request;
          request.method = "POST";
          request.path = path;
          request.body = body;
          request.timeout = std::chrono::seconds(10);  // controller-runtime's TokenAccessReviewTimeout
          auto response = rest->Do(request);
          if (!response) return std::unexpected(response.error());
          return std::move(response->body);
        });
    metrics_server_->Handle("/metrics", metrics_authorizer_->Wrap(MetricsHandler(registry_)));
  }
  if (auto p = metrics_server_->Start(); !p) return std::unexpected(p.error());
  probe_server_ = std::make_unique<HttpServer>(options_.health_probe_bind_address,
                                               options_.http_server_options);
  ServeProbes(*probe_server_, healthz_, readyz_);
  if (auto p = probe_server_->Start(); !p) return std::unexpected(p.error());
  log::Debug("manager", "starting informers", {{"informers", std::to_string(informers_->Informers().size())}});
  informers_->Start();
  if (elector_) {
    elector_->Start();
  } else {
    StartControllersWhenSynced();
  }
  return {};
}

void Manager::StartControllersWhenSynced() {
  std::lock_guard<std::mutex> l(mu_);
  if (stopped_ || starter_.joinable()) return;
  // Waiting for caches can take long; the leader-election callback must return quickly.
  starter_ = std::thread([this] {
    // controller-runtime's start sequence in its words. berth's controllers share one informer
    // per resource, so the event sources are logged once each, not per controller.
    for (const auto& [key, informer] : informers_->Informers()) {
      log::Info("manager", "Starting EventSource", {{"source", "kind source: " + InformerName(key)}});
    }
    for (const auto& c : controllers_) log::Info(c->name(), "Starting Controller", {{"controller", c->name()}});
    const SteadyTime deadline = std::chrono::steady_clock::now() + options_.cache_sync_timeout;
    // Poll in short slices so Stop() is not held up by a long sync wait.
    for (;;) {
      {
        std::lock_guard<std::mutex> l2(mu_);
        if (stopped_ || done_) return;
      }
      const SteadyTime slice = std::min(deadline, std::chrono::steady_clock::now() +
                                                      std::chrono::milliseconds(100));
      if (WaitCachesSynced(slice)) {
        log::Debug("manager", "caches synced");
#ifdef __GLIBC__
        // The initial LISTs' page buffers and decode scratch are free now; hand their pages back
        // once instead of keeping the start-up peak as resident memory.
        const auto trim_start = std::chrono::steady_clock::now();
        malloc_trim(0);
        log::Debug("manager", "malloc_trim done",
                   {{"ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - trim_start)
                                              .count())}});
#endif
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        const Status synced = InformersSyncedCheck(*informers_);
        log::Error("manager", "Could not wait for Cache to sync",
                   {{"error", "timed out waiting for cache to be synced"},
                    {"unsynced", synced ? std::string() : synced.error().message}});
        Fail("failed to wait for caches to sync: timed out waiting for cache to be synced");
        return;
      }
    }
    std::lock_guard<std::mutex> l2(mu_);
    if (stopped_ || done_) return;
    if (elector_ && !elector_->IsLeader()) return;
    // Set before the workers start, so whoever sees a reconcile also sees ControllersStarted()
    // (set after, a fast first reconcile could be observed while it still read false).
    controllers_started_ = true;
    for (auto& c : controllers_) c->Start();
    log::Debug("manager", "controllers started");
  });
}

void Manager::Fail(std::string reason) {
  std::lock_guard<std::mutex> l(mu_);
  if (!failure_) failure_ = Error{ErrorCode::kInternal, std::move(reason), 0, {}, {}};
  done_ = true;
  cv_.notify_all();
}

Status Manager::Wait() {
  std::unique_lock<std::mutex> l(mu_);
  cv_.wait(l, [this] { return done_; });
  if (failure_) return std::unexpected(*failure_);
  return {};
}

void Manager::RequestStop() {
  std::lock_guard<std::mutex> l(mu_);
  done_ = true;
  cv_.notify_all();
}

void Manager::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopped_) return;
    stopped_ = true;
    done_ = true;
    cv_.notify_all();
  }
  if (starter_.joinable()) starter_.join();
  // Controllers first, so no reconcile writes after the Lease is released.
  for (auto& c : controllers_) c->Stop();
  controllers_started_ = false;
  if (elector_) elector_->Stop();
  if (leader_events_) leader_events_->Stop();
  informers_->Stop();
  if (probe_server_) probe_server_->Stop();
  if (metrics_server_) metrics_server_->Stop();
}

Status Manager::Run() {
  if (auto s = Start(); !s) {
    Stop();
    return s;
  }
  SignalWatcher signals([this] { RequestStop(); });
  Status result = Wait();
  Stop();
  return result;
}

bool Manager::IsLeader() const { return elector_ ? elector_->IsLeader() : true; }

}  // namespace berth::shim
