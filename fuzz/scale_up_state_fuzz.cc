// fuzz/scale_up_state_fuzz.cc — DecodeScaleUpRecord / EncodeScaleUpRecord
// (reconcile/provisioning/scale_up_state), the ProvisioningRequest annotation berth.dev/scale-up.
// Properties: no crash; an error names the annotation; what decodes encodes to a value that
// decodes and encodes to the same text (encoding keeps microseconds, so the first round may
// truncate a finer deadline).
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_check.h"
#include "reconcile/provisioning/scale_up.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace prov = berth::reconcile::provisioning;
  auto record = prov::DecodeScaleUpRecord(berth::fuzz::AsText(data, size));
  if (!record) {
    FUZZ_CHECK(record.error().starts_with("berth.dev/scale-up: "));
    return 0;
  }
  const std::string text = prov::EncodeScaleUpRecord(*record);
  auto back = prov::DecodeScaleUpRecord(text);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(prov::EncodeScaleUpRecord(*back) == text);
  return 0;
}
