// fuzz/quantity_fuzz.cc — Quantity::Parse (clientgo-shim/api/quantity).
// Properties: no crash; a parsed quantity's String() parses back to the same value, and that
// canonical string is a fixed point; Value/MilliValue saturate instead of overflowing (UBSan).
#include <cstddef>
#include <cstdint>

#include "clientgo-shim/api/quantity.h"
#include "fuzz/fuzz_check.h"

using berth::shim::Quantity;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto q = Quantity::Parse(berth::fuzz::AsText(data, size));
  if (!q) {
    FUZZ_CHECK(!q.error().message.empty());
    return 0;
  }
  (void)q->Value();
  (void)q->MilliValue();
  const std::string text = q->String();
  auto back = Quantity::Parse(text);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(*back == *q);
  FUZZ_CHECK(back->String() == text);
  Quantity sum = *q;
  sum.Add(*back);  // saturates near the bounds
  sum.Sub(*q);
  return 0;
}
