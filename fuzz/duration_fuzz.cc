// fuzz/duration_fuzz.cc — ParseDuration / FormatDuration (clientgo-shim/api/duration).
// Properties: no crash; Go's String() form of a parsed duration parses back to the same value.
#include <cstddef>
#include <cstdint>

#include "clientgo-shim/api/duration.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto d = berth::shim::ParseDuration(berth::fuzz::AsText(data, size));
  if (!d) {
    FUZZ_CHECK(!d.error().message.empty());
    return 0;
  }
  const std::string text = berth::shim::FormatDuration(*d);
  auto back = berth::shim::ParseDuration(text);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(*back == *d);
  return 0;
}
