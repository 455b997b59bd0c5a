// reconcile/placement/plugin_scores.cc — see plugin_scores.h.
#include "reconcile/placement/plugin_scores.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reconcile/placement/filters.h"
#include "reconcile/placement/scoring.h"

namespace berth::reconcile::placement {

int64_t BalancedAllocationScore(int64_t cpu_requested, int64_t cpu_allocatable, int64_t memory_requested,
                                int64_t memory_allocatable) {
  double fractions[2];
  int n = 0;
  auto add = [&](int64_t requested, int64_t allocatable) {
    if (allocatable == 0) return;
    double f = static_cast<double>(requested) / static_cast<double>(allocatable);
    fractions[n++] = std::min(f, 1.0);
  };
  add(cpu_requested, cpu_allocatable);
  add(memory_requested, memory_allocatable);
  const double std_dev = n == 2 ? std::abs((fractions[0] - fractions[1]) / 2) : 0.0;
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

int64_t NodeAffinityRawScore(const std::vector<PreferredSchedulingTerm>& terms, std::string_view node_name,
                             const LabelMap& node_labels) {
  int64_t score = 0;
  for (const PreferredSchedulingTerm& t : terms) {
    // Upstream (NewPreferredSchedulingTerms) skips terms of weight 0 and empty preferences.
    if (t.weight == 0 || (t.preference.match_expressions.empty() && t.preference.match_fields.empty())) continue;
    if (MatchesNodeSelectorTerms({t.preference}, node_name, node_labels)) score += t.weight;
  }
  return score;
}

int64_t IntolerablePreferNoScheduleTaints(const std::vector<Toleration>& tolerations,
                                          const std::vector<Taint>& taints) {
  int64_t count = 0;
  for (const Taint& taint : taints) {
    if (taint.effect != kEffectPreferNoSchedule) continue;
    bool tolerated = false;
    for (const Toleration& t : tolerations) {
      if (!t.effect.empty() && t.effect != kEffectPreferNoSchedule) continue;
      if (ToleratesTaint(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) ++count;
  }
  return count;
}

void DefaultNormalizeScore(std::vector<int64_t>& scores, bool reverse) {
  int64_t max = 0;
  for (int64_t s : scores) max = std::max(max, s);
  if (max == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), kMaxNodeScore);
    return;
  }
  for (int64_t& s : scores) {
    s = kMaxNodeScore * s / max;
    if (reverse) s = kMaxNodeScore - s;
  }
}

void InterPodAffinityNormalize(std::vector<int64_t>& scores) {
  if (scores.empty()) return;
  auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const int64_t min = *lo;
  const int64_t diff = *hi - min;
  for (int64_t& s : scores) {
    s = diff > 0 ? static_cast<int64_t>(static_cast<double>(kMaxNodeScore) *
                                        (static_cast<double>(s - min) / static_cast<double>(diff)))
                 : 0;
  }
}

void PodTopologySpreadNormalize(std::vector<int64_t>& scores, const std::vector<char>& ignored) {
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (ignored[i]) continue;
    min = std::min(min, scores[i]);
    max = std::max(max, scores[i]);
  }
  for (size_t i = 0; i < scores.size(); ++i) {
    if (ignored[i]) {
      scores[i] = 0;
    } else if (max == 0) {
      scores[i] = kMaxNodeScore;
    } else {
      scores[i] = kMaxNodeScore * (max + min - scores[i]) / max;
    }
  }
}

std::string NormalizedImageName(std::string_view image) {
  std::string out(image);
  const size_t colon = image.rfind(':');
  const size_t slash = image.rfind('/');
  // strings.LastIndex: -1 when absent, so "no colon" is <= any slash position.
  const auto last = [](size_t pos) { return pos == std::string_view::npos ? -1 : static_cast<int64_t>(pos); };
  if (last(colon) <= last(slash)) out += ":latest";
  return out;
}

int64_t ImageLocalityScore(const std::vector<std::string>& pod_images, const NodeView& node,
                           const std::function<int(std::string_view)>& nodes_with_image, int total_nodes) {
  if (pod_images.empty() || total_nodes <= 0) return 0;
  const int64_t max = kImageLocalityMaxContainerBytes * static_cast<int64_t>(pod_images.size());
  int64_t sum = 0;
  for (const std::string& image : pod_images) {
    auto it = node.image_sizes.find(image);
    if (it == node.image_sizes.end()) continue;
    const double spread = static_cast<double>(nodes_with_image(image)) / static_cast<double>(total_nodes);
    const double scaled = static_cast<double>(it->second) * spread;
    // Truncated per image as upstream's int64(); a size beyond the maximum saturates instead of
    // overflowing (sizeBytes near int64's limit).
    const int64_t term = scaled >= static_cast<double>(max) ? max : static_cast<int64_t>(scaled);
    sum = std::min(max, sum + term);
  }
  sum = std::clamp(sum, kImageLocalityMinBytes, max);
  return kMaxNodeScore * (sum - kImageLocalityMinBytes) / (max - kImageLocalityMinBytes);
}

}  // namespace berth::reconcile::placement
