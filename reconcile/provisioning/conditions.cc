// reconcile/provisioning/conditions.cc
#include "reconcile/provisioning/conditions.h"

namespace berth::reconcile::provisioning {

std::string_view RequestStateName(RequestState state) {
  switch (state) {
    case RequestState::kPending: return "Pending";
    case RequestState::kAccepted: return "Accepted";
    case RequestState::kProvisioned: return "Provisioned";
    case RequestState::kFailed: return "Failed";
    case RequestState::kBookingExpired: return "BookingExpired";
    case RequestState::kCapacityRevoked: return "CapacityRevoked";
  }
  return "Pending";
}

const Condition* FindCondition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool IsTrue(const std::vector<Condition>& conditions, std::string_view type) {
  const Condition* c = FindCondition(conditions, type);
  return c != nullptr && c->status == "True";
}

bool SetCondition(std::vector<Condition>& conditions, std::string_view type, std::string_view status,
                  std::string_view reason, std::string_view message, int64_t generation, Time now) {
  for (Condition& c : conditions) {
    if (c.type != type) continue;
    const bool status_changed = c.status != status;
    const bool transition = status_changed || c.reason != reason;
    if (status_changed || !c.last_transition_time) c.last_transition_time = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.observed_generation = generation;
    return transition;
  }
  conditions.push_back({std::string(type), std::string(status), std::string(reason), std::string(message), now,
                        generation});
  return true;
}

RequestState StateOf(const std::vector<Condition>& conditions) {
  if (IsTrue(conditions, kConditionCapacityRevoked)) return RequestState::kCapacityRevoked;
  if (IsTrue(conditions, kConditionFailed)) return RequestState::kFailed;
  if (IsTrue(conditions, kConditionBookingExpired)) return RequestState::kBookingExpired;
  if (IsTrue(conditions, kConditionProvisioned)) return RequestState::kProvisioned;
  if (IsTrue(conditions, kConditionAccepted)) return RequestState::kAccepted;
  return RequestState::kPending;
}

std::optional<Time> TerminalSince(const std::vector<Condition>& conditions) {
  std::optional<Time> since;
  for (std::string_view type : {kConditionFailed, kConditionBookingExpired, kConditionCapacityRevoked}) {
    const Condition* c = FindCondition(conditions, type);
    if (c == nullptr || c->status != "True") continue;
    // A terminal condition without a timestamp counts from the epoch: it is old, not new.
    Time t = c->last_transition_time.value_or(Time{});
    if (!since || t < *since) since = t;
  }
  return since;
}

}  // namespace berth::reconcile::provisioning
