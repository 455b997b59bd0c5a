// reconcile/placement/plugin_scores.h
//
// kube-scheduler's default score plugins besides NodeResourcesFit (scoring.h), as pure functions
// with upstream's arithmetic, and the default plugin weights the ClusterSnapshot combines them
// with (score = Σ plugin score (0..100, after its NormalizeScore) × weight). ImageLocality reads the
// node's status.images.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

// kube-scheduler's default weights (pkg/scheduler/apis/config/v1 default plugins).
inline constexpr int64_t kWeightNodeResourcesFit = 1;
inline constexpr int64_t kWeightBalancedAllocation = 1;
inline constexpr int64_t kWeightInterPodAffinity = 2;
inline constexpr int64_t kWeightNodeAffinity = 2;
inline constexpr int64_t kWeightPodTopologySpread = 2;
inline constexpr int64_t kWeightTaintToleration = 3;
inline constexpr int64_t kWeightImageLocality = 1;

// ImageLocality's thresholds: an image sum below 23 MiB scores 0, and 1000 MiB per container
// scores 100.
inline constexpr int64_t kImageLocalityMinBytes = int64_t{23} * 1024 * 1024;
inline constexpr int64_t kImageLocalityMaxContainerBytes = int64_t{1000} * 1024 * 1024;

// NormalizedImageName: ImageLocality's normalizedImageName (":latest" added when the name has no
// tag after its last "/").
std::string NormalizedImageName(std::string_view image);

// ImageLocalityScore: upstream's ImageLocality Score (no NormalizeScore): for each of the pod's
// images present on the node, its size scaled by the share of nodes holding it
// (`nodes_with_image(name)` / `total_nodes`), summed, clamped to [23 MiB, 1000 MiB × containers]
// and mapped linearly to 0..100.
int64_t ImageLocalityScore(const std::vector<std::string>& pod_images, const NodeView& node,
                           const std::function<int(std::string_view)>& nodes_with_image, int total_nodes);

// BalancedAllocationScore: NodeResourcesBalancedAllocation over cpu and memory (requested =
// what the node's pods and the incoming pod actually request, not the non-zero defaults): each
// fraction requested/allocatable capped at 1 (a resource with allocatable 0 is left out), then
// (1 - std) × 100 where std of two fractions is |f1 - f2| / 2.
int64_t BalancedAllocationScore(int64_t cpu_requested, int64_t cpu_allocatable, int64_t memory_requested,
                                int64_t memory_allocatable);

// NodeAffinityRawScore: the sum of the weights of the preferred terms the node matches
// (before DefaultNormalizeScore).
int64_t NodeAffinityRawScore(const std::vector<PreferredSchedulingTerm>& terms, std::string_view node_name,
                             const LabelMap& node_labels);

// IntolerablePreferNoScheduleTaints: TaintToleration's raw score, the number of the node's
// PreferNoSchedule taints that none of the pod's tolerations with effect PreferNoSchedule or ""
// tolerates (reverse-normalised: fewer is better).
int64_t IntolerablePreferNoScheduleTaints(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints);

// DefaultNormalizeScore: upstream's helper.DefaultNormalizeScore(100, reverse, scores): each
// score × 100 / max; with reverse, 100 - that. When every score is 0: unchanged, or all 100 with
// reverse.
void DefaultNormalizeScore(std::vector<int64_t>& scores, bool reverse);

// InterPodAffinityNormalize: (score - min) × 100 / (max - min) as float truncated; all 0 when
// max == min.
void InterPodAffinityNormalize(std::vector<int64_t>& scores);

// PodTopologySpreadNormalize: nodes marked ignored get 0; with max the highest other score,
// 100 for all when max == 0, else 100 × (max + min - s) / max.
void PodTopologySpreadNormalize(std::vector<int64_t>& scores, const std::vector<char>& ignored);

}  // namespace berth::reconcile::placement
