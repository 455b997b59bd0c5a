#include "reconcile/common/resources.h"

#include <algorithm>

namespace berth::reconcile {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? kUnboundedAmount : -kUnboundedAmount;
  return std::max(sum, -kUnboundedAmount);
}

bool HasUnbounded(const ResourceAmounts& amounts) {
  return std::any_of(amounts.begin(), amounts.end(),
                     [](const auto& entry) { return entry.second == kUnboundedAmount; });
}

void AddInto(ResourceAmounts& a, const ResourceAmounts& b) {
  for (const auto& [name, value] : b) {
    int64_t& slot = a[name];
    slot = SaturatingAdd(slot, value);
  }
}

ResourceAmounts EffectiveRequests(const PodResources& pod) {
  ResourceAmounts apps;
  for (const auto& c : pod.containers) AddInto(apps, c);
  ResourceAmounts sidecars;  // sidecars started so far
  ResourceAmounts init_peak;
  for (const auto& init : pod.init_containers) {
    ResourceAmounts running = sidecars;
    AddInto(running, init.requests);
    for (const auto& [name, value] : running) init_peak[name] = std::max(init_peak[name], value);
    if (init.sidecar) AddInto(sidecars, init.requests);
  }
  AddInto(apps, sidecars);
  ResourceAmounts out = apps;
  for (const auto& [name, value] : init_peak) out[name] = std::max(out[name], value);
  AddInto(out, pod.overhead);
  return out;
}

ResourceAmounts MaskTo(const ResourceAmounts& amounts, const ResourceAmounts& names) {
  ResourceAmounts out;
  for (const auto& [name, value] : amounts) {
    if (names.count(name)) out[name] = value;
  }
  return out;
}

bool EqualAmounts(const ResourceAmounts& a, const ResourceAmounts& b) {
  auto get = [](const ResourceAmounts& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
  };
  for (const auto& [k, v] : a) {
    if (get(b, k) != v) return false;
  }
  for (const auto& [k, v] : b) {
    if (get(a, k) != v) return false;
  }
  return true;
}

}  // namespace berth::reconcile
