// reconcile/provisioning/types.h
//
// A ProvisioningRequest (autoscaling.x-k8s.io/v1) and its PodTemplates as the check-capacity
// logic sees them: plain structs the controller fills from its caches (no JSON, no I/O). Field
// names, condition types, reasons and messages are upstream's (cluster-autoscaler's
// provisioningrequest/conditions), so Kueue and kubectl users read what they expect.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/common/resources.h"
#include "reconcile/placement/types.h"
#include "reconcile/reservation/types.h"

namespace berth::reconcile::provisioning {

using Time = reconcile::Time;
using Duration = reconcile::Duration;
using EventNote = reconcile::EventNote;

// Classes (upstream constants).
inline constexpr std::string_view kClassCheckCapacity = "check-capacity.autoscaling.x-k8s.io";
inline constexpr std::string_view kClassBestEffortAtomicScaleUp =
    "best-effort-atomic-scale-up.autoscaling.x-k8s.io";

// Pod annotations naming the request a pod consumes (the second is deprecated but honoured).
inline constexpr std::string_view kConsumeAnnotation = "autoscaling.x-k8s.io/consume-provisioning-request";
inline constexpr std::string_view kConsumeAnnotationDeprecated =
    "cluster-autoscaler.kubernetes.io/consume-provisioning-request";
inline constexpr std::string_view kClassNameAnnotation = "autoscaling.x-k8s.io/provisioning-class-name";

// The request annotation holding a scale-up class's in-flight state across restarts (berth's).
inline constexpr std::string_view kScaleUpStateAnnotation = "berth.dev/scale-up";

// Parameters berth reads.
inline constexpr std::string_view kParamNoRetry = "noRetry";
inline constexpr std::string_view kParamValidUntilSeconds = "ValidUntilSeconds";

// Condition types.
inline constexpr std::string_view kConditionAccepted = "Accepted";
inline constexpr std::string_view kConditionProvisioned = "Provisioned";
inline constexpr std::string_view kConditionFailed = "Failed";
inline constexpr std::string_view kConditionBookingExpired = "BookingExpired";
inline constexpr std::string_view kConditionCapacityRevoked = "CapacityRevoked";

// Reasons and messages, exactly as upstream writes them.
inline constexpr std::string_view kReasonAccepted = "Accepted";
inline constexpr std::string_view kMessageAccepted = "ProvisioningRequest is accepted by ClusterAutoscaler";
inline constexpr std::string_view kReasonCapacityIsFound = "CapacityIsFound";
inline constexpr std::string_view kMessageCapacityIsFound = "Capacity is found in the cluster";
inline constexpr std::string_view kReasonCapacityIsProvisioned = "CapacityIsProvisioned";
inline constexpr std::string_view kReasonCapacityIsNotFound = "CapacityIsNotFound";
inline constexpr std::string_view kMessageCapacityIsNotFound =
    "Capacity is not found, CA will try to find it later.";
inline constexpr std::string_view kMessageCapacityIsNotFoundNoRetry = "CA could not find requested capacity";
inline constexpr std::string_view kReasonFailedToCreatePods = "FailedToCreatePods";
inline constexpr std::string_view kReasonFailedToBookCapacity = "FailedToBookCapacity";
inline constexpr std::string_view kReasonCapacityReservationTimeExpired = "CapacityReservationTimeExpired";
inline constexpr std::string_view kMessageCapacityReservationTimeExpired = "Capacity reservation time is expired";
inline constexpr std::string_view kReasonCapacityBookingConsumed = "CapacityBookingConsumed";
inline constexpr std::string_view kMessageCapacityBookingConsumed = "Capacity booking consumed: all pods scheduled";
inline constexpr std::string_view kReasonExpired = "Expired";
inline constexpr std::string_view kMessageExpired = "ProvisioningRequest is expired";
// berth's own reasons (upstream has none for these cases).
inline constexpr std::string_view kReasonInvalidParameter = "InvalidParameter";
inline constexpr std::string_view kReasonInvalidSpec = "InvalidSpec";
inline constexpr std::string_view kReasonNodeDeleted = "NodeDeleted";
inline constexpr std::string_view kReasonNodeUnschedulable = "NodeUnschedulable";

// Condition: metav1.Condition.
struct Condition {
  std::string type;
  std::string status;  // "True" / "False" / "Unknown"
  std::string reason;
  std::string message;
  std::optional<Time> last_transition_time;
  int64_t observed_generation = 0;
  bool operator==(const Condition&) const = default;
};

// PodSetRef: spec.podSets[i].
struct PodSetRef {
  std::string template_name;  // podTemplateRef.name
  int64_t count = 0;
};

// BookedSlice: one Reservation holding part of a request's booking (one per booked node).
struct BookedSlice {
  std::string reservation_name;
  std::string reservation_uid;  // "" while being created
  std::string node_name;
  ResourceAmounts resources;
  int64_t pods = 0;  // how many of the request's pods the slice was sized for
  bool operator==(const BookedSlice&) const = default;
};

// ProvisioningRequestView: the request plus what the controller knows about it.
struct ProvisioningRequestView {
  std::string namespace_name;
  std::string name;
  std::string uid;
  int64_t generation = 0;
  Time creation_time;
  bool deleting = false;  // metadata.deletionTimestamp set
  std::string class_name;
  std::map<std::string, std::string, std::less<>> parameters;
  std::vector<PodSetRef> pod_sets;
  // Problems the codec found reading spec (a field of the wrong type, a count that is not a
  // positive integer), each naming the field. Any of them fails the request.
  std::vector<std::string> spec_errors;
  std::vector<Condition> conditions;
  // World: the request's booking Reservations (in the cache or being created), and how many of
  // its consumer pods are bound to a node and not finished
  // (Succeeded/Failed pods are not in Cluster Autoscaler's snapshot either).
  std::vector<BookedSlice> booking;
  int64_t bound_consumers = 0;
  // metadata.annotations["berth.dev/scale-up"]: a scale-up class's persisted in-flight state
  // ("" when absent).
  std::string scale_up_state;
};

// ContainerResources: requests and limits of one container of a PodTemplate.
struct ContainerResources {
  ResourceAmounts requests;
  ResourceAmounts limits;
  bool sidecar = false;  // init container with restartPolicy Always
};

// PodTemplateView: a v1/PodTemplate: the scheduling fields of template.spec in `pod` (requests
// there are ignored: they are computed from the containers), and the containers' resources.
struct PodTemplateView {
  std::string namespace_name;
  std::string name;
  placement::PodSpecView pod;
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> init_containers;
  ResourceAmounts overhead;
  // Problems the codec found (e.g. a quantity that does not parse), each naming the field.
  std::vector<std::string> errors;
};

// BackoffState: the retry schedule after CapacityIsNotFound (kept in memory per uid, as
// upstream's LRU does; a restart retries at once).
struct BackoffState {
  std::optional<Time> next_attempt;
  Duration backoff{0};  // the wait after the next failure; 0 = the initial backoff
  bool operator==(const BackoffState&) const = default;
};

// ProvisioningOptions: the timers (upstream defaults; each is a berth-manager flag).
struct ProvisioningOptions {
  Duration booking_time = std::chrono::minutes(10);       // BookingExpired after Provisioned
  Duration pending_expiry = std::chrono::hours(24 * 7);   // Failed/Expired when not provisioned
  Duration terminal_ttl = std::chrono::hours(24 * 7);     // deletion after a terminal state
  Duration template_grace = std::chrono::seconds(15);     // wait for a missing PodTemplate
  Duration initial_backoff = std::chrono::minutes(1);
  Duration max_backoff = std::chrono::minutes(10);
};

// RequestState: for metrics (berth_provisioningrequests{class,state}).
enum class RequestState { kPending, kAccepted, kProvisioned, kFailed, kBookingExpired, kCapacityRevoked };
std::string_view RequestStateName(RequestState state);

}  // namespace berth::reconcile::provisioning
