// controllers/reservation/reservation_codec.h
//
// The edge between API objects and reconcile/'s plain structs for Reservations: reading a
// Reservation (spec problems become spec_errors, never failures), reading the pods that consume
// it, and writing a ReservationStatus back as the status JSON koordinator clients expect
// (quantities in canonical form, conditions with RFC3339 times).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/cache/cached_object.h"
#include "reconcile/reservation/types.h"

namespace berth::controllers {

// The pod annotation that names the reservation a pod consumes: JSON {"name":…,"uid":…}.
inline constexpr char kReservationAllocatedAnnotation[] = "scheduling.koordinator.sh/reservation-allocated";

// ReadReservation fills everything but `consumers` and `node_exists`.
reconcile::ReservationSnapshot ReadReservation(const rapidjson::Value& object);
// ReadReservation from the informer cache: the same snapshot, decoding only the fields it reads.
reconcile::ReservationSnapshot ReadReservation(const shim::CachedObject& object);

// ReadExpiryDeadline: reconcile::ExpiryDeadline (expires wins over creation + ttl) of a
// Reservation object, reading only metadata.creationTimestamp, spec.ttl and spec.expires the way
// ReadReservation does; nullopt when it never expires or those fields do not parse.
std::optional<reconcile::Time> ReadExpiryDeadline(const rapidjson::Value& object);

// AllocatedReservation reads the annotation: {name, uid}; nullopt when absent or malformed.
struct AllocatedRef {
  std::string name;
  std::string uid;
};
std::optional<AllocatedRef> AllocatedReservation(const rapidjson::Value& pod);

// ReadConsumerPod: namespace/name/uid, terminal/deleting, and effective requests.
reconcile::ConsumerPod ReadConsumerPod(const rapidjson::Value& pod);
// ReadConsumerPod from the informer cache: the same result, decoding only the fields it reads
// (the lifecycle controller reads every consumer of a reservation on each reconcile).
reconcile::ConsumerPod ReadConsumerPod(const shim::CachedObject& pod);

// kReservationResizeAllocatableAnnotation: JSON {"resources":{...}} on a Reservation; when it
// names resources they replace the template's requests as what the reservation reserves (the
// placement fit and status.allocatable), as koordinator's Bind does.
inline constexpr char kReservationResizeAllocatableAnnotation[] =
    "scheduling.koordinator.sh/reservation-resize-allocatable";

// ReadResizeAllocatable: the annotation's resources, or nullopt when it is absent, names none or
// is malformed; a malformed one (invalid JSON, resources not an object, a quantity that does not
// parse or is negative) is reported in `errors`, naming the annotation.
std::optional<reconcile::ResourceAmounts> ReadResizeAllocatable(const rapidjson::Value& reservation,
                                                                std::vector<std::string>* errors = nullptr);

// PodResourcesOf reads container requests and overhead (quantities → milli-units). A request
// that does not parse counts as reconcile::kUnboundedAmount (never 0: a bound pod with one makes
// its node full, not empty). When `errors` is given, every request, limit or overhead entry that
// does not parse or is negative is reported there with its field path under `path` (the pod
// spec's own path, e.g. "spec" or "spec.template.spec"):
// `spec.containers[0].resources.requests.cpu: invalid quantity "abc"`.
reconcile::PodResources PodResourcesOf(const rapidjson::Value& pod_spec,
                                       std::vector<std::string>* errors = nullptr,
                                       std::string_view path = "spec");

// ReadAmounts converts a ResourceList object of capacities (node or reservation allocatable) to
// milli-units. A value at or beyond the int64 milli bound reads as kUnboundedAmount; one that
// does not parse is left out (no capacity: nothing that needs it fits) and reported in `errors`
// as `<path>.<name>: invalid quantity "<text>"` when `errors` is given.
reconcile::ResourceAmounts ReadAmounts(const rapidjson::Value* list,
                                       std::vector<std::string>* errors = nullptr,
                                       std::string_view path = {});
// WriteAmounts renders milli-units as a ResourceList (canonical quantity strings).
rapidjson::Value WriteAmounts(const reconcile::ResourceAmounts& amounts,
                              rapidjson::Document::AllocatorType& alloc);

// StatusJson renders the status object (for a status-subresource update).
rapidjson::Value StatusJson(const reconcile::ReservationStatus& status,
                            rapidjson::Document::AllocatorType& alloc);

// StatusUpdateBody is the body of a status-subresource PUT for `cached`: apiVersion, kind,
// metadata name/uid/resourceVersion (the preconditions) and `status`. The apiserver takes
// everything else from the stored object (spec from the old object, ResetObjectMetaForStatus),
// so the rest of the object is not sent.
rapidjson::Document StatusUpdateBody(const shim::CachedObject& cached, const reconcile::ReservationStatus& status);

}  // namespace berth::controllers
