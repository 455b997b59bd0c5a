// controllers/reservation/reservation_metrics.h
//
// berth_reservation_transitions_total{from,to,reason}: every phase transition berth writes, by
// whichever controller writes it (the reservation controller: expiry, completion, failure; the
// scheduler: placement Pending→Available|Waiting and Waiting→Available). One registration shape,
// shared, so both controllers count into the same family.
#pragma once

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/metrics/registry.h"

namespace berth::controllers {

inline Result<shim::CounterFamily*> RegisterReservationTransitions(shim::Registry& registry) {
  return registry.AddCounter("berth_reservation_transitions_total",
                             "Reservation phase transitions written by berth.",
                             {"from", "to", "reason"});
}

}  // namespace berth::controllers
