// berth-manager: the controller-manager binary. It loads the client config, builds the shim's
// Manager (shared informers, metrics and health probes, leader election) and registers berth's
// controllers, then runs until SIGTERM/SIGINT.
#include <algorithm>
#include <charconv>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/base/log_flags.h"
#include "clientgo-shim/config/loader.h"
#include "clientgo-shim/manager/manager.h"
#include "clientgo-shim/manager/manager_flags.h"
#include "clientgo-shim/manager/signals.h"
#include "clientgo-shim/metrics/standard_metrics.h"
#include "controllers/common/api_discovery.h"
#include "controllers/common/pod_cache.h"
#include "controllers/extender/extender_server.h"
#include "controllers/manager/berth_flags.h"
#include "controllers/manager/controller_registry.h"
#include "controllers/manager/provisioning_classes.h"
#include "controllers/provisioning/externalgrpc/cloud_config.h"
#include "controllers/provisioning/externalgrpc/scale_up.h"
#include "controllers/provisioning/provisioning_controller.h"
#include "controllers/migration/migration_controller.h"
#include "controllers/migration/migration_flags.h"
#include "controllers/rescheduler/rescheduler_controller.h"
#include "controllers/reservation/reservation_controller.h"
#include "controllers/resourcepolicy/resourcepolicy_controller.h"
#include "controllers/scheduler/scheduler_controller.h"

using namespace berth;

