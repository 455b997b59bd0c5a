// fuzz/reservation_affinity_fuzz.cc — ParseReservationAffinity (reconcile/placement), the pod
// annotation scheduling.koordinator.sh/reservation-affinity, then matching a fixed Reservation.
// Property: no crash; a rejection carries a message.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "reconcile/placement/reservation_affinity.h"

namespace placement = berth::reconcile::placement;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto affinity = placement::ParseReservationAffinity(berth::fuzz::AsText(data, size));
  if (!affinity) {
    FUZZ_CHECK(!affinity.error().message.empty());
    return 0;
  }
  placement::ReservationView reservation;
  reservation.name = "r1";
  reservation.labels = {{"app", "web"}, {"order", "10"}};
  const placement::LabelMap node_labels = {{"topology.kubernetes.io/zone", "a"}};
  (void)placement::MatchesReservationAffinity(*affinity, reservation, node_labels);
  return 0;
}
