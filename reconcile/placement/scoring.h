// reconcile/placement/scoring.h
//
// kube-scheduler's NodeResourcesFit scoring strategies over cpu and memory (weight 1 each,
// 0-100 per resource, integer arithmetic like upstream), and the non-zero request defaults it
// scores pods without requests with.
#pragma once

#include <cstdint>
#include <string_view>

namespace berth::reconcile::placement {

enum class ScoringStrategy { kLeastAllocated, kMostAllocated };

// ParseScoringStrategy: "MostAllocated" → kMostAllocated; anything else → kLeastAllocated.
ScoringStrategy ParseScoringStrategy(std::string_view text);

inline constexpr int64_t kMaxNodeScore = 100;
// Scoring counts a pod without a cpu/memory request as 100m / 200Mi (upstream's
// DefaultMilliCPURequest / DefaultMemoryRequest); memory in milli-bytes here.
inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequestMilli = int64_t{200} * 1024 * 1024 * 1000;

// LeastRequestedScore: (capacity - requested) * 100 / capacity; 0 when capacity is 0 or
// requested exceeds it.
int64_t LeastRequestedScore(int64_t requested, int64_t capacity);
// MostRequestedScore: requested * 100 / capacity, requested capped at capacity; 0 when capacity
// is 0.
int64_t MostRequestedScore(int64_t requested, int64_t capacity);
// NodeScore: the strategy over cpu and memory, averaged with weight 1 each (integer division).
int64_t NodeScore(ScoringStrategy strategy, int64_t cpu_requested, int64_t cpu_capacity,
                  int64_t memory_requested, int64_t memory_capacity);

}  // namespace berth::reconcile::placement
