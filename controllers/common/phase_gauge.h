// controllers/common/phase_gauge.h
//
// PhaseGauge: a gauge of objects per phase (berth_reservations{phase}, berth_migrations{phase})
// kept from informer events: each add, update and delete moves one object between phases. The
// known phases start at 0 so every series exists before the first object arrives.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "clientgo-shim/metrics/registry.h"

namespace berth::controllers {

class PhaseGauge {
 public:
  // Bind sets the family and publishes 0 for each of `phases`.
  void Bind(shim::GaugeFamily* family, std::initializer_list<const char*> phases) {
    std::lock_guard lock(mu_);
    family_ = family;
    for (const char* p : phases) {
      family_->WithLabelValues({p}).Set(0);
      counts_[p] = 0;
    }
  }

  // Move counts an object leaving `from` (nullopt: it is new) for `to` (nullopt: it is gone).
  void Move(const std::optional<std::string>& from, const std::optional<std::string>& to) {
    std::lock_guard lock(mu_);
    if (from) family_->WithLabelValues({*from}).Set(static_cast<double>(--counts_[*from]));
    if (to) family_->WithLabelValues({*to}).Set(static_cast<double>(++counts_[*to]));
  }

 private:
  std::mutex mu_;
  shim::GaugeFamily* family_ = nullptr;
  std::unordered_map<std::string, int64_t> counts_;
};

}  // namespace berth::controllers