namespace {

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // glibc gives up to 8 arenas per core; the first list's decode workers and handlers then spread
  // the cached objects over many arenas, each keeping its own free holes: on 150,000 pods that
  // slack was ~120 B per pod of RSS. Two per core keep concurrent threads off each other's lock.
  // Before any thread starts.
  mallopt(M_ARENA_MAX, static_cast<int>(2 * std::max(1u, std::thread::hardware_concurrency())));
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  shim::ManagerOptions manager_options;
  manager_options.leader_election_id = "berth-manager";
  // Pods are most of the cache: only the status members a controller reads are kept (pod_cache.h).
  manager_options.informer_options.path_transforms.emplace("/api/v1/pods", controllers::PodCacheTransform());
  // The logging flags first, so everything after them logs as configured.
  log::Options log_options;
  auto after_log_flags = log::ApplyLogFlags(args, log_options);
  if (!after_log_flags) {
    std::cerr << "berth-manager: " << after_log_flags.error().message << "\n";
    return 2;
  }
  log::Configure(log_options);
  auto rest_args = shim::ApplyManagerFlags(*after_log_flags, manager_options);
  if (!rest_args) {
    std::cerr << "berth-manager: " << rest_args.error().message << "\n";
    return 2;
  }
  controllers::BerthFlags flags;
  // The controller table. Start functions run once the manager and client exist (below), so they
  // reach them through these; each keeps its controller alive in its own slot, declared after the
  // manager so controllers are destroyed before it.
  std::unique_ptr<shim::Manager> manager;
  shim::RestClientPtr rest_ref;
  std::unique_ptr<controllers::ReservationController> reservation_controller;
  std::unique_ptr<controllers::SchedulerController> scheduler_controller;
  controllers::externalgrpc::CloudConfig cloud;  // resolved from --cloud-config and the flags below
  std::unique_ptr<controllers::externalgrpc::ExternalGrpcScaleUp> externalgrpc_scale_up;
  std::unique_ptr<controllers::ProvisioningRequestController> provisioning_controller;
  std::unique_ptr<controllers::ResourcePolicyController> resourcepolicy_controller;
  std::unique_ptr<controllers::MigrationController> migration_controller;
  std::unique_ptr<controllers::ReschedulerController> rescheduler_controller;
  // What a controller cannot work without (ControllerRegistration::missing_api): the first API
  // discovery says is not served, "" when all are (or discovery could not tell).
  using Api = std::pair<std::string_view, std::string_view>;  // group/version, plural
  constexpr Api kReservationsApi{"scheduling.koordinator.sh/v1alpha1", "reservations"};
  constexpr Api kMigrationJobsApi{"scheduling.koordinator.sh/v1alpha1", "podmigrationjobs"};
  // Several controllers need the same API: each is asked of discovery once (start-up, one thread).
  std::map<Api, std::optional<bool>> served;
  auto first_missing = [&rest_ref, &served](std::initializer_list<Api> apis) -> std::string {
    for (const Api& api : apis) {
      auto it = served.find(api);
      if (it == served.end()) it = served.emplace(api, controllers::ResourceServed(*rest_ref, api.first, api.second)).first;
      if (it->second == false) return std::string(api.first) + " " + std::string(api.second);
    }
    return "";
  };
  auto reservations_missing = [&] { return first_missing({kReservationsApi}); };
  auto migration_missing = [&] { return first_missing({kReservationsApi, kMigrationJobsApi}); };
  auto provisioning_missing = [&]() -> std::string {
    // v1, or the deprecated v1beta1 of an older CRD (the controller reads either).
    if (first_missing({{"autoscaling.x-k8s.io/v1", "provisioningrequests"}}) != "" &&
        first_missing({{"autoscaling.x-k8s.io/v1beta1", "provisioningrequests"}}) != "") {
      return "autoscaling.x-k8s.io/v1 provisioningrequests";
    }
    return first_missing({kReservationsApi});
  };
  const std::vector<controllers::ControllerRegistration> controller_table = {
      {"reservation", true,
       [&]() -> Status {
         controllers::ReservationControllerOptions options;
         options.gc_duration = flags.gc_duration;
         options.owner_sync_interval = flags.owner_sync_interval;
         options.workers = flags.reservation_workers;
         options.scheduler_names = flags.scheduler_names;
         options.all_schedulers = flags.reservation_lifecycle_all_schedulers;
         auto c = controllers::ReservationController::Setup(*manager, rest_ref, options);
         if (!c) return std::unexpected(c.error());
         reservation_controller = std::move(*c);
         return {};
       },
       reservations_missing},
      {"scheduler", true,
       [&]() -> Status {
         controllers::SchedulerControllerOptions options;
         options.scheduler_names = flags.scheduler_names;
         options.scoring = flags.scoring;
         options.pre_allocation = flags.pre_allocation;
         options.prefer_avoid_ttl = flags.prefer_avoid.ttl;
         // With the extender, kube-scheduler may bind without berth's bindVerb: berth then
         // annotates the owner pods it sees bound into their reservations.
         if (auto address = shim::ParseBindAddress(flags.extender_bind_address)) {
           options.adopt_bound_pods = address->enabled;
         }
         auto c = controllers::SchedulerController::Setup(*manager, rest_ref, options);
         if (!c) return std::unexpected(c.error());
         scheduler_controller = std::move(*c);
         return {};
       },
       reservations_missing},
      {"resourcepolicy", true,
       [&]() -> Status {
         auto c = controllers::ResourcePolicyController::Setup(*manager, rest_ref, {});
         if (!c) return std::unexpected(c.error());
         resourcepolicy_controller = std::move(*c);
         return {};
       }},
      {"provisioningrequest", true,
       [&]() -> Status {
         controllers::ProvisioningRequestControllerOptions options;
         options.classes = flags.provisioning_classes;
         options.scheduler_name = flags.scheduler_names.front();
         options.timers = flags.provisioning_timers;
         options.processor_instance = flags.processor_instance;
         auto c = controllers::ProvisioningRequestController::Setup(*manager, rest_ref, options);
         if (!c) return std::unexpected(c.error());
         provisioning_controller = std::move(*c);
         if (!cloud.address.empty()) {
           auto scale_up = controllers::externalgrpc::SetupExternalGrpcScaleUp(
               *manager, *provisioning_controller, {cloud, flags.scale_up});
           if (!scale_up) return std::unexpected(scale_up.error());
           externalgrpc_scale_up = std::move(*scale_up);
         }
         return {};
       },
       provisioning_missing},
      {"migration", true,
       [&]() -> Status {
         controllers::MigrationControllerOptions options;
         options.migration = flags.migration;
         options.migration.scheduler_names = flags.scheduler_names;
         options.arbitration = flags.arbitration;
         options.prefer_avoid = flags.prefer_avoid;
         options.workers = flags.migration_workers;
         auto c = controllers::MigrationController::Setup(*manager, rest_ref, options);
         if (!c) return std::unexpected(c.error());
         migration_controller = std::move(*c);
         return {};
       },
       migration_missing},
      {"rescheduler", true,
       [&]() -> Status {
         controllers::ReschedulerControllerOptions options;
         options.config_namespace = flags.rescheduler_namespace.empty() ? shim::DefaultLeaderElectionNamespace()
                                                                        : flags.rescheduler_namespace;
         options.plan.evictability = flags.migration.evictability;
         options.plan.scheduler_names = flags.scheduler_names;
         auto c = controllers::ReschedulerController::Setup(*manager, rest_ref, options);
         if (!c) return std::unexpected(c.error());
         rescheduler_controller = std::move(*c);
         return {};
       },
       migration_missing},
  };
  if (auto exit_code = controllers::ParseBerthFlags(*rest_args, controller_table, flags)) return *exit_code;
  // The externalgrpc cloud provider: the cloud-config file, then the flags over it.
  if (!flags.cloud_config_path.empty()) {
    auto loaded = controllers::externalgrpc::LoadCloudConfig(flags.cloud_config_path);
    if (!loaded) {
      std::cerr << "berth-manager: --cloud-config " << loaded.error().message << "\n";
      return 2;
    }
    cloud = *loaded;
  }
  for (auto [field, override_value] :
       {std::pair{&cloud.address, &flags.cloud_overrides.address}, std::pair{&cloud.cert, &flags.cloud_overrides.cert},
        std::pair{&cloud.key, &flags.cloud_overrides.key}, std::pair{&cloud.cacert, &flags.cloud_overrides.cacert}}) {
    if (!override_value->empty()) *field = *override_value;
  }
  if (flags.cloud_timeout_set) cloud.grpc_timeout = flags.cloud_overrides.grpc_timeout;
  if (!cloud.address.empty() || !flags.cloud_config_path.empty()) {
    if (auto valid = controllers::externalgrpc::ValidateCloudConfig(cloud); !valid) {
      std::cerr << "berth-manager: " << valid.error().message << "\n";
      return 2;
    }
  }
  // Validated before connecting, so a typo exits 2 at once.
  auto enabled_controllers = controllers::SelectControllers(flags.controllers, controller_table);
  if (!enabled_controllers) {
    std::cerr << "berth-manager: " << enabled_controllers.error().message << "\n";
    return 2;
  }

