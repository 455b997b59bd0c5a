// fuzz/rescheduler_config_fuzz.cc — ParseReschedulerConfig (reconcile/rescheduler/config), the
// berth-rescheduler ConfigMap's config.yaml. Properties: no crash; an error has a message; an accepted
// configuration satisfies the invariants the planner relies on.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "reconcile/rescheduler/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto config = berth::reconcile::rescheduler::ParseReschedulerConfig(berth::fuzz::AsText(data, size));
  if (!config) {
    FUZZ_CHECK(!config.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(config->interval.count() > 0);
  FUZZ_CHECK(config->min_improvement >= 0 && config->min_improvement <= 100);
  const auto& lnu = config->low_node_utilization;
  FUZZ_CHECK(lnu.thresholds.size() == lnu.target_thresholds.size());
  for (const auto& [name, percent] : lnu.thresholds) FUZZ_CHECK(percent <= lnu.target_thresholds.at(name));
  return 0;
}
