// reconcile/provisioning/conditions.h
//
// Condition bookkeeping for ProvisioningRequests. Unlike upstream's AddOrUpdateCondition, which
// stamps lastTransitionTime on every write (and so skews its own backoff and expiry timers),
// lastTransitionTime moves only when a condition's status changes. observedGeneration is the
// request's generation, as upstream sets it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "reconcile/provisioning/types.h"

namespace berth::reconcile::provisioning {

const Condition* FindCondition(const std::vector<Condition>& conditions, std::string_view type);
// IsTrue: the condition exists with status "True".
bool IsTrue(const std::vector<Condition>& conditions, std::string_view type);

// SetCondition upserts the condition of `type`. lastTransitionTime becomes `now` when the
// condition is new or its status changes, and is kept otherwise. Returns true when this is a
// transition worth an Event: new, or a different status or reason.
bool SetCondition(std::vector<Condition>& conditions, std::string_view type, std::string_view status,
                  std::string_view reason, std::string_view message, int64_t generation, Time now);

// StateOf: the request's state for metrics, from its conditions (CapacityRevoked, Failed,
// BookingExpired, Provisioned, Accepted, in that order of precedence).
RequestState StateOf(const std::vector<Condition>& conditions);

// TerminalSince: when the request reached a terminal state (the earliest lastTransitionTime of a
// True Failed, BookingExpired or CapacityRevoked condition); nullopt while not terminal.
std::optional<Time> TerminalSince(const std::vector<Condition>& conditions);

}  // namespace berth::reconcile::provisioning
