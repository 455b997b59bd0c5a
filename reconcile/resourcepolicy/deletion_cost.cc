#include "reconcile/resourcepolicy/deletion_cost.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace berth::reconcile::resourcepolicy {
namespace {

constexpr int64_t kInt32Span = int64_t{1} << 32;

bool Older(const CostPod& a, const CostPod& b) { return std::tie(a.created, a.name) < std::tie(b.created, b.name); }

}  // namespace

std::vector<int32_t> ComputeDeletionCosts(const std::vector<CostUnit>& units, const std::vector<CostPod>& pods,
                                          int64_t band_width) {
  std::vector<int32_t> levels;
  for (const auto& u : units) levels.push_back(u.priority);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  const int64_t bands = static_cast<int64_t>(levels.size()) + 1;
  int64_t width = std::min(band_width, kInt32Span / bands);
  width = std::max<int64_t>(2, width - width % 2);
  const int64_t half = width / 2;
  // Band 0 ends at -1 when every band fits above it; otherwise the bands start at INT32_MIN.
  const int64_t base = (bands - 1) * width <= int64_t{INT32_MAX} + 1 ? -width : int64_t{INT32_MIN};

  auto band_of = [&](const CostPod& p) -> int64_t {
    if (!p.unit || *p.unit >= units.size()) return 0;
    int32_t priority = units[*p.unit].priority;
    return 1 + (std::lower_bound(levels.begin(), levels.end(), priority) - levels.begin());
  };

  // Beyond maxCount: per (unit, group), every pod but the oldest maxCount.
  std::vector<bool> excess(pods.size(), false);
  std::map<std::pair<size_t, std::string_view>, std::vector<size_t>> by_unit_group;
  for (size_t i = 0; i < pods.size(); ++i) {
    if (pods[i].unit && *pods[i].unit < units.size()) by_unit_group[{*pods[i].unit, pods[i].group}].push_back(i);
  }
  for (auto& [key, members] : by_unit_group) {
    const auto& max_count = units[key.first].max_count;
    if (!max_count) continue;
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) { return Older(pods[a], pods[b]); });
    for (size_t r = static_cast<size_t>(std::max<int32_t>(0, *max_count)); r < members.size(); ++r) excess[members[r]] = true;
  }

  // Rank from the oldest inside each (band, half).
  std::map<std::pair<int64_t, bool>, std::vector<size_t>> by_half;
  for (size_t i = 0; i < pods.size(); ++i) by_half[{band_of(pods[i]), excess[i]}].push_back(i);
  std::vector<int32_t> costs(pods.size(), 0);
  for (auto& [key, members] : by_half) {
    auto [band, beyond] = key;
    std::sort(members.begin(), members.end(), [&](size_t a, size_t b) { return Older(pods[a], pods[b]); });
    const int64_t lo = base + band * width;
    const int64_t top = beyond ? lo + half - 1 : lo + width - 1;
    const int64_t floor = band == 0 || beyond ? lo : lo + half;
    for (size_t r = 0; r < members.size(); ++r) {
      costs[members[r]] = static_cast<int32_t>(std::max(floor, top - static_cast<int64_t>(r)));
    }
  }
  return costs;
}

}  // namespace berth::reconcile::resourcepolicy
