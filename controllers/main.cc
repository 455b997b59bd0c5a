// berth-manager: the controller-manager binary. It loads the client config, builds the shim's
// Manager (shared informers, metrics and health probes, leader election) and registers berth's
// controllers, then runs until SIGTERM/SIGINT.
#include <algorithm>
#include <charconv>
#include <iostream>
#include <limits>
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
#include "controllers/extender/extender_server.h"
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

constexpr char kUsage[] =
    "berth-manager: capacity reservations for Kubernetes (Reservation, ProvisioningRequest,\n"
    "ResourcePolicy, PDB-aware eviction).\n\n"
    "Usage: berth-manager [flags]\n\n"
    "  --controllers strings                Controllers to run: \"*\" (every default-on one), \"name\"\n"
    "                                       enables, \"-name\" disables, comma-separated; the first\n"
    "                                       entry naming a controller wins (default \"*\"). Known:\n"
    "                                       %CONTROLLERS%\n"
    "  --provisioning-classes strings       ProvisioningRequest classes berth handles; others are\n"
    "                                       never touched (default check-capacity.autoscaling.x-k8s.io,\n"
    "                                       best-effort-atomic-scale-up.autoscaling.x-k8s.io)\n"
    "  --check-capacity-processor-instance string\n"
    "                                       Cluster Autoscaler's processor instance: handle only\n"
    "                                       check-capacity requests whose parameters.processorInstance\n"
    "                                       is this name, and no best-effort-atomic-scale-up (default\n"
    "                                       \"\": requests naming any processorInstance are not handled)\n"
    "  --provisioning-request-booking-time duration\n"
    "                                       How long a Provisioned request's capacity stays booked\n"
    "                                       before BookingExpired (default 10m)\n"
    "  --provisioning-request-pending-expiry duration\n"
    "                                       Failed/Expired when not provisioned this long after\n"
    "                                       creation (default 168h)\n"
    "  --provisioning-request-terminal-ttl duration\n"
    "                                       Deletion this long after a terminal state (default 168h)\n"
    "  --provisioning-request-template-grace duration\n"
    "                                       How long a missing PodTemplate is waited for before\n"
    "                                       Failed/FailedToCreatePods (default 15s)\n"
    "  --provisioning-request-initial-backoff-time duration\n"
    "                                       Wait after the first CapacityIsNotFound (default 1m)\n"
    "  --provisioning-request-max-backoff-time duration\n"
    "                                       Longest wait between capacity checks (default 10m)\n"
    "  --cloud-config string                Cluster Autoscaler externalgrpc cloud-config (YAML: address,\n"
    "                                       key, cert, cacert, grpc_timeout): best-effort-atomic-scale-up\n"
    "                                       asks that provider for nodes. Without it (and without\n"
    "                                       --cloud-provider-grpc-address) the class adds no nodes\n"
    "  --cloud-provider-grpc-address string host:port of the externalgrpc provider (overrides address)\n"
    "  --cloud-provider-grpc-cert string    PEM client certificate; set = mTLS (overrides cert)\n"
    "  --cloud-provider-grpc-key string     PEM client key (overrides key)\n"
    "  --cloud-provider-grpc-cacert string  PEM CA bundle verifying the provider (overrides cacert)\n"
    "  --cloud-provider-grpc-timeout duration\n"
    "                                       Deadline of each call (overrides grpc_timeout; default 5s)\n"
    "  --provisioning-request-scale-up-timeout duration\n"
    "                                       How long requested nodes have to register before the\n"
    "                                       whole scale-up is given back (default 15m)\n"
    "  --kubeconfig string                  Path to a kubeconfig. Default: $KUBECONFIG, then in-cluster,\n"
    "                                       then ~/.kube/config\n"
    "  --context string                     The kubeconfig context to use (default: current-context)\n"
    "  --reservation-gc-duration duration   How long Failed/Succeeded reservations are kept before\n"
    "                                       deletion; 0 disables GC (default 24h)\n"
    "  --reservation-workers int            Concurrent Reservation reconciles (default 4)\n"
    "  --migration-workers int              Concurrent PodMigrationJob reconciles (default 2)\n"
    "  --reservation-owner-sync-interval duration\n"
    "                                       At most one currentOwners/allocated write per reservation\n"
    "                                       per interval during bind bursts; 0 writes every change\n"
    "                                       (default 1s)\n"
    "  --scheduler-names strings            Comma-separated schedulerName values whose pods and\n"
    "                                       Reservations berth schedules and whose Reservations the\n"
    "                                       lifecycle controller manages (default koord-scheduler)\n"
    "  --reservation-lifecycle-all-schedulers bool\n"
    "                                       Expire, sync and collect every Reservation whatever its\n"
    "                                       schedulerName (default false)\n"
    "  --scoring-strategy string            LeastAllocated or MostAllocated (default LeastAllocated)\n"
    "  --pre-allocation-cluster-mode bool   Let preAllocationPolicy.mode Cluster pre-allocate labelled\n"
    "                                       pods (enableClusterMode; default true)\n"
    "  --pre-allocation-cluster-label-key string\n"
    "                                       Label marking pre-allocatable pods (default\n"
    "                                       pod.koordinator.sh/is-pre-allocatable)\n"
    "  --pre-allocation-cluster-priority-annotation-key string\n"
    "                                       Annotation ordering them, higher first (default\n"
    "                                       pod.koordinator.sh/pre-allocatable-priority)\n"
    "  --pre-allocation-prefer-no-pre-allocated-pods bool\n"
    "                                       Place without pre-allocating pods when a node has room\n"
    "                                       (preferNoPreAllocatedPods; default false)\n"
    "  --migration-default-ttl duration     Timeout of a PodMigrationJob without spec.ttl (default 5m)\n"
    "  --migration-eviction-backoff duration\n"
    "                                       First wait before retrying a refused eviction; doubles per\n"
    "                                       try up to 60s, ±20% jitter (default 5s, as kubectl drain)\n"
    "  --migration-evict-daemonset-pods bool, --migration-evict-system-critical-pods bool,\n"
    "  --migration-evict-bare-pods bool, --migration-evict-local-storage-pods bool\n"
    "                                       Let PodMigrationJobs evict DaemonSet pods, pods with priority\n"
    "                                       >= 2000000000, pods without a controller, pods with emptyDir or\n"
    "                                       hostPath volumes (each default false; mirror and static pods\n"
    "                                       never)\n"
    "  --rescheduler-config-namespace string\n"
    "                                       Namespace of the rescheduler's ConfigMap berth-rescheduler\n"
    "                                       (default: the service-account namespace, else \"default\")\n"
    "  --prefer-avoid-pods-ttl duration     How long the node an evicted pod left keeps its controller\n"
    "                                       away (annotation scheduler.alpha.kubernetes.io/preferAvoidPods);\n"
    "                                       0 records and honours nothing (default 1h)\n"
    "  --prefer-avoid-pods-max int          Entries kept per node, oldest dropped first (default 32)\n"
    "  --extender-bind-address string       Serve kube-scheduler's extender verbs POST .../filter,\n"
    "                                       .../prioritize, .../bind, .../preempt here, under any\n"
    "                                       urlPrefix path (plain HTTP, or HTTPS with\n"
    "                                       --extender-cert-dir; needs the scheduler controller);\n"
    "                                       without bindVerb, owner pods kube-scheduler binds are\n"
    "                                       annotated into their reservation when berth sees them;\n"
    "                                       \"0\" or \"\" disables (default \"0\")\n"
    "  --extender-cert-dir string           Serve the extender over HTTPS with tls.crt and tls.key\n"
    "                                       from this directory (kube-scheduler's enableHTTPS),\n"
    "                                       reloaded when they change (default \"\": plain HTTP)\n"
    "  --help                               Print this help\n";

