// controllers/scheduler/reservation_change.h
//
// What a Reservation update means for the scheduler, read from the two cached (packed) objects
// field by field: every owner-status write is an update, so this runs once per bind and must not
// decode whole objects. Only the returned flags decide whether the handler converts the new
// object to JSON for the cache at all.
#pragma once

#include "clientgo-shim/cache/cached_object.h"

namespace berth::controllers {

// ReservationChange: which parts of a Reservation the scheduler reads changed.
struct ReservationChange {
  // Capacity or eligibility: phase, status.nodeName, metadata.generation (spec), labels
  // (affinity, reservation-order), status.allocatable (by amount), or currentOwners becoming
  // empty/non-empty. Such a change wakes parked pods and reservations.
  bool capacity = false;
  // The restricted-options or pre-allocated-pods annotation: the cache must re-read the object,
  // but parked work stays parked.
  bool annotations = false;

  bool any() const { return capacity || annotations; }
};

// DiffReservation compares the fields above. A null `before` counts as a capacity change.
ReservationChange DiffReservation(const shim::CachedObject* before, const shim::CachedObject& after);

}  // namespace berth::controllers
