// reconcile/placement/owners.cc
#include "reconcile/placement/owners.h"

#include "reconcile/placement/exact_match.h"

#include "reconcile/placement/filters.h"
#include "reconcile/placement/reservation_affinity.h"

namespace berth::reconcile::placement {
namespace {

// Field: an empty owner field does not restrict.
bool Field(const std::string& want, std::string_view have) { return want.empty() || want == have; }

}  // namespace

bool MatchesObjectOwner(const PodSpecView& pod, const ObjectOwner& owner) {
  return Field(owner.uid, pod.uid) && Field(owner.name, pod.name) &&
         Field(owner.namespace_name, pod.namespace_name) && Field(owner.api_version, "v1");
}

bool MatchesControllerOwner(const PodSpecView& pod, const ControllerOwner& owner) {
  if (!Field(owner.namespace_name, pod.namespace_name)) return false;
  for (const PodOwnerReference& ref : pod.owner_references) {
    if (Field(owner.uid, ref.uid) && Field(owner.name, ref.name) && Field(owner.kind, ref.kind) &&
        Field(owner.api_version, ref.api_version) &&
        (!owner.controller.has_value() || *owner.controller == ref.controller)) {
      return true;
    }
  }
  return false;
}

bool MatchesOwner(const PodSpecView& pod, const ReservationOwner& owner) {
  if (owner.object && !MatchesObjectOwner(pod, *owner.object)) return false;
  if (owner.controller && !MatchesControllerOwner(pod, *owner.controller)) return false;
  if (owner.label_selector && !owner.label_selector->Matches(pod.labels)) return false;
  return true;
}

bool MatchesOwners(const PodSpecView& pod, const std::vector<ReservationOwner>& owners) {
  for (const ReservationOwner& owner : owners) {
    if (MatchesOwner(pod, owner)) return true;
  }
  return false;
}

bool MatchesReservationOwners(const PodSpecView& pod, const ReservationView& reservation) {
  if (!reservation.provisioning_request.empty()) {
    return pod.consumes_provisioning_request == reservation.provisioning_request;
  }
  return MatchesOwners(pod, reservation.owners);
}

bool CanAllocate(const PodSpecView& pod, const ReservationView& reservation, bool has_owner,
                 const LabelMap& node_labels) {
  if (reservation.phase != Phase::kAvailable || reservation.node_name.empty()) return false;
  if (pod.reservation_ignored) return false;
  if (reservation.allocate_once && has_owner) return false;
  if (!MatchesReservationOwners(pod, reservation)) return false;
  if (!pod.exact_match_resources.empty() &&
      !ExactMatchesReservation(pod.requests, reservation.allocatable, pod.exact_match_resources)) {
    return false;
  }
  AffinityOutcome outcome = ClassifyForAffinity(pod.reservation_affinity.get(), pod.tolerations,
                                                reservation, node_labels);
  return outcome == AffinityOutcome::kMatched || outcome == AffinityOutcome::kNameMatched;
}

}  // namespace berth::reconcile::placement
