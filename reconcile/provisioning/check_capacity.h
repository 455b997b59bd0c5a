// reconcile/provisioning/check_capacity.h
//
// The ProvisioningRequest decision: one pass over every request berth handles, in
// creationTimestamp then uid order, against one ClusterSnapshot (nodes, bound pods, active
// Reservations including the bookings of Provisioned requests). A request that fits has its
// pods assumed in the snapshot before the next request is decided, so two requests can never
// both claim the same capacity (upstream decides in lister order with no such guard).
//
// Per request, upstream's conditions with their exact reasons and messages:
//   Accepted=True/Accepted on first sight;
//   fits: Provisioned=True/CapacityIsFound and a booking (slices per node, held by Reservations);
//   a podSet count more than the nodes could hold even when empty (plus, for a scale-up class,
//     every node group at its maxSize): Failed=True/CapacityIsNotFound (upstream's reason and
//     noRetry message), the message naming spec.podSets[i].count; terminal, as retrying cannot help;
//   does not fit: Provisioned=False/CapacityIsNotFound (message: upstream's, then which podSet,
//     how many pods and the scheduler's reasons), retried after 1 min doubling to 10 min, or at
//     once when the controller says capacity was freed; with parameters.noRetry "true":
//     Failed=True/CapacityIsNotFound (terminal);
//   a missing PodTemplate: wait `template_grace` from creation, then Failed/FailedToCreatePods;
//   Provisioned and its pods no longer buildable (a PodTemplate deleted):
//     Failed=True/FailedToBookCapacity "Couldn't create pods, err: ..." (the booking is released);
//   Provisioned and every consumer pod bound: BookingExpired=True/CapacityBookingConsumed;
//   Provisioned for `booking_time`: BookingExpired=True/CapacityReservationTimeExpired;
//   a booked node deleted or unschedulable: CapacityRevoked=True (NodeDeleted/NodeUnschedulable);
//   not Provisioned `pending_expiry` after creation, or ValidUntilSeconds after creation:
//     Failed=True/Expired;
//   terminal for `terminal_ttl`: deleted.
// Every deadline becomes requeue_after (exact, no polling).
#pragma once

#include <expected>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "reconcile/placement/snapshot.h"
#include "reconcile/provisioning/pod_builder.h"
#include "reconcile/provisioning/types.h"

namespace berth::reconcile::provisioning {

// UnfitPodSet: pods of one podSet that existing capacity could not hold.
struct UnfitPodSet {
  int index = 0;
  std::string template_name;
  int64_t count = 0;       // pods of the set that did not fit
  int64_t of = 0;          // the set's count
  std::string reason;      // the scheduler's summary for the first pod that did not fit
  placement::PodSpecView pod;  // one copy of the set's pod (a provisioner sizes new nodes for it)
};

// ScaleUpOutcome: what a Provisioner did for pods that do not fit.
struct ScaleUpOutcome {
  enum class Kind { kNotFound, kInProgress, kProvisioned };
  Kind kind = Kind::kNotFound;
  std::string message;                   // for the Provisioned condition
  std::optional<Duration> requeue_after;  // kInProgress: when to look again
};

// Provisioner: a class that adds capacity for the pods existing nodes cannot hold (e.g.
// best-effort-atomic-scale-up). check-capacity has none: pods that do not fit mean
// CapacityIsNotFound. The pass calls it, under the same serial order, with the request's pods
// that did not fit after the ones that fit were placed, and the pass's snapshot (a node the
// cloud reports registered may not have reached it yet).
class Provisioner {
 public:
  virtual ~Provisioner() = default;
  virtual ScaleUpOutcome Provision(const ProvisioningRequestView& request, const std::vector<UnfitPodSet>& unfit,
                                   const placement::ClusterSnapshot& snapshot, Time now) = 0;
  // Settled: the request's pods all fit now. Returns true when they fit because of a scale-up
  // this provisioner made for it (the request becomes CapacityIsProvisioned rather than
  // CapacityIsFound); the provisioner forgets its record of the request.
  virtual bool Settled(const ProvisioningRequestView& request, Time now) { return false; }
  // Retain: after each pass, the uids of the requests that still wait for capacity (present,
  // not Provisioned, not terminal); a provisioner gives back what it obtained for any other.
  virtual void Retain(const std::set<std::string>& pending_uids, Time now) {}
  // MostPodsAdded: at most how many copies of `pod` all the capacity this provisioner could ever
  // add would hold (an upper bound), or nullopt when it cannot tell now. A podSet whose count
  // exceeds this plus what the cluster's nodes hold when empty can never fit.
  virtual std::optional<int64_t> MostPodsAdded(const placement::PodSpecView& pod) { return std::nullopt; }
  // PersistedState: what the controller keeps in the request's berth.dev/scale-up annotation
  // after each pass ("" = no annotation), so that a restarted berth-manager resumes it.
  virtual std::string PersistedState(const std::string& uid) const { return {}; }
};

// RequestDecision: what to do for one request.
struct RequestDecision {
  std::string namespace_name;
  std::string name;
  std::string uid;
  // The new conditions, set only when they differ from the observed ones.
  std::optional<std::vector<Condition>> conditions;
  std::vector<EventNote> events;
  std::optional<Duration> requeue_after;
  // Newly Provisioned: the slices to book (one Reservation each; reservation_name is empty,
  // the controller names them).
  std::vector<BookedSlice> book;
  // The booking ends (terminal, deleting, or a stale booking of a request being re-checked):
  // delete every Reservation of the request.
  bool release_booking = false;
  bool delete_request = false;  // terminal for terminal_ttl
  BackoffState backoff;         // the request's retry schedule after this pass
  RequestState state = RequestState::kPending;
  bool checked = false;  // a capacity check ran (for the check-duration metric)
};

struct PassInput {
  std::vector<ProvisioningRequestView> requests;  // any order
  // PodTemplate <namespace>/<name>, or nullptr.
  std::function<const PodTemplateView*(std::string_view ns, std::string_view name)> template_lookup;
  // A node's spec.unschedulable, or nullopt when the node does not exist.
  std::function<std::optional<bool>(std::string_view node)> node_unschedulable;
  std::unordered_map<std::string, BackoffState> backoff;  // by uid
  // Capacity was freed since the last pass (node added, pods or reservations gone): requests in
  // backoff are checked now (their backoff length is kept).
  bool capacity_freed = false;
  // Provisioners by class name; a class without one is decided as check-capacity.
  std::unordered_map<std::string, Provisioner*> provisioners;
};

// DecidePass decides every request in order. The snapshot must hold the bookings of all
// requests (their Reservations, as Available on their node); the pass removes the stale
// bookings of requests it re-checks, and leaves the pods of newly Provisioned requests assumed.
std::vector<RequestDecision> DecidePass(const PassInput& input, placement::ClusterSnapshot& snapshot,
                                        Time now, const ProvisioningOptions& options);

// RequestOrder: creationTimestamp, then uid.
bool RequestOrder(const ProvisioningRequestView& a, const ProvisioningRequestView& b);

// ParseValidUntilSeconds: parameters.ValidUntilSeconds as a non-negative whole number of
// seconds; nullopt when absent; an error message naming the field when it is not a number.
std::optional<std::expected<int64_t, std::string>> ParseValidUntilSeconds(
    const ProvisioningRequestView& request);

}  // namespace berth::reconcile::provisioning
