// fuzz/field_selector_fuzz.cc — FieldSelector::Parse (clientgo-shim/api/field_selector).
// Properties: no crash; String() (values re-escaped) parses back to the same requirements.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "clientgo-shim/api/field_selector.h"
#include "fuzz/fuzz_check.h"

using berth::shim::FieldSelector;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto selector = FieldSelector::Parse(berth::fuzz::AsText(data, size));
  if (!selector) {
    FUZZ_CHECK(!selector.error().message.empty());
    return 0;
  }
  const auto get = [](std::string_view field) -> std::optional<std::string> {
    if (field == "metadata.name") return "a,b=c";
    return std::nullopt;
  };
  const bool matches = selector->Matches(get);
  (void)selector->RequiresExactMatch("metadata.name");
  const std::string text = selector->String();
  auto back = FieldSelector::Parse(text);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(back->String() == text);
  FUZZ_CHECK(back->requirements().size() == selector->requirements().size());
  FUZZ_CHECK(back->Matches(get) == matches);
  return 0;
}
