// e2e/kubesim/disruption/int_or_percent.h
//
// intstr.GetScaledValueFromIntOrPercent for PDB minAvailable / maxUnavailable: a JSON integer is
// taken as is, a string must be "<int>%" and is scaled against a total.
#pragma once

#include <cstdint>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::disruption {

// ScaledValueFromIntOrPercent returns the int value, or ceil/floor(pct * total / 100) for "pct%".
// Errors: kInvalidArgument with upstream's wording, e.g. "invalid value for IntOrString: invalid
// type: string is not a percentage".
Result<int64_t> ScaledValueFromIntOrPercent(const rapidjson::Value& value, int64_t total,
                                            bool round_up);

}  // namespace berth::kubesim::disruption
