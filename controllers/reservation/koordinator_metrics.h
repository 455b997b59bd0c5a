// controllers/reservation/koordinator_metrics.h
//
// koord-scheduler's per-reservation series (pkg/scheduler/metrics), so dashboards and alerts built
// for koordinator read berth the same way:
//   scheduler_reservation_status_phase{name, phase}: 1 for the current phase, 0 for the others of
//     Pending, Available, Succeeded, Failed (an empty phase counts as Pending; Waiting, which
//     koordinator never sets, shows all four at 0);
//   scheduler_reservation_resource{type, name, resource, unit}: type allocatable / allocated per
//     resource of status (unit core for cpu, Gi for memory, raw otherwise), and utilization =
//     allocated / allocatable (unit ratio) where allocatable > 0.
// Series of a deleted reservation are removed at once (koordinator: at its next 60 s resync).
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/metrics/registry.h"
#include "reconcile/common/resources.h"

namespace berth::controllers {

// ReservationResourceSample: one scheduler_reservation_resource series.
struct ReservationResourceSample {
  std::string type;      // allocatable, allocated, utilization
  std::string resource;  // cpu, memory, ...
  std::string unit;      // core, Gi, raw, ratio
  double value = 0;
  bool operator==(const ReservationResourceSample&) const = default;
};

// ReservationResourceSamples: the series for a reservation's status.allocatable and
// status.allocated (milli-units), ordered by type then resource.
std::vector<ReservationResourceSample> ReservationResourceSamples(const reconcile::ResourceAmounts& allocatable,
                                                                  const reconcile::ResourceAmounts& allocated);

class KoordinatorReservationMetrics {
 public:
  // Register adds both families to `registry` (which must outlive this object).
  Status Register(shim::Registry& registry);

  // Observe publishes the reservation's current phase and resources (replacing what it had).
  void Observe(const std::string& name, const std::string& phase, const reconcile::ResourceAmounts& allocatable,
               const reconcile::ResourceAmounts& allocated);
  // Forget removes every series of the reservation.
  void Forget(const std::string& name);

 private:
  void RemoveResourcesLocked(const std::string& name);

  shim::GaugeFamily* phase_ = nullptr;
  shim::GaugeFamily* resource_ = nullptr;
  std::mutex mu_;
  std::unordered_map<std::string, std::vector<std::vector<std::string>>> resource_series_;  // name → label values
};

}  // namespace berth::controllers
