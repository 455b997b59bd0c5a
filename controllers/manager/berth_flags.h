// controllers/manager/berth_flags.h
//
// berth-manager's own command-line flags (after the logging and manager flags): their values with
// the defaults, the usage text, and the parse. A bad value prints the reason and ends the process
// with 2, as kube-controller-manager does.
// Example:
//   controllers::BerthFlags flags;
//   if (auto exit_code = controllers::ParseBerthFlags(args, controller_table, flags)) return *exit_code;
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "controllers/manager/controller_registry.h"
#include "controllers/manager/provisioning_classes.h"
#include "controllers/migration/migration_flags.h"
#include "controllers/provisioning/externalgrpc/cloud_config.h"
#include "controllers/migration/migration_arbiter.h"
#include "reconcile/migration/job.h"
#include "reconcile/placement/pre_allocation.h"
#include "reconcile/placement/prefer_avoid_pods.h"
#include "reconcile/placement/scoring.h"
#include "reconcile/provisioning/types.h"
#include "reconcile/provisioning/scale_up.h"

namespace berth::controllers {

struct BerthFlags {
  std::string kubeconfig, context;
  std::string controllers{kDefaultControllers};
  std::vector<std::string> provisioning_classes = DefaultProvisioningClasses();
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
  externalgrpc::CloudConfig cloud_overrides;
  bool cloud_timeout_set = false;
  reconcile::provisioning::AtomicScaleUpOptions scale_up;
  reconcile::migration::MigrationOptions migration;
  ArbitrationOptions arbitration;
  std::string rescheduler_namespace;  // "" = shim::DefaultLeaderElectionNamespace()
  reconcile::placement::PreferAvoidOptions prefer_avoid;
};

// ParseBerthFlags reads `args` into `flags`. Returns the exit code when the process should end
// now: 0 after --help (the usage printed), 2 for an unknown flag or a bad value (the reason
// printed); nullopt to go on.
std::optional<int> ParseBerthFlags(const std::vector<std::string>& args,
                                   const std::vector<ControllerRegistration>& controller_table, BerthFlags& flags);

}  // namespace berth::controllers
