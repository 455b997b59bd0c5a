// reconcile/placement/owners.h
//
// Which pods may allocate a Reservation: koordinator's owner matching (owners ORed, the fields of
// one owner ANDed) and the allocatability checks around it.
#pragma once

#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

// MatchesObjectOwner: every non-empty field of owners[].object equals the pod's.
bool MatchesObjectOwner(const PodSpecView& pod, const ObjectOwner& owner);
// MatchesControllerOwner: some ownerReference agrees on every non-empty field, and the
// namespace (when set) equals the pod's.
bool MatchesControllerOwner(const PodSpecView& pod, const ControllerOwner& owner);
// MatchesOwner: the present fields of one owner entry all match (ANDed).
bool MatchesOwner(const PodSpecView& pod, const ReservationOwner& owner);
// MatchesOwners: some entry matches (ORed); false for an empty list.
bool MatchesOwners(const PodSpecView& pod, const std::vector<ReservationOwner>& owners);
// MatchesReservationOwners: for a ProvisioningRequest booking (provisioning_request set), the
// pod consumes that request; otherwise MatchesOwners over spec.owners.
bool MatchesReservationOwners(const PodSpecView& pod, const ReservationView& reservation);

// CanAllocate: the pod may take capacity from the reservation: phase Available, placed on a
// node, the pod is not reservation-ignored, an allocateOnce reservation has no owner yet
// (`has_owner` is the cache's knowledge: currentOwners or a bound or assumed pod naming it), the
// pod matches an owner (for a ProvisioningRequest booking: the pod consumes that request), and ClassifyForAffinity (reservation_affinity.h) matches: not
// unschedulable, its NoSchedule/NoExecute taints tolerated (by the affinity's tolerations; without
// an affinity berth uses the pod's own tolerations), and the pod's reservation affinity, if any,
// selects it (`node_labels`: the labels of the reservation's node, which its labels overlay).
bool CanAllocate(const PodSpecView& pod, const ReservationView& reservation, bool has_owner,
                 const LabelMap& node_labels = {});

}  // namespace berth::reconcile::placement
