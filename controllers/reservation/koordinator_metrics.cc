// controllers/reservation/koordinator_metrics.cc
#include "controllers/reservation/koordinator_metrics.h"

namespace berth::controllers {
namespace {

constexpr const char* kPhases[] = {"Pending", "Available", "Succeeded", "Failed"};

// Scaled: a milli-unit amount in koordinator's unit for the resource.
std::pair<double, const char*> Scaled(const std::string& resource, int64_t milli) {
  const double units = static_cast<double>(milli) / 1000.0;
  if (resource == "cpu") return {units, "core"};
  if (resource == "memory") return {units / (1024.0 * 1024.0 * 1024.0), "Gi"};
  return {units, "raw"};
}

}  // namespace

std::vector<ReservationResourceSample> ReservationResourceSamples(const reconcile::ResourceAmounts& allocatable,
                                                                  const reconcile::ResourceAmounts& allocated) {
  std::vector<ReservationResourceSample> out;
  for (const auto& [resource, milli] : allocatable) {
    auto [value, unit] = Scaled(resource, milli);
    out.push_back({"allocatable", resource, unit, value});
  }
  for (const auto& [resource, milli] : allocated) {
    auto [value, unit] = Scaled(resource, milli);
    out.push_back({"allocated", resource, unit, value});
  }
  for (const auto& [resource, total] : allocatable) {
    if (total <= 0) continue;
    auto used = allocated.find(resource);
    const double ratio = used == allocated.end() ? 0.0 : static_cast<double>(used->second) / static_cast<double>(total);
    out.push_back({"utilization", resource, "ratio", ratio});
  }
  return out;
}

Status KoordinatorReservationMetrics::Register(shim::Registry& registry) {
  auto phase = registry.AddGauge("scheduler_reservation_status_phase",
                                 "The current phase of each reservation (koord-scheduler's series).", {"name", "phase"});
  if (!phase) return std::unexpected(phase.error());
  auto resource = registry.AddGauge("scheduler_reservation_resource",
                                    "Each reservation's allocatable and allocated resources and their utilization "
                                    "(koord-scheduler's series).",
                                    {"type", "name", "resource", "unit"});
  if (!resource) return std::unexpected(resource.error());
  phase_ = *phase;
  resource_ = *resource;
  return {};
}

void KoordinatorReservationMetrics::Observe(const std::string& name, const std::string& phase,
                                            const reconcile::ResourceAmounts& allocatable,
                                            const reconcile::ResourceAmounts& allocated) {
  if (!phase_ || !resource_) return;
  const std::string current = phase.empty() ? "Pending" : phase;
  std::lock_guard lock(mu_);
  for (const char* p : kPhases) phase_->WithLabelValues({name, p}).Set(current == p ? 1 : 0);
  RemoveResourcesLocked(name);
  auto& series = resource_series_[name];
  for (const auto& s : ReservationResourceSamples(allocatable, allocated)) {
    std::vector<std::string> labels = {s.type, name, s.resource, s.unit};
    resource_->WithLabelValues(labels).Set(s.value);
    series.push_back(std::move(labels));
  }
  if (series.empty()) resource_series_.erase(name);
}

void KoordinatorReservationMetrics::Forget(const std::string& name) {
  if (!phase_ || !resource_) return;
  std::lock_guard lock(mu_);
  for (const char* p : kPhases) phase_->Remove({name, p});
  RemoveResourcesLocked(name);
}

void KoordinatorReservationMetrics::RemoveResourcesLocked(const std::string& name) {
  auto it = resource_series_.find(name);
  if (it == resource_series_.end()) return;
  for (const auto& labels : it->second) resource_->Remove(labels);
  resource_series_.erase(it);
}

}  // namespace berth::controllers