struct Flags {
  std::string kubeconfig, context;
  std::string controllers{controllers::kDefaultControllers};
  std::vector<std::string> provisioning_classes = controllers::DefaultProvisioningClasses();
  std::string processor_instance;
  std::chrono::nanoseconds gc_duration = std::chrono::hours(24);
  std::chrono::nanoseconds owner_sync_interval = std::chrono::seconds(1);
  int reservation_workers = 4;
  int migration_workers = 2;
  std::vector<std::string> scheduler_names = {"koord-scheduler"};
  bool reservation_lifecycle_all_schedulers = false;
  reconcile::placement::ScoringStrategy scoring = reconcile::placement::ScoringStrategy::kLeastAllocated;
  reconcile::placement::PreAllocationOptions pre_allocation;
  std::string extender_bind_address = "0";
  std::string extender_cert_dir;
  reconcile::provisioning::ProvisioningOptions provisioning_timers;
  // best-effort-atomic-scale-up through an externalgrpc cloud provider (off without an address).
  std::string cloud_config_path;
  controllers::externalgrpc::CloudConfig cloud_overrides;
  bool cloud_timeout_set = false;
  reconcile::provisioning::AtomicScaleUpOptions scale_up;
  reconcile::migration::MigrationOptions migration;
  controllers::ArbitrationOptions arbitration;
  std::string rescheduler_namespace;  // "" = shim::DefaultLeaderElectionNamespace()
  reconcile::placement::PreferAvoidOptions prefer_avoid;
};

