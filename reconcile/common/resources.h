// reconcile/common/resources.h
//
// Resource amounts as reconcile/ sees them: exact integers in milli-units per resource name
// ("cpu": 500 is 500m, "memory": 1073741824000 is 1Gi). The controllers convert to and from
// resource.Quantity at the edge, so the decision logic stays free of parsing and I/O. A quantity
// at or beyond the int64 milli bound (cpu "1e30") is kUnboundedAmount, never 0.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace berth::reconcile {

using ResourceAmounts = std::map<std::string, int64_t>;

// kUnboundedAmount: "larger than any node". No request of it fits anywhere, and sums that reach
// it stay there (SaturatingAdd).
inline constexpr int64_t kUnboundedAmount = INT64_MAX;

// SaturatingAdd adds without wrapping: clamps to [-kUnboundedAmount, kUnboundedAmount].
int64_t SaturatingAdd(int64_t a, int64_t b);
// HasUnbounded: some amount is kUnboundedAmount.
bool HasUnbounded(const ResourceAmounts& amounts);

// PodResources: the requests of one pod's containers, as the API object lists them.
struct PodResources {
  std::vector<ResourceAmounts> containers;
  // Init containers run one at a time before the app containers; those with restartPolicy
  // Always (sidecars) keep running and add to everything after them.
  struct InitContainer {
    ResourceAmounts requests;
    bool sidecar = false;
  };
  std::vector<InitContainer> init_containers;
  ResourceAmounts overhead;
};

// EffectiveRequests is the pod's request as the scheduler counts it (k8s PodRequests):
// max(sum of app containers + sidecars, each init container + the sidecars started before it)
// per resource, plus the pod overhead.
ResourceAmounts EffectiveRequests(const PodResources& pod);

// AddInto adds b into a (saturating).
void AddInto(ResourceAmounts& a, const ResourceAmounts& b);
// MaskTo keeps only the resource names present in `names`.
ResourceAmounts MaskTo(const ResourceAmounts& amounts, const ResourceAmounts& names);
// Equal compares two amounts, treating a missing name as zero.
bool EqualAmounts(const ResourceAmounts& a, const ResourceAmounts& b);

}  // namespace berth::reconcile
