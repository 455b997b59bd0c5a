// fuzz/json_fuzz.cc — berth::json::Parse / Serialize (clientgo-shim/base/json).
// Properties: no crash on any input; what parses serializes to JSON that parses back to the same
// serialization (a fixed point after one round).
#include <cstddef>
#include <cstdint>

#include "clientgo-shim/base/json.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto doc = berth::json::Parse(berth::fuzz::AsText(data, size));
  if (!doc) {
    FUZZ_CHECK(!doc.error().message.empty());
    return 0;
  }
  const std::string once = berth::json::Serialize(*doc);
  auto again = berth::json::Parse(once);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(berth::json::Serialize(*again) == once);
  // The lookup helpers walk whatever shape arrived.
  (void)berth::json::GetString(*doc, {"metadata", "name"});
  (void)berth::json::Find(*doc, {"spec", "template", "spec"});
  return 0;
}
