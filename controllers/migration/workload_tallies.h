// controllers/migration/workload_tallies.h
//
// WorkloadTallies: each workload's (a pod's controller's) active and unavailable pods, kept from
// the pod informer's events so an admission reads them instead of recounting its pods.
// Nothing is stored per pod: a pod's contribution is a pure function of the cached object
// (TallyOf), and the store hands every handler the object it replaced (on_update's old object,
// on_delete's last state), so the old contribution is recomputed from it. A map of pod key →
// last contribution cost ~140 bytes per cached pod (150k pods: 20 MB) for no information the
// events do not carry.
// Thread-safety: all methods lock.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "clientgo-shim/cache/cached_object.h"

namespace berth::controllers {

class WorkloadTallies {
 public:
  // PodTally: what one pod adds to its workload.
  struct PodTally {
    std::string workload;  // its controller's uid (ownerReferences[controller=true].uid)
    bool unavailable = false;  // terminating, not Running, or not Ready
    bool operator==(const PodTally&) const = default;
  };
  // TallyOf: a pod's contribution; nullopt for a pod with no controller or that finished
  // (Succeeded/Failed): it counts nowhere.
  static std::optional<PodTally> TallyOf(const shim::CachedObject& pod);

  // The pod informer's events.
  void OnAdd(const shim::CachedObject& pod);
  void OnUpdate(const shim::CachedObject& old_pod, const shim::CachedObject& new_pod);
  void OnDelete(const shim::CachedObject& last_state);

  struct Workload {
    int64_t active = 0;                 // its pods not finished
    std::set<std::string, std::less<>> unavailable;  // pod keys ("<ns>/<name>")
  };
  // Of: the tally of one workload; nullopt when no pod counts for it.
  std::optional<Workload> Of(const std::string& workload_uid) const;
  size_t WorkloadCount() const;

 private:
  void AddLocked(std::string_view pod_key, const PodTally& tally);
  void RemoveLocked(std::string_view pod_key, const PodTally& tally);

  mutable std::mutex mu_;
  std::unordered_map<std::string, Workload> workloads_;  // controller uid →
};

}  // namespace berth::controllers
