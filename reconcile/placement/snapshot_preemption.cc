// reconcile/placement/snapshot_preemption.cc
//
// ClusterSnapshot's side of DefaultPreemption: the bound pods of a node as victims, their start
// times, and the dry run's detach/reattach of a pod (the entry kept whole, so it comes back exactly
// as it was counted).
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

std::vector<VictimPod> ClusterSnapshot::VictimsOn(std::string_view node_name) const {
  const State& s = *state_;
  std::vector<VictimPod> out;
  int node = s.NodeForConst(node_name);
  if (node < 0) return out;
  for (const internal::PodEntry* pod : s.nodes[node].pods) {
    if (pod->assumed || !pod->priority_readable) continue;  // unreadable: never a victim
    VictimPod victim;
    victim.uid = std::string(pod->uid());
    victim.namespace_name = std::string(pod->member.namespace_name);
    victim.name = std::string(pod->name());
    victim.labels = *pod->member.labels;
    victim.priority.value = pod->priority;
    victim.priority.start_time = pod->start_time();
    victim.priority.terminating_by_preemption = pod->terminating_by_preemption;
    victim.terminating = pod->member.terminating;
    out.push_back(std::move(victim));
  }
  return out;
}

void ClusterSnapshot::SetPodStartTime(std::string_view pod_uid, std::optional<Time> start_time, bool readable) {
  auto it = state_->pods.find(pod_uid);
  if (it == state_->pods.end()) return;
  it->second.SetStartTime(start_time);
  if (!readable) it->second.priority_readable = false;
}

bool ClusterSnapshot::DetachPod(std::string_view pod_uid) {
  State& s = *state_;
  auto it = s.pods.find(pod_uid);
  if (it == s.pods.end()) return false;
  s.CountPod(it->second, -1);
  s.detached_pods.insert(s.pods.extract(it));
  s.RefreshPreAllocators(pod_uid);
  return true;
}

void ClusterSnapshot::ReattachPod(std::string_view pod_uid) {
  State& s = *state_;
  auto it = s.detached_pods.find(pod_uid);
  if (it == s.detached_pods.end()) return;
  auto inserted = s.pods.insert(s.detached_pods.extract(it));
  if (!inserted.inserted) return;  // counted again meanwhile: the newer entry wins
  s.CountPod(inserted.position->second, +1);
  s.RefreshPreAllocators(pod_uid);
}

}  // namespace berth::reconcile::placement
