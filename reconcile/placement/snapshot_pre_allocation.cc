// reconcile/placement/snapshot_pre_allocation.cc
//
// ClusterSnapshot's pre-allocation decisions: the pure rules of pre_allocation.h applied to the
// cache's nodes, pods and reservations.
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

std::optional<ReservationPlacement> ClusterSnapshot::PlacePreAllocation(
    const PodSpecView& template_pod, const ReservationView& reservation,
    const std::vector<PreAllocatablePod>& pods, const PreAllocationPolicy& policy,
    const PreAllocationOptions& options) const {
  const State& s = *state_;
  // A template with unparsable or unbounded requests is placed nowhere (PlaceReservation says why).
  if (!template_pod.request_errors.empty() || HasUnbounded(template_pod.requests)) return std::nullopt;
  // Pods a Waiting reservation (other than this one) already pre-allocates.
  std::set<std::string, std::less<>> taken;
  for (const auto& [pod_uid, holders] : s.pre_allocators) {
    for (const std::string& uid : holders) {
      auto r = s.reservations.find(uid);
      if (uid != reservation.uid && r != s.reservations.end() && State::PreAllocating(*r->second)) {
        taken.insert(pod_uid);
        break;
      }
    }
  }
  std::vector<PreAllocationCandidate> ordered =
      SelectPreAllocatable(pods, reservation.owners, policy, options, taken);
  if (ordered.empty()) return std::nullopt;
  ResourceAmounts requests;
  for (const auto& [name, amount] : template_pod.requests) {
    if (amount > 0 && name != kResourcePods) requests[name] = amount;
  }
  auto node_ok = [&](std::string_view name) {
    int i = s.NodeForConst(name);
    if (i < 0 || !s.nodes[i].present) return false;
    return NonResourceFilterReasons(template_pod, s.nodes[i].view).empty();
  };
  std::optional<PreAllocationChoice> choice =
      ChoosePreAllocation(ordered, requests, policy.enable_multiple, node_ok);
  if (!choice) return std::nullopt;
  ReservationPlacement out;
  out.node_name = std::move(choice->node_name);
  out.allocatable = std::move(requests);
  out.phase = Phase::kWaiting;
  out.pre_allocated = std::move(choice->pods);
  return out;
}

WaitingDecision ClusterSnapshot::DecideWaiting(std::string_view reservation_uid) const {
  const State& s = *state_;
  auto it = s.reservations.find(reservation_uid);
  if (it == s.reservations.end()) return {};
  return placement::DecideWaiting(
      it->second->view.pre_allocated,
      [&](const PreAllocatedPod& pod) { return s.pods.contains(pod.uid); },
      ReservationFitsNow(reservation_uid));
}

}  // namespace berth::reconcile::placement
