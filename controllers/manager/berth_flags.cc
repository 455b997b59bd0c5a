// controllers/manager/berth_flags.cc
#include "controllers/manager/berth_flags.h"

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <utility>

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/base/log_flags.h"
#include "clientgo-shim/manager/manager_flags.h"
#include "controllers/common/bool_flag.h"
#include "controllers/scheduler/scheduler_controller.h"

namespace berth::controllers {
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

// TakeBerthBoolFlag: berth's own boolean flags, each in Go's forms (controllers/common/bool_flag.h).
BoolFlagMatch TakeBerthBoolFlag(const std::vector<std::string>& args, size_t& i, BerthFlags& flags,
                                std::string& error) {
  const std::pair<std::string_view, bool*> bools[] = {
      {"--reservation-lifecycle-all-schedulers", &flags.reservation_lifecycle_all_schedulers},
      {"--pre-allocation-cluster-mode", &flags.pre_allocation.enable_cluster_mode},
      {"--pre-allocation-prefer-no-pre-allocated-pods", &flags.pre_allocation.prefer_no_pre_allocated_pods},
      {"--migration-evict-daemonset-pods", &flags.migration.evictability.evict_daemonset_pods},
      {"--migration-evict-system-critical-pods", &flags.migration.evictability.evict_system_critical_pods},
      {"--migration-evict-bare-pods", &flags.migration.evictability.evict_bare_pods},
      {"--migration-evict-local-storage-pods", &flags.migration.evictability.evict_local_storage_pods},
  };
  for (const auto& [name, target] : bools) {
    if (BoolFlagMatch m = TakeBoolFlag(args, i, name, *target, error); m != BoolFlagMatch::kNotMine) return m;
  }
  return BoolFlagMatch::kNotMine;
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

// Usage fills the known controller names into kUsage.
std::string Usage(const std::vector<ControllerRegistration>& table) {
  std::string usage = kUsage;
  usage.replace(usage.find("%CONTROLLERS%"), 13, ControllerNamesUsage(table));
  return usage + kMigrationFlagsUsage + shim::ManagerFlagsUsage() + log::LogFlagsUsage();
}

}  // namespace

std::optional<int> ParseBerthFlags(const std::vector<std::string>& args,
                                   const std::vector<ControllerRegistration>& controller_table, BerthFlags& flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string value;
    std::string error;
    if (BoolFlagMatch m = TakeBerthBoolFlag(args, i, flags, error); m != BoolFlagMatch::kNotMine) {
      if (m == BoolFlagMatch::kInvalid) {
        std::cerr << "berth-manager: " << error << "\n";
        return 2;
      }
    } else if (a == "--help" || a == "-h") {
      std::cout << Usage(controller_table);
      return 0;
    } else if (TakeValue(args, i, "--controllers", value)) {
      // Checked here too, so a bad value fails even when --help follows (the chart test relies on it).
      if (auto selected = SelectControllers(value, controller_table); !selected) {
        std::cerr << "berth-manager: " << selected.error().message << "\n";
        return 2;
      }
      flags.controllers = value;
    } else if (TakeValue(args, i, "--provisioning-classes", value)) {
      auto classes = ParseProvisioningClasses(value);
      if (!classes) {
        std::cerr << "berth-manager: " << classes.error().message << "\n";
        return 2;
      }
      flags.provisioning_classes = std::move(*classes);
    } else if (TakeValue(args, i, "--check-capacity-processor-instance", value)) {
      // A parameter value, so at most 255 characters (the CRD's limit): a longer name could never match.
      if (value.size() > 255) {
        std::cerr << "berth-manager: --check-capacity-processor-instance: \"" << value.substr(0, 40)
                  << "...\" is longer than 255 characters, the longest parameters.processorInstance\n";
        return 2;
      }
      flags.processor_instance = value;
    } else if (TakeValue(args, i, "--provisioning-request-booking-time", value)) {
      flags.provisioning_timers.booking_time = ParseDurationFlag("--provisioning-request-booking-time", value, true);
    } else if (TakeValue(args, i, "--provisioning-request-pending-expiry", value)) {
      flags.provisioning_timers.pending_expiry = ParseDurationFlag("--provisioning-request-pending-expiry", value, true);
    } else if (TakeValue(args, i, "--provisioning-request-terminal-ttl", value)) {
      flags.provisioning_timers.terminal_ttl = ParseDurationFlag("--provisioning-request-terminal-ttl", value, true);
    } else if (TakeValue(args, i, "--provisioning-request-template-grace", value)) {
      flags.provisioning_timers.template_grace = ParseDurationFlag("--provisioning-request-template-grace", value, false);
    } else if (TakeValue(args, i, "--provisioning-request-initial-backoff-time", value)) {
      flags.provisioning_timers.initial_backoff =
          ParseDurationFlag("--provisioning-request-initial-backoff-time", value, true);
    } else if (TakeValue(args, i, "--provisioning-request-max-backoff-time", value)) {
      flags.provisioning_timers.max_backoff = ParseDurationFlag("--provisioning-request-max-backoff-time", value, true);
    } else if (TakeValue(args, i, "--kubeconfig", value)) {
      flags.kubeconfig = value;
    } else if (TakeValue(args, i, "--cloud-config", value)) {
      flags.cloud_config_path = value;
    } else if (TakeValue(args, i, "--cloud-provider-grpc-address", value)) {
      flags.cloud_overrides.address = value;
    } else if (TakeValue(args, i, "--cloud-provider-grpc-cert", value)) {
      flags.cloud_overrides.cert = value;
    } else if (TakeValue(args, i, "--cloud-provider-grpc-key", value)) {
      flags.cloud_overrides.key = value;
    } else if (TakeValue(args, i, "--cloud-provider-grpc-cacert", value)) {
      flags.cloud_overrides.cacert = value;
    } else if (TakeValue(args, i, "--cloud-provider-grpc-timeout", value)) {
      flags.cloud_overrides.grpc_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
          ParseDurationFlag("--cloud-provider-grpc-timeout", value, true));
      flags.cloud_timeout_set = true;
    } else if (TakeValue(args, i, "--provisioning-request-scale-up-timeout", value)) {
      flags.scale_up.registration_timeout = std::chrono::duration_cast<reconcile::Duration>(
          ParseDurationFlag("--provisioning-request-scale-up-timeout", value, true));
    } else if (TakeValue(args, i, "--context", value)) {
      flags.context = value;
    } else if (TakeValue(args, i, "--reservation-gc-duration", value)) {
      flags.gc_duration = ParseDurationFlag("--reservation-gc-duration", value, false);
    } else if (TakeValue(args, i, "--reservation-owner-sync-interval", value)) {
      flags.owner_sync_interval = ParseDurationFlag("--reservation-owner-sync-interval", value, false);
    } else if (TakeValue(args, i, "--reservation-workers", value)) {
      flags.reservation_workers = ParseCountFlag("--reservation-workers", value, 1, 1024);
    } else if (TakeValue(args, i, "--migration-workers", value)) {
      flags.migration_workers = ParseCountFlag("--migration-workers", value, 1, 1024);
    } else if (TakeValue(args, i, "--scheduler-names", value)) {
      flags.scheduler_names = ParseSchedulerNames(value);
      if (flags.scheduler_names.empty()) {
        std::cerr << "berth-manager: --scheduler-names needs at least one name\n";
        return 2;
      }
    } else if (TakeValue(args, i, "--scoring-strategy", value)) {
      if (value != "LeastAllocated" && value != "MostAllocated") {
        std::cerr << "berth-manager: invalid --scoring-strategy \"" << value
                  << "\" (LeastAllocated, MostAllocated)\n";
        return 2;
      }
      flags.scoring = reconcile::placement::ParseScoringStrategy(value);
    } else if (TakeValue(args, i, "--pre-allocation-cluster-label-key", value)) {
      if (value.empty()) {
        std::cerr << "berth-manager: --pre-allocation-cluster-label-key must not be empty\n";
        return 2;
      }
      flags.pre_allocation.cluster_label_key = value;
    } else if (TakeValue(args, i, "--pre-allocation-cluster-priority-annotation-key", value)) {
      if (value.empty()) {
        std::cerr << "berth-manager: --pre-allocation-cluster-priority-annotation-key must not be empty\n";
        return 2;
      }
      flags.pre_allocation.cluster_priority_annotation_key = value;
    } else if (TakeValue(args, i, "--migration-default-ttl", value)) {
      flags.migration.default_ttl = ParseDurationFlag("--migration-default-ttl", value, false);
    } else if (TakeValue(args, i, "--migration-eviction-backoff", value)) {
      auto d = shim::ParseDuration(value);
      if (!d || d->count() <= 0 || *d > flags.migration.eviction_backoff_max) {
        std::cerr << "berth-manager: invalid --migration-eviction-backoff \"" << value << "\": "
                  << (d ? "must be more than 0 and at most 60s" : d.error().message) << "\n";
        return 2;
      }
      flags.migration.eviction_backoff_initial = *d;
    } else if (auto m = TakeMigrationFlag(args, i, flags.arbitration, value);
               m != FlagMatch::kNotMine) {
      if (m == FlagMatch::kInvalid) {
        std::cerr << "berth-manager: " << value << "\n";
        return 2;
      }
    } else if (TakeValue(args, i, "--rescheduler-config-namespace", value)) {
      if (value.empty()) {
        std::cerr << "berth-manager: --rescheduler-config-namespace must not be empty\n";
        return 2;
      }
      flags.rescheduler_namespace = value;
    } else if (TakeValue(args, i, "--prefer-avoid-pods-ttl", value)) {
      flags.prefer_avoid.ttl = ParseDurationFlag("--prefer-avoid-pods-ttl", value, false);
    } else if (TakeValue(args, i, "--prefer-avoid-pods-max", value)) {
      flags.prefer_avoid.max_entries =
          static_cast<size_t>(ParseCountFlag("--prefer-avoid-pods-max", value, 1, std::numeric_limits<int>::max()));
    } else if (TakeValue(args, i, "--extender-bind-address", value)) {
      if (auto parsed = shim::ParseBindAddress(value); !parsed) {
        std::cerr << "berth-manager: --extender-bind-address: " << parsed.error().message << "\n";
        return 2;
      }
      flags.extender_bind_address = value;
    } else if (TakeValue(args, i, "--extender-cert-dir", value)) {
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
  return std::nullopt;
}

}  // namespace berth::controllers
