#include "reconcile/reservation/lifecycle.h"

#include <algorithm>

#include "clientgo-shim/api/timestamp.h"

namespace berth::reconcile {
namespace {

std::string FormatTime(Time t) {
  return shim::FormatTimestamp(std::chrono::time_point_cast<std::chrono::nanoseconds>(t));
}

const Condition* FindCondition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// ExpiryMessage says when and why: "expired at 2026-01-01T00:00:00Z (ttl 1h)".
std::string ExpiryMessage(const ReservationSnapshot& r, Time deadline) {
  std::string why = r.expires ? "expires " + FormatTime(*r.expires) : "ttl " + r.ttl_text;
  return "expired at " + FormatTime(deadline) + " (" + why + ")";
}

}  // namespace

std::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kPending: return "Pending";
    case Phase::kAvailable: return "Available";
    case Phase::kWaiting: return "Waiting";
    case Phase::kSucceeded: return "Succeeded";
    case Phase::kFailed: return "Failed";
  }
  return "Pending";
}

std::optional<Phase> ParsePhase(std::string_view text) {
  if (text.empty() || text == "Pending") return Phase::kPending;
  if (text == "Available") return Phase::kAvailable;
  if (text == "Waiting") return Phase::kWaiting;
  if (text == "Succeeded") return Phase::kSucceeded;
  if (text == "Failed") return Phase::kFailed;
  return std::nullopt;
}

std::optional<Time> ExpiryDeadline(const ReservationSnapshot& r) {
  if (r.expires) return *r.expires;
  if (r.ttl && r.ttl->count() > 0) {
    return r.creation_time + std::chrono::duration_cast<Time::duration>(*r.ttl);
  }
  return std::nullopt;
}

std::optional<Time> TerminalSince(const ReservationSnapshot& r) {
  if (!IsTerminal(r.status.phase)) return std::nullopt;
  const Condition* ready = FindCondition(r.status.conditions, kConditionReady);
  if (!ready || ready->status != "False") return std::nullopt;
  if (ready->last_transition_time) {
    const Time ltt = *ready->last_transition_time;
    if (r.terminal_since_precise && *r.terminal_since_precise >= ltt &&
        *r.terminal_since_precise < ltt + std::chrono::seconds(1)) {
      return r.terminal_since_precise;
    }
    return ltt;
  }
  return ready->last_probe_time;
}

std::optional<Time> GcDeadline(const ReservationSnapshot& r, Duration retention) {
  if (retention.count() <= 0) return std::nullopt;
  // koordinator's GC deletes a terminal reservation whose node is gone on its next tick (every
  // 60s) without waiting for the retention; berth does so half a tick after it ended, so the
  // Failed status stays readable for a while.
  if (!r.status.node_name.empty() && !r.node_exists) retention = std::min(retention, kNodeGoneGcDelay);
  auto since = TerminalSince(r);
  if (!since) return std::nullopt;
  return *since + std::chrono::duration_cast<Time::duration>(retention);
}

std::vector<OwnerRef> OwnersOf(const ReservationSnapshot& r) {
  std::vector<OwnerRef> owners;
  for (const auto& pod : r.consumers) {
    if (pod.terminal || pod.deleting || pod.uid.empty()) continue;
    owners.push_back({pod.namespace_name, pod.name, pod.uid});
  }
  std::sort(owners.begin(), owners.end(), [](const OwnerRef& a, const OwnerRef& b) { return a.uid < b.uid; });
  owners.erase(std::unique(owners.begin(), owners.end(),
                           [](const OwnerRef& a, const OwnerRef& b) { return a.uid == b.uid; }),
               owners.end());
  return owners;
}

ResourceAmounts AllocatedOf(const ReservationSnapshot& r) {
  ResourceAmounts total;
  std::vector<std::string> seen;
  for (const auto& pod : r.consumers) {
    if (pod.terminal || pod.deleting || pod.uid.empty()) continue;
    if (std::find(seen.begin(), seen.end(), pod.uid) != seen.end()) continue;
    seen.push_back(pod.uid);
    AddInto(total, pod.requests);
  }
  ResourceAmounts masked = MaskTo(total, r.status.allocatable);
  // Names with a zero total are dropped so an empty allocation reads as "nothing allocated".
  std::erase_if(masked, [](const auto& entry) { return entry.second == 0; });
  return masked;
}

void SetCondition(std::vector<Condition>& conditions, std::string_view type,
                  std::string_view status, std::string_view reason, std::string_view message,
                  Time now) {
  for (auto& c : conditions) {
    if (c.type != type) continue;
    if (c.status != status) c.last_transition_time = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.last_probe_time = now;
    return;
  }
  conditions.push_back(Condition{std::string(type), std::string(status), std::string(reason),
                                 std::string(message), now, now});
}

