// fuzz/prefer_avoid_pods_fuzz.cc — ParsePreferAvoidPods / SerializePreferAvoidPods
// (reconcile/placement/prefer_avoid_pods), the node annotation scheduler.alpha.kubernetes.io/preferAvoidPods.
// Properties: no crash; an error has a message; what parses serializes to a value that parses back and
// serializes identically (evictionTime is written in whole seconds, so the first round may truncate).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "reconcile/placement/prefer_avoid_pods.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace placement = berth::reconcile::placement;
  auto entries = placement::ParsePreferAvoidPods(berth::fuzz::AsText(data, size));
  if (!entries) {
    FUZZ_CHECK(!entries.error().message.empty());
    return 0;
  }
  const std::string once = placement::SerializePreferAvoidPods(*entries);
  auto back = placement::ParsePreferAvoidPods(once);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(back->size() == entries->size());
  FUZZ_CHECK(placement::SerializePreferAvoidPods(*back) == once);
  return 0;
}
