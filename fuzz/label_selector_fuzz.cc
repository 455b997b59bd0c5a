// fuzz/label_selector_fuzz.cc — LabelSelector::Parse (clientgo-shim/api/label_selector).
// Properties: no crash; String() of a parsed selector parses back to the same String();
// matching runs on a fixed label set (the integer comparisons of gt/lt included).
#include <cstddef>
#include <cstdint>

#include "clientgo-shim/api/label_selector.h"
#include "fuzz/fuzz_check.h"

using berth::shim::LabelMap;
using berth::shim::LabelSelector;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto selector = LabelSelector::Parse(berth::fuzz::AsText(data, size));
  if (!selector) {
    FUZZ_CHECK(!selector.error().message.empty());
    return 0;
  }
  static const LabelMap kLabels = {{"app", "web"}, {"tier", "1"}, {"zone", "-9223372036854775808"}};
  (void)selector->Matches(kLabels);
  const std::string text = selector->String();
  auto back = LabelSelector::Parse(text);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(back->String() == text);
  FUZZ_CHECK(back->Matches(kLabels) == selector->Matches(kLabels));
  return 0;
}
