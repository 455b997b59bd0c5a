// fuzz/quantity_fuzz.cc — Quantity::Parse (clientgo-shim/api/quantity).
// Properties: no crash; a parsed quantity's String() parses back to the same value, and that
// canonical string, read back once, is a fixed point; Value/MilliValue saturate instead of overflowing (UBSan).
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
  // Read back once, the canonical string is a fixed point. Not before: a binary quantity whose
  // bytes are no whole binary unit prints with no suffix, as Kubernetes prints it ("62.5Ki" →
  // "64000"), and reads back as a decimal one, which prints "64k".
  const std::string again = back->String();
  auto third = Quantity::Parse(again);
  FUZZ_CHECK(third.has_value());
  FUZZ_CHECK(*third == *q);
  FUZZ_CHECK(third->String() == again);
  Quantity sum = *q;
  sum.Add(*back);  // saturates near the bounds
  sum.Sub(*q);
  return 0;
}
