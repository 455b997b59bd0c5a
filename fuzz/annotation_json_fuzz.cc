// fuzz/annotation_json_fuzz.cc — ParseAnnotationJson (reconcile/common/annotation_json), the
// iterative parser for JSON inside annotation values.
// Properties: no crash at any nesting depth; below a depth the recursive parser handles safely,
// it agrees with berth::json::Parse on what is accepted and on the value (its serialization).
#include <cstddef>
#include <cstdint>

#include "clientgo-shim/base/json.h"
#include "fuzz/fuzz_check.h"
#include "reconcile/common/annotation_json.h"

namespace {

// The deepest bracket nesting of `text`, counting brackets inside strings too (an upper bound is
// all that is needed to keep the recursive reference parser off deep inputs).
size_t MaxNesting(std::string_view text) {
  size_t depth = 0, max = 0;
  for (char c : text) {
    if (c == '[' || c == '{') max = std::max(max, ++depth);
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return max;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = berth::fuzz::AsText(data, size);
  auto doc = berth::reconcile::ParseAnnotationJson(text);
  if (!doc) FUZZ_CHECK(!doc.error().message.empty());
  if (MaxNesting(text) > 200) return 0;
  auto reference = berth::json::Parse(text);
  FUZZ_CHECK(doc.has_value() == reference.has_value());
  if (doc) FUZZ_CHECK(berth::json::Serialize(*doc) == berth::json::Serialize(*reference));
  return 0;
}
