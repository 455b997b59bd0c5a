// reconcile/placement/exact_match.h — koordinator's exact-match-reservation pod annotation: the
// named resources of the pod's requests must equal the Reservation's allocatable exactly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

// JSON {"resourceNames":["cpu","memory"]} (apis/extension ExactMatchReservationSpec).
inline constexpr std::string_view kAnnotationExactMatchReservation =
    "scheduling.koordinator.sh/exact-match-reservation";

// ParseExactMatchReservation reads the annotation's resource names. Errors (kInvalidArgument):
// invalid JSON, a value that is not an object, resourceNames not a list of strings.
Result<std::vector<std::string>> ParseExactMatchReservation(std::string_view text);

// ExactMatchesReservation: for every name in `resource_names` the pod requests exactly what the
// reservation's allocatable holds. A zero amount counts as absent (berth drops zero amounts from
// allocatable), so a resource neither side has matches.
bool ExactMatchesReservation(const ResourceAmounts& pod_requests, const ResourceAmounts& allocatable,
                             const std::vector<std::string>& resource_names);

}  // namespace berth::reconcile::placement
