// reconcile/resourcepolicy/deletion_cost.h
//
// The pod-deletion-cost a ResourcePolicy gives its pods, so that a ReplicaSet scale-down (lower
// cost deleted first) removes them in reverse priority: pods on no unit first, then the units
// from the lowest priority to the highest; inside a unit the pods beyond maxCount first, then the
// newest.
//
// Formula. Units of equal priority share a band; bands are disjoint int32 ranges of width W
// (10,000,000, smaller only when there are more than 428 priority levels: W = 2^32 / bands):
//   band 0 (pods on no unit, or not bound yet):  [-W, -1]
//   band 1 + L (the L-th lowest priority level): [L·W, (L+1)·W − 1]
// (with too many levels for that, the bands start at -2^31 instead of -W). Inside a band of low
// end `lo` and half H = W/2, with pods ranked from the oldest (creationTimestamp, then name):
//   within maxCount:  lo + W − 1 − rank   (never below lo + H)
//   beyond maxCount:  lo + H − 1 − rank   (never below lo)
// Band 0 uses its whole width for one ranking. Ranking from the oldest keeps the costs of older
// pods when new pods arrive, so a scale-up writes only the new pods. Beyond H pods in one half the
// lowest value repeats: order inside that half degrades, order between halves and bands never.
// Which pods are beyond maxCount: per unit and matchLabelKeys group, all but the oldest maxCount.
// Pure; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/api/timestamp.h"

namespace berth::reconcile::resourcepolicy {

inline constexpr int64_t kDefaultBandWidth = 10'000'000;

struct CostUnit {
  int32_t priority = 0;
  std::optional<int32_t> max_count;  // nullopt: unlimited
};

struct CostPod {
  std::string name;
  std::optional<size_t> unit;  // index into the units; nullopt: on no unit (or not bound)
  std::string group;           // the matchLabelKeys group key
  shim::TimePoint created;
};

// ComputeDeletionCosts returns one cost per pod, in the order of `pods`. band_width is for tests
// (a small width shows the clamping); it is lowered further when the bands would not fit int32.
std::vector<int32_t> ComputeDeletionCosts(const std::vector<CostUnit>& units, const std::vector<CostPod>& pods,
                                          int64_t band_width = kDefaultBandWidth);

}  // namespace berth::reconcile::resourcepolicy