  // The identity is fixed before the client exists so it can travel in the User-Agent: audit
  // logs then tell two replicas apart (the leader-fencing e2e relies on it).
  if (manager_options.leader_election_identity.empty()) {
    manager_options.leader_election_identity = shim::DefaultLeaderIdentity();
  }
  shim::LoaderOptions loader;
  loader.kubeconfig_flag = flags.kubeconfig;
  loader.context = flags.context;
  auto config = shim::LoadRestConfig(loader);
  if (!config) {
    log::Error("setup", "cannot load the client configuration", {{"error", config.error().message}});
    return 1;
  }
  // rest_client_requests_total needs the manager's registry, which exists only after the client:
  // the hook forwards to an observer installed once the manager is built.
  auto request_observer = std::make_shared<shim::RestRequestObserver>();
  config->on_request = [request_observer](std::string_view method, int code, std::chrono::duration<double> latency) {
    if (*request_observer) (*request_observer)(method, code, latency);
  };
  config->user_agent += " (" + manager_options.leader_election_identity + ")";
  auto rest = shim::MakeRestClient(*config);
  if (!rest) {
    log::Error("setup", "cannot build the API client", {{"error", rest.error().message}});
    return 1;
  }
  manager_options.rest = *rest;
  if (manager_options.leader_election) {
    // The elector gets a client of its own (as controller-runtime's resource lock does): its
    // Lease renewals never wait for a connection or a rate-limiter token behind the
    // controllers' traffic. Same User-Agent: audit logs tie the Lease writes to the identity.
    auto lease_rest = shim::MakeRestClient(*config);
    if (!lease_rest) {
      log::Error("setup", "cannot build the leader-election client", {{"error", lease_rest.error().message}});
      return 1;
    }
    manager_options.leader_election_rest = *lease_rest;
  }
  auto created_manager = shim::Manager::Create(manager_options);
  if (!created_manager) {
    log::Error("setup", "cannot create the manager", {{"error", created_manager.error().message}});
    return 1;
  }
  manager = std::move(*created_manager);
  std::string host = config->server;
  if (auto scheme = host.find("://"); scheme != std::string::npos) host = host.substr(scheme + 3);
  if (auto observer = shim::MakeRestClientObserver(manager->registry(), host)) {
    *request_observer = std::move(*observer);
  } else {
    log::Warn("setup", "rest client metrics disabled", {{"error", observer.error().message}});
  }
  // Controllers write through manager->rest() (fenced with --leader-elect); `rest` itself stays
  // with the manager for the elector's Lease writes and the informers' reads.
  rest_ref = manager->rest();
  if (auto started = controllers::StartControllers(controller_table, *enabled_controllers); !started) {
    log::Error("setup", "cannot start the controllers", {{"error", started.error().message}});
    return 1;
  }
  // The kube-scheduler extender answers from the scheduler's cache and binds through it.
  std::unique_ptr<controllers::extender::ExtenderService> extender_service;
  std::unique_ptr<shim::HttpServer> extender_server;
  if (auto address = shim::ParseBindAddress(flags.extender_bind_address); address && address->enabled) {
    if (!scheduler_controller) {
      log::Error("setup", "--extender-bind-address needs the scheduler controller");
      return 2;
    }
    controllers::SchedulerController* scheduler = scheduler_controller.get();
    extender_service = std::make_unique<controllers::extender::ExtenderService>(
        scheduler->cache(),
        [scheduler](const controllers::extender::ExtenderBindingArgs& a) {
          return scheduler->BindPodToNode(a.pod_namespace, a.pod_name, a.pod_uid, a.node);
        },
        &manager->registry());
    extender_service->SetPodViewHook(
        [scheduler](reconcile::placement::PodSpecView& view) { scheduler->ApplyDefaultSpread(view); });
    // No answer from a cache that has not listed everything yet (as /readyz's informer-sync).
    extender_service->SetReadyCheck(
        [informers = &manager->informers()]() { return shim::InformersSyncedCheck(*informers); });
    extender_server = std::make_unique<shim::HttpServer>(
        flags.extender_bind_address, controllers::extender::ExtenderServerOptions(flags.extender_cert_dir));
    extender_service->Register(*extender_server);
    auto port = extender_server->Start();
    if (!port) {
      log::Error("setup", "cannot serve the extender", {{"error", port.error().message}});
      return 1;
    }
    log::Info("setup", "serving the kube-scheduler extender",
              {{"port", std::to_string(*port)}, {"tls", flags.extender_cert_dir.empty() ? "false" : "true"}});
  }
  log::Info("setup", "starting berth-manager",
            {{"config", config->source}, {"metrics", manager_options.metrics_bind_address},
             {"probes", manager_options.health_probe_bind_address},
             {"leader_elect", manager_options.leader_election ? "true" : "false"},
             {"controllers", JoinComma(*enabled_controllers)},
             {"provisioning_classes", JoinComma(flags.provisioning_classes)},
             {"check_capacity_processor_instance", flags.processor_instance},
             {"identity", manager->identity()}});
  shim::SignalWatcher signals([&] {
    log::Info("setup", "signal received, stopping");
    manager->RequestStop();
  });
  auto status = manager->Run();
  if (!status) {
    log::Error("setup", "manager stopped with an error", {{"error", status.error().message}});
    return 1;
  }
  log::Info("setup", "stopped cleanly");
  return 0;
}