ReservationDecision DecideReservation(const ReservationSnapshot& r, Time now,
                                      const LifecycleOptions& options) {
  ReservationDecision d;
  if (r.deleting) return d;
  const ReservationStatus& observed = r.status;

  if (IsTerminal(observed.phase)) {
    if (auto gc = GcDeadline(r, options.gc_retention)) {
      if (now >= *gc) {
        d.delete_reservation = true;
      } else {
        d.requeue_after = *gc - now;
      }
    }
    return d;
  }

  ReservationStatus next = observed;
  auto fail = [&](std::string_view reason, const std::string& message) {
    next.phase = Phase::kFailed;
    SetCondition(next.conditions, kConditionReady, "False", reason, message, now);
    d.events.push_back({"Warning", std::string(reason), message});
    d.transition = PhaseTransition{observed.phase, Phase::kFailed, std::string(reason)};
  };

  // A reservation whose spec cannot be honoured says so once, in a condition and an Event.
  if (!r.spec_errors.empty()) {
    std::string message = "invalid spec: ";
    for (size_t i = 0; i < r.spec_errors.size(); ++i) message += (i ? "; " : "") + r.spec_errors[i];
    const Condition* ready = FindCondition(observed.conditions, kConditionReady);
    if (!ready || ready->reason != kReasonInvalidSpec || ready->message != message) {
      SetCondition(next.conditions, kConditionReady, "False", kReasonInvalidSpec, message, now);
      d.events.push_back({"Warning", std::string(kReasonInvalidSpec), message});
    }
  } else {
    // The spec was fixed: an InvalidSpec condition left behind would keep telling the old story.
    const Condition* ready = FindCondition(observed.conditions, kConditionReady);
    if (ready && ready->reason == kReasonInvalidSpec) {
      std::erase_if(next.conditions, [](const Condition& c) {
        return c.type == kConditionReady && c.reason == kReasonInvalidSpec;
      });
      d.events.push_back({"Normal", "SpecValid", "the spec is valid again"});
    }
  }

  auto deadline = ExpiryDeadline(r);
  bool placed = !observed.node_name.empty();
  // The owners as of now, also on the write that ends the reservation: an owner-only write that was
  // still due (rate-limited, failed, or lost with a leader) would otherwise never land, since a
  // terminal reservation is not synced again.
  next.current_owners = OwnersOf(r);
  next.allocated = AllocatedOf(r);
  if (placed && !r.node_exists) {
    // koordinator's reason (its IsReservationExpired, and so a PodMigrationJob's ReservationExpired,
    // must see it); the message says why.
    fail(kReasonExpired, "node " + observed.node_name + " was deleted");
  } else if (deadline && now >= *deadline) {
    d.deadline = deadline;
    fail(kReasonExpired, ExpiryMessage(r, *deadline));
  } else {
    if (r.allocate_once && !next.current_owners.empty()) {
      const OwnerRef& first = next.current_owners.front();
      next.phase = Phase::kSucceeded;
      if (!placed) {
        // The scheduler binds pods into a placement it has assumed before its status write lands;
        // this write makes that one conflict, and a Succeeded reservation is not placed again. The
        // owner's node is the reservation's: recorded here, it is not lost. (A reservation that
        // stays Pending is left to the scheduler, whose retry finds it still unplaced.)
        for (const auto& pod : r.consumers) {
          if (!pod.terminal && !pod.deleting && !pod.node_name.empty()) {
            next.node_name = pod.node_name;
            break;
          }
        }
      }
      std::string message = "allocated once by pod " + first.namespace_name + "/" + first.name;
      SetCondition(next.conditions, kConditionReady, "False", kReasonSucceeded, message, now);
      d.events.push_back({"Normal", std::string(kReasonSucceeded), message});
      d.transition = PhaseTransition{observed.phase, Phase::kSucceeded, std::string(kReasonSucceeded)};
    }
  }

  if (next.phase == Phase::kFailed || next.phase == Phase::kSucceeded) {
    // Entering a terminal phase: the next deadline is the GC.
    ReservationSnapshot after = r;
    after.status = next;
    if (auto gc = GcDeadline(after, options.gc_retention)) d.requeue_after = *gc - now;
  } else if (deadline) {
    d.requeue_after = *deadline - now;
  }
  // Compare what matters; lastProbeTime alone never justifies a write.
  auto strip = [](ReservationStatus s) {
    for (auto& c : s.conditions) c.last_probe_time.reset();
    return s;
  };
  if (!(strip(next) == strip(observed))) d.status = std::move(next);
  return d;
}

}  // namespace berth::reconcile
