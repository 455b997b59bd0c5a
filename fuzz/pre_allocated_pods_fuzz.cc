// fuzz/pre_allocated_pods_fuzz.cc — ParsePreAllocatedPods / FormatPreAllocatedPods
// (controllers/scheduler/pre_allocation_codec), the Reservation annotation
// berth.dev/pre-allocated-pods.
// Properties: no crash; what parses formats to a value that parses back to the same pods.
#include <cstddef>
#include <cstdint>

#include "controllers/scheduler/pre_allocation_codec.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto pods = berth::controllers::ParsePreAllocatedPods(berth::fuzz::AsText(data, size));
  if (!pods) {
    FUZZ_CHECK(!pods.error().message.empty());
    return 0;
  }
  const std::string text = berth::controllers::FormatPreAllocatedPods(*pods);
  auto back = berth::controllers::ParsePreAllocatedPods(text);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(*back == *pods);
  return 0;
}