// ParseDurationFlag parses a non-negative duration flag (positive with `positive`); anything
// else exits with 2.
std::chrono::nanoseconds ParseDurationFlag(std::string_view name, const std::string& value, bool positive) {
  auto d = shim::ParseDuration(value);
  if (!d || d->count() < 0 || (positive && d->count() == 0)) {
    std::cerr << "berth-manager: invalid " << name << " \"" << value << "\": "
              << (d ? (positive ? "must be positive" : "must not be negative") : d.error().message) << "\n";
    std::exit(2);
  }
  return *d;
}

// ParseCountFlag parses a whole decimal integer in [min, max] (a worker count, a list bound); "4x",
// "", "0" or an overflow exits with 2 naming the flag and the value.
int ParseCountFlag(std::string_view name, const std::string& value, int min, int max) {
  int n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < min || n > max) {
    std::cerr << "berth-manager: invalid " << name << " \"" << value << "\": want an integer from " << min << " to "
              << max << "\n";
    std::exit(2);
  }
  return n;
}

// ParseBoolFlag parses "true" or "false" for a boolean flag; anything else exits with 2.
bool ParseBoolFlag(std::string_view name, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  std::cerr << "berth-manager: invalid " << name << " \"" << value << "\" (true or false)\n";
  std::exit(2);
}

// TakeValue reads "--name=value" or "--name value".
bool TakeValue(const std::vector<std::string>& args, size_t& i, std::string_view name, std::string& out) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) {
      std::cerr << "berth-manager: flag needs an argument: " << name << "\n";
      std::exit(2);
    }
    out = args[++i];
    return true;
  }
  if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
    out = a.substr(name.size() + 1);
    return true;
  }
  return false;
}

std::string JoinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

