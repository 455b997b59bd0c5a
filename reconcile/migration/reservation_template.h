// reconcile/migration/reservation_template.h
//
// The Reservation a ReservationFirst job creates for its pod (koordinator's CreateReservation):
// name = the job uid; allocateOnce; owned by the job (a controller ownerReference, so deleting the
// job lets the garbage collector delete the reservation); owners = the pod's controller (the
// replacement it creates consumes the reservation), or, for a Pending pod with PodScheduled=False,
// the pod itself as an object owner {uid, kind Pod, name, namespace}; the template = the pod's labels and spec with
// nodeName cleared, so the reservation obeys the pod's own scheduling constraints (requests,
// nodeSelector, affinity, tolerations, schedulerName); the pod's current node excluded through a
// required node-affinity matchFields term metadata.name NotIn [node], appended to every term; the
// label scheduling.koordinator.sh/reservation-order = creation in unix ms (older migrations first)
// (none when reserved ahead of admission) and app.kubernetes.io/created-by=berth-migration; ttl =
// the job's ttl.
// A job's spec.reservationOptions.template, when given, supplies metadata (name: see
// ReservationName; labels and annotations kept) and spec instead
// (its owners kept when set); allocateOnce and the node exclusion are still forced.
#pragma once

#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "reconcile/migration/types.h"

namespace berth::reconcile::migration {

inline constexpr std::string_view kCreatedByLabel = "app.kubernetes.io/created-by";
inline constexpr std::string_view kCreatedByValue = "berth-migration";
inline constexpr std::string_view kReservationOrderLabel = "scheduling.koordinator.sh/reservation-order";

struct ReservationRequest {
  std::string job_name;
  std::string job_uid;
  std::string reservation_name;
  std::string ttl_text;  // the job's effective ttl, Go duration text ("5m0s")
  Time now;
  // Created ahead of admission (reserve_ahead.h): without reservation-order, so a replacement
  // takes the reservation of any migration under way first; the admission labels it before the
  // eviction, as every job's.
  bool ahead = false;
};

// BuildMigrationReservation builds the Reservation for `pod` (the pod object as JSON).
// `user_template` is the job's spec.reservationOptions.template or null.
// Errors: kInvalidArgument when the pod has no controller ownerReference and is not an
// unschedulable Pending pod (nothing would consume the reservation), no spec, or a nodeAffinity that is not an object.
Result<rapidjson::Document> BuildMigrationReservation(const ReservationRequest& request, const rapidjson::Value& pod,
                                                      const rapidjson::Value* user_template);

}  // namespace berth::reconcile::migration
