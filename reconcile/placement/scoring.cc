// reconcile/placement/scoring.cc
#include "reconcile/placement/scoring.h"

namespace berth::reconcile::placement {

ScoringStrategy ParseScoringStrategy(std::string_view text) {
  return text == "MostAllocated" ? ScoringStrategy::kMostAllocated
                                 : ScoringStrategy::kLeastAllocated;
}

// The products are taken in 128 bits: capacities reach kUnboundedAmount (a node advertising
// "1e30"), where × kMaxNodeScore would wrap.
int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity <= 0 || requested > capacity) return 0;
  return static_cast<int64_t>((__int128{capacity} - requested) * kMaxNodeScore / capacity);
}

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity <= 0) return 0;
  // Pods without requests are scored with defaults, so requested may exceed capacity.
  if (requested > capacity) requested = capacity;
  if (requested < 0) requested = 0;
  return static_cast<int64_t>(__int128{requested} * kMaxNodeScore / capacity);
}

int64_t NodeScore(ScoringStrategy strategy, int64_t cpu_requested, int64_t cpu_capacity,
                  int64_t memory_requested, int64_t memory_capacity) {
  if (strategy == ScoringStrategy::kMostAllocated) {
    return (MostRequestedScore(cpu_requested, cpu_capacity) +
            MostRequestedScore(memory_requested, memory_capacity)) / 2;
  }
  return (LeastRequestedScore(cpu_requested, cpu_capacity) +
          LeastRequestedScore(memory_requested, memory_capacity)) / 2;
}

}  // namespace berth::reconcile::placement
