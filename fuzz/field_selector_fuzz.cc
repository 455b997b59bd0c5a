// fuzz/field_selector_fuzz.cc — FieldSelector::Parse (clientgo-shim/api/field_selector).
// Properties: no crash; String() (values re-escaped) parses back to the same requirements, which
// match the same objects.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "clientgo-shim/api/field_selector.h"
#include "fuzz/fuzz_check.h"

using berth::shim::FieldSelector;

namespace {

std::vector<std::tuple<std::string, bool, std::string>> Canonical(const FieldSelector& selector) {
  std::vector<std::tuple<std::string, bool, std::string>> out;
  for (const auto& r : selector.requirements()) out.emplace_back(r.field, r.equals, r.value);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

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
  // The same requirements come back. Not necessarily in the same order, so String() is not a
  // fixed point: Parse sorts the raw terms (as fields.ParseSelector does), and "==" or a
  // redundant escape sorts differently from the "=" and escapes String() writes.
  FUZZ_CHECK(Canonical(*back) == Canonical(*selector));
  FUZZ_CHECK(back->Matches(get) == matches);
  return 0;
}
