// controllers/scheduler/scheduler_codec.h
//
// The edge between API objects (JSON from the informer caches) and reconcile/placement's plain
// views: nodes, pods (bound or to schedule), Reservations and their pod templates. Malformed
// fields never stop the scheduler, and a quantity is never read as zero: a request, limit or
// overhead that does not parse is kept in PodSpecView::request_errors (the pod or reservation is
// unschedulable, the message naming the field) and counts as unbounded for a pod already bound;
// an allocatable that does not parse gives no capacity of that resource.
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/cache/cached_object.h"
#include "reconcile/placement/resource_policy.h"
#include "reconcile/placement/types.h"

namespace berth::controllers {

inline constexpr char kReservationIgnoredLabel[] = "scheduling.koordinator.sh/reservation-ignored";
inline constexpr char kReservationRestrictedOptionsAnnotation[] =
    "scheduling.koordinator.sh/reservation-restricted-options";
// The pod annotations naming the ProvisioningRequest a pod consumes (the second is deprecated).
inline constexpr char kConsumeProvisioningRequestAnnotation[] = "autoscaling.x-k8s.io/consume-provisioning-request";
inline constexpr char kConsumeProvisioningRequestAnnotationDeprecated[] =
    "cluster-autoscaler.kubernetes.io/consume-provisioning-request";
// The annotation berth puts on a Reservation that books capacity for a ProvisioningRequest:
// "<namespace>/<name>". Only that request's consumer pods may allocate such a Reservation.
inline constexpr char kBookingForAnnotation[] = "berth.dev/provisioning-request";

// ReadNodeView: name, labels, spec.taints, spec.unschedulable, status.allocatable, and the
// PreferAvoidPods entries younger than `prefer_avoid_ttl` (0: none; a malformed annotation is
// logged and ignored).
reconcile::placement::NodeView ReadNodeView(const rapidjson::Value& node,
                                            reconcile::Duration prefer_avoid_ttl = std::chrono::hours(1));

// ReadObjectLabels: metadata.labels of a cached object (a value that is not a string, which the
// API server never stores, is skipped).
reconcile::placement::LabelMap ReadObjectLabels(const shim::CachedObject& object);

// ReadPodView: the scheduling-relevant part of a pod (metadata, spec, effective requests, the
// reservation-allocated uid, the ProvisioningRequest it consumes, the reservation-ignored label and the reservation-affinity
// annotation, parsed or its parse error).
reconcile::placement::PodSpecView ReadPodView(const rapidjson::Value& pod);

// ReadTemplateView: a Reservation's spec.template as a pod: namespace (template's, else
// "default"), the Reservation's name and uid, template labels and spec (nodeName pins the node).
reconcile::placement::PodSpecView ReadTemplateView(const rapidjson::Value& reservation);

// ReadReservationView: the Reservation as the scheduler cache needs it, with its expiry
// deadline (ReadExpiryDeadline of reservation_codec.h).
reconcile::placement::ReservationView ReadReservationView(const rapidjson::Value& reservation);

// ReadResourcePolicyView: a ResourcePolicy (scheduling.sigs.x-k8s.io/v1alpha1). Errors:
// kInvalidArgument naming the field when the podSelector does not convert (the CRD schema makes
// that rare: e.g. In without values), an operator is unknown, priority/maxCount is not a
// non-negative int32, or strategy is not prefer/required.
Result<reconcile::placement::ResourcePolicyView> ReadResourcePolicyView(const rapidjson::Value& policy);

// PodIsTerminal: status.phase is Succeeded or Failed.
bool PodIsTerminal(const rapidjson::Value& pod);

// PodIsSchedulingGated: spec.schedulingGates is a non-empty array. kube-scheduler's SchedulingGates
// PreEnqueue plugin keeps such a pod out of the scheduling queue (no attempt, no FailedScheduling
// Event) until the last gate is removed; the apiserver wrote its PodScheduled=False/SchedulingGated
// condition at create.
bool PodIsSchedulingGated(const rapidjson::Value& pod);

}  // namespace berth::controllers
