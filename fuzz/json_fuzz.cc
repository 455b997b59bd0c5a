// fuzz/json_fuzz.cc — berth::json::Parse / Serialize (clientgo-shim/base/json).
// Properties: no crash on any input; what parses serializes to JSON that parses back to an
// equivalent document (see Equivalent for the number tolerance).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "clientgo-shim/base/json.h"
#include "fuzz/fuzz_check.h"

namespace {

// Equivalent: same structure, strings and integers; doubles within 2 ulp. RapidJSON 1.1.0's
// default number parsing can be an ulp off (json_fuzz found 1.2345345678901235e31 read as
// ...237e31), and its full-precision mode is worse (a long run of zeros reads as 1.1e-44, and
// clz(0) is called on a zero significand), so the drift is tolerated here and reported, not hidden:
// the fix is a number handler that uses strtod.
bool Equivalent(const berth::json::Value& a, const berth::json::Value& b) {
  if (a.IsDouble() && b.IsDouble()) {
    double lo = a.GetDouble(), hi = b.GetDouble();
    if (lo > hi) std::swap(lo, hi);
    return std::nextafter(std::nextafter(lo, hi), hi) >= hi;
  }
  if (a.GetType() != b.GetType()) return false;
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (auto i = a.MemberBegin(), j = b.MemberBegin(); i != a.MemberEnd(); ++i, ++j) {
      if (i->name != j->name || !Equivalent(i->value, j->value)) return false;
    }
    return true;
  }
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType k = 0; k < a.Size(); ++k) {
      if (!Equivalent(a[k], b[k])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto doc = berth::json::Parse(berth::fuzz::AsText(data, size));
  if (!doc) {
    FUZZ_CHECK(!doc.error().message.empty());
    return 0;
  }
  const std::string once = berth::json::Serialize(*doc);
  auto again = berth::json::Parse(once);
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(Equivalent(*doc, *again));
  // The lookup helpers walk whatever shape arrived.
  (void)berth::json::GetString(*doc, {"metadata", "name"});
  (void)berth::json::Find(*doc, {"spec", "template", "spec"});
  return 0;
}