// Usage fills the known controller names into kUsage.
std::string Usage(const std::vector<controllers::ControllerRegistration>& table) {
  std::string usage = kUsage;
  usage.replace(usage.find("%CONTROLLERS%"), 13, controllers::ControllerNamesUsage(table));
  return usage + controllers::kMigrationFlagsUsage + shim::ManagerFlagsUsage() + log::LogFlagsUsage();
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
  Flags flags;
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
       }},
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
       }},
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
       }},
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
       }},
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
       }},
  };
  for (size_t i = 0; i < rest_args->size(); ++i) {
    const std::string& a = (*rest_args)[i];
    std::string value;
    if (a == "--help" || a == "-h") {
      std::cout << Usage(controller_table);
      return 0;
    } else if (TakeValue(*rest_args, i, "--controllers", value)) {
      // Checked here too, so a bad value fails even when --help follows (the chart test relies on it).
      if (auto selected = controllers::SelectControllers(value, controller_table); !selected) {
        std::cerr << "berth-manager: " << selected.error().message << "\n";
        return 2;
      }
      flags.controllers = value;
    } else if (TakeValue(*rest_args, i, "--provisioning-classes", value)) {
      auto classes = controllers::ParseProvisioningClasses(value);
      if (!classes) {
        std::cerr << "berth-manager: " << classes.error().message << "\n";
        return 2;
      }
      flags.provisioning_classes = std::move(*classes);
    } else if (TakeValue(*rest_args, i, "--check-capacity-processor-instance", value)) {
      // A parameter value, so at most 255 characters (the CRD's limit): a longer name could never match.
      if (value.size() > 255) {
        std::cerr << "berth-manager: --check-capacity-processor-instance: \"" << value.substr(0, 40)
                  << "...\" is longer than 255 characters, the longest parameters.processorInstance\n";
        return 2;
      }
      flags.processor_instance = value;
    } else if (TakeValue(*rest_args, i, "--provisioning-request-booking-time", value)) {
      flags.provisioning_timers.booking_time = ParseDurationFlag("--provisioning-request-booking-time", value, true);
    } else if (TakeValue(*rest_args, i, "--provisioning-request-pending-expiry", value)) {
      flags.provisioning_timers.pending_expiry = ParseDurationFlag("--provisioning-request-pending-expiry", value, true);
    } else if (TakeValue(*rest_args, i, "--provisioning-request-terminal-ttl", value)) {
      flags.provisioning_timers.terminal_ttl = ParseDurationFlag("--provisioning-request-terminal-ttl", value, true);
    } else if (TakeValue(*rest_args, i, "--provisioning-request-template-grace", value)) {
      flags.provisioning_timers.template_grace = ParseDurationFlag("--provisioning-request-template-grace", value, false);
    } else if (TakeValue(*rest_args, i, "--provisioning-request-initial-backoff-time", value)) {
      flags.provisioning_timers.initial_backoff =
          ParseDurationFlag("--provisioning-request-initial-backoff-time", value, true);
    } else if (TakeValue(*rest_args, i, "--provisioning-request-max-backoff-time", value)) {
      flags.provisioning_timers.max_backoff = ParseDurationFlag("--provisioning-request-max-backoff-time", value, true);
    } else if (TakeValue(*rest_args, i, "--kubeconfig", value)) {
      flags.kubeconfig = value;
    } else if (TakeValue(*rest_args, i, "--cloud-config", value)) {
      flags.cloud_config_path = value;
    } else if (TakeValue(*rest_args, i, "--cloud-provider-grpc-address", value)) {
      flags.cloud_overrides.address = value;
    } else if (TakeValue(*rest_args, i, "--cloud-provider-grpc-cert", value)) {
      flags.cloud_overrides.cert = value;
    } else if (TakeValue(*rest_args, i, "--cloud-provider-grpc-key", value)) {
      flags.cloud_overrides.key = value;
    } else if (TakeValue(*rest_args, i, "--cloud-provider-grpc-cacert", value)) {
      flags.cloud_overrides.cacert = value;
    } else if (TakeValue(*rest_args, i, "--cloud-provider-grpc-timeout", value)) {
      flags.cloud_overrides.grpc_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
          ParseDurationFlag("--cloud-provider-grpc-timeout", value, true));
      flags.cloud_timeout_set = true;
    } else if (TakeValue(*rest_args, i, "--provisioning-request-scale-up-timeout", value)) {
      flags.scale_up.registration_timeout = std::chrono::duration_cast<reconcile::Duration>(
          ParseDurationFlag("--provisioning-request-scale-up-timeout", value, true));
    } else if (TakeValue(*rest_args, i, "--context", value)) {
      flags.context = value;
    } else if (TakeValue(*rest_args, i, "--reservation-gc-duration", value)) {
      auto d = shim::ParseDuration(value);
      if (!d || d->count() < 0) {
        std::cerr << "berth-manager: invalid --reservation-gc-duration \"" << value << "\": "
                  << (d ? "must not be negative" : d.error().message) << "\n";
        return 2;
      }
      flags.gc_duration = *d;
    } else if (TakeValue(*rest_args, i, "--reservation-owner-sync-interval", value)) {
      auto d = shim::ParseDuration(value);
      if (!d || d->count() < 0) {
        std::cerr << "berth-manager: invalid --reservation-owner-sync-interval \"" << value << "\": "
                  << (d ? "must not be negative" : d.error().message) << "\n";
        return 2;
      }
      flags.owner_sync_interval = *d;
    } else if (TakeValue(*rest_args, i, "--reservation-workers", value)) {
      flags.reservation_workers = ParseCountFlag("--reservation-workers", value, 1, 1024);
    } else if (TakeValue(*rest_args, i, "--migration-workers", value)) {
      flags.migration_workers = ParseCountFlag("--migration-workers", value, 1, 1024);
    } else if (TakeValue(*rest_args, i, "--scheduler-names", value)) {
      flags.scheduler_names = controllers::ParseSchedulerNames(value);
      if (flags.scheduler_names.empty()) {
        std::cerr << "berth-manager: --scheduler-names needs at least one name\n";
        return 2;
      }
    } else if (TakeValue(*rest_args, i, "--scoring-strategy", value)) {
      if (value != "LeastAllocated" && value != "MostAllocated") {
        std::cerr << "berth-manager: invalid --scoring-strategy \"" << value
                  << "\" (LeastAllocated, MostAllocated)\n";
        return 2;
      }
      flags.scoring = reconcile::placement::ParseScoringStrategy(value);
    } else if (TakeValue(*rest_args, i, "--reservation-lifecycle-all-schedulers", value)) {
      flags.reservation_lifecycle_all_schedulers = ParseBoolFlag("--reservation-lifecycle-all-schedulers", value);
    } else if (TakeValue(*rest_args, i, "--pre-allocation-cluster-mode", value)) {
      flags.pre_allocation.enable_cluster_mode = ParseBoolFlag("--pre-allocation-cluster-mode", value);
    } else if (TakeValue(*rest_args, i, "--pre-allocation-cluster-label-key", value)) {
      if (value.empty()) {
        std::cerr << "berth-manager: --pre-allocation-cluster-label-key must not be empty\n";
        return 2;
      }
      flags.pre_allocation.cluster_label_key = value;
    } else if (TakeValue(*rest_args, i, "--pre-allocation-cluster-priority-annotation-key", value)) {
      if (value.empty()) {
        std::cerr << "berth-manager: --pre-allocation-cluster-priority-annotation-key must not be empty\n";
        return 2;
      }
      flags.pre_allocation.cluster_priority_annotation_key = value;
    } else if (TakeValue(*rest_args, i, "--pre-allocation-prefer-no-pre-allocated-pods", value)) {
      flags.pre_allocation.prefer_no_pre_allocated_pods =
          ParseBoolFlag("--pre-allocation-prefer-no-pre-allocated-pods", value);
    } else if (TakeValue(*rest_args, i, "--migration-default-ttl", value)) {
      auto d = shim::ParseDuration(value);
      if (!d || d->count() < 0) {
        std::cerr << "berth-manager: invalid --migration-default-ttl \"" << value << "\": "
                  << (d ? "must not be negative" : d.error().message) << "\n";
        return 2;
      }
      flags.migration.default_ttl = *d;
    } else if (TakeValue(*rest_args, i, "--migration-eviction-backoff", value)) {
      auto d = shim::ParseDuration(value);
      if (!d || d->count() <= 0 || *d > flags.migration.eviction_backoff_max) {
        std::cerr << "berth-manager: invalid --migration-eviction-backoff \"" << value << "\": "
                  << (d ? "must be more than 0 and at most 60s" : d.error().message) << "\n";
        return 2;
      }
      flags.migration.eviction_backoff_initial = *d;
    } else if (TakeValue(*rest_args, i, "--migration-evict-daemonset-pods", value)) {
      flags.migration.evictability.evict_daemonset_pods = ParseBoolFlag("--migration-evict-daemonset-pods", value);
    } else if (TakeValue(*rest_args, i, "--migration-evict-system-critical-pods", value)) {
      flags.migration.evictability.evict_system_critical_pods =
          ParseBoolFlag("--migration-evict-system-critical-pods", value);
    } else if (TakeValue(*rest_args, i, "--migration-evict-bare-pods", value)) {
      flags.migration.evictability.evict_bare_pods = ParseBoolFlag("--migration-evict-bare-pods", value);
    } else if (TakeValue(*rest_args, i, "--migration-evict-local-storage-pods", value)) {
      flags.migration.evictability.evict_local_storage_pods =
          ParseBoolFlag("--migration-evict-local-storage-pods", value);
    } else if (auto m = controllers::TakeMigrationFlag(*rest_args, i, flags.arbitration, value);
               m != controllers::FlagMatch::kNotMine) {
      if (m == controllers::FlagMatch::kInvalid) {
        std::cerr << "berth-manager: " << value << "\n";
        return 2;
      }
    } else if (TakeValue(*rest_args, i, "--rescheduler-config-namespace", value)) {
      if (value.empty()) {
        std::cerr << "berth-manager: --rescheduler-config-namespace must not be empty\n";
        return 2;
      }
      flags.rescheduler_namespace = value;
    } else if (TakeValue(*rest_args, i, "--prefer-avoid-pods-ttl", value)) {
      flags.prefer_avoid.ttl = ParseDurationFlag("--prefer-avoid-pods-ttl", value, false);
    } else if (TakeValue(*rest_args, i, "--prefer-avoid-pods-max", value)) {
      flags.prefer_avoid.max_entries =
          static_cast<size_t>(ParseCountFlag("--prefer-avoid-pods-max", value, 1, std::numeric_limits<int>::max()));
    } else if (TakeValue(*rest_args, i, "--extender-bind-address", value)) {
      if (auto parsed = shim::ParseBindAddress(value); !parsed) {
        std::cerr << "berth-manager: --extender-bind-address: " << parsed.error().message << "\n";
        return 2;
      }
      flags.extender_bind_address = value;
    } else if (TakeValue(*rest_args, i, "--extender-cert-dir", value)) {
      if (value.empty()) {
        std::cerr << "berth-manager: --extender-cert-dir: empty directory\n";
        return 2;
      }
      flags.extender_cert_dir = value;
    } else {
      std::cerr << "berth-manager: unknown flag " << a << "\n" << Usage(controller_table);
      return 2;
    }
  }
  // A certificate directory with the extender off would be silently unused.
  if (auto address = shim::ParseBindAddress(flags.extender_bind_address);
      !flags.extender_cert_dir.empty() && !(address && address->enabled)) {
    std::cerr << "berth-manager: --extender-cert-dir needs --extender-bind-address\n";
    return 2;
  }
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
