// controllers/scheduler/scheduler_codec.h
//
// The edge between API objects (JSON from the informer caches) and reconcile/placement's plain
// views: nodes, pods (bound or to schedule), Reservations and their pod templates. Malformed
// fields are skipped (a bad quantity counts as absent), never an error: the scheduler must keep
// going on whatever the API server holds.
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "reconcile/placement/resource_policy.h"
#include "reconcile/placement/types.h"

namespace berth::controllers {

inline constexpr char kReservationIgnoredLabel[] = "scheduling.koordinator.sh/reservation-ignored";
inline constexpr char kReservationRestrictedOptionsAnnotation[] =
    "scheduling.koordinator.sh/reservation-restricted-options";

// ReadNodeView: name, labels, spec.taints, spec.unschedulable, status.allocatable.
reconcile::placement::NodeView ReadNodeView(const rapidjson::Value& node);

// ReadPodView: the scheduling-relevant part of a pod (metadata, spec, effective requests, the
// reservation-allocated uid, the reservation-ignored label and the reservation-affinity
// annotation, parsed or its parse error).
reconcile::placement::PodSpecView ReadPodView(const rapidjson::Value& pod);

// ReadTemplateView: a Reservation's spec.template as a pod: namespace (template's, else
// "default"), the Reservation's name and uid, template labels and spec (nodeName pins the node).
reconcile::placement::PodSpecView ReadTemplateView(const rapidjson::Value& reservation);

// ReadReservationView: the Reservation as the scheduler cache needs it.
reconcile::placement::ReservationView ReadReservationView(const rapidjson::Value& reservation);

// ReadResourcePolicyView: a ResourcePolicy (scheduling.sigs.x-k8s.io/v1alpha1). Errors:
// kInvalidArgument naming the field when the podSelector does not convert (the CRD schema makes
// that rare: e.g. In without values), an operator is unknown, priority/maxCount is not a
// non-negative int32, or strategy is not prefer/required.
Result<reconcile::placement::ResourcePolicyView> ReadResourcePolicyView(const rapidjson::Value& policy);

// PodIsTerminal: status.phase is Succeeded or Failed.
bool PodIsTerminal(const rapidjson::Value& pod);

}  // namespace berth::controllers
