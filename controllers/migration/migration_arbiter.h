// controllers/migration/migration_arbiter.h
//
// The migration controller's arbitration (koordinator's arbitrator, event-driven): which
// migrations are under way, read from the job and pod caches plus the jobs this process admitted
// and has not yet seen written Running (two workers must not both take the last slot), and the
// global eviction token bucket. The limits themselves are reconcile/migration/arbitration.
//
// A workload is a pod's controller. Its expected replicas: a ReplicaSet's spec.replicas from the
// replicasets cache; for other controllers (StatefulSet, custom), the count of its pods that are
// not finished (berth reads no other workload objects).
#pragma once

#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "clientgo-shim/informer/shared_informer.h"
#include "controllers/migration/workload_tallies.h"
#include "reconcile/migration/arbitration.h"
#include "reconcile/migration/rate_limiter.h"
#include "reconcile/migration/types.h"

namespace berth::controllers {

struct ArbitrationOptions {
  reconcile::migration::ArbitrationLimits limits;
  double evict_qps = 10;  // koordinator's EvictQPS; 0 = unlimited
  int evict_burst = 1;    // koordinator's EvictBurst
  // Held jobs next in line create their Reservation a wave ahead (reconcile/migration/reserve_ahead.h).
  bool reserve_ahead = true;
};

inline constexpr char kPodControllerUidIndex[] = "migration.controller-uid";
inline constexpr char kJobPhaseIndex[] = "migration.status.phase";  // "" for a job without a phase

class MigrationArbiter {
 public:
  MigrationArbiter(ArbitrationOptions options, std::shared_ptr<shim::SharedInformer> jobs,
                   std::shared_ptr<shim::SharedInformer> pods, std::shared_ptr<shim::SharedInformer> replicasets);

  // Admit: for a Pending job whose checks passed, the limit holding it back, or nullopt after
  // recording it as migrating. Serialised: concurrent admissions see each other.
  std::optional<reconcile::migration::LimitHit> Admit(const std::string& job_uid,
                                                      const reconcile::migration::PodFacts& pod);
  // IsAdmitted: the job was admitted and not yet forgotten.
  bool IsAdmitted(const std::string& job_uid);
  // AdmittedJobs: the uids of the jobs admitted and not yet forgotten.
  std::set<std::string> AdmittedJobs();
  // AdmittedOfWorkload: the uids of the admitted jobs (not yet forgotten) whose pod's controller
  // is `workload_uid`.
  std::set<std::string> AdmittedOfWorkload(const std::string& workload_uid);
  // Forget: the job ended or was deleted; its slot frees.
  void Forget(const std::string& job_uid);
  // TakeEvictionToken: zero when an eviction may go out now, else the wait for the next token.
  reconcile::Duration TakeEvictionToken(reconcile::Time now);

 private:
  std::optional<reconcile::migration::WorkloadFacts> Workload(const reconcile::migration::PodFacts& pod);
  ArbitrationOptions options_;
  std::shared_ptr<shim::SharedInformer> jobs_, pods_, replicasets_;
  std::mutex mu_;
  struct Admitted {
    reconcile::migration::MigratingPod pod;
    std::string pod_uid;
  };
  std::unordered_map<std::string, Admitted> admitted_;  // job uid →
  reconcile::migration::TokenBucket bucket_;
  // A workload's active and unavailable pods, from the pod events (see workload_tallies.h).
  WorkloadTallies tallies_;
};

}  // namespace berth::controllers
