// reconcile/reservation/lifecycle.h
//
// The Reservation lifecycle as pure functions: when a reservation expires, when a terminal one is
// garbage-collected, who its owners are, and the one decision that combines them. Deadlines are
// exact (the controller requeues for them with AddAfter) instead of koordinator's 3–15 s poll.
// Deliberate differences from koordinator (see upstream-facts/koordinator-reservation.md §2.10):
// `expires` wins over the defaulted ttl; Pending reservations expire too; a deleted node's
// Failed/Expired names the node in its message; terminal pods stop counting as owners.
#pragma once

#include <optional>

#include "reconcile/reservation/types.h"

namespace berth::reconcile {

// ExpiryDeadline: `expires` when set (even with a ttl), else creation + ttl for ttl > 0.
// nullopt: never expires (ttl 0 or absent without expires, or a negative ttl, which is a spec
// error reported elsewhere).
std::optional<Time> ExpiryDeadline(const ReservationSnapshot& r);

// TerminalSince: when the reservation entered its terminal phase (the Ready condition's
// lastTransitionTime, refined by terminal_since_precise when that falls in the same second), or
// nullopt if unknown or not terminal.
std::optional<Time> TerminalSince(const ReservationSnapshot& r);

// GcDeadline: TerminalSince + retention for Failed and Succeeded; nullopt when retention is 0
// (GC disabled) or the reservation is not terminal. Pending reservations are never GC'd.
std::optional<Time> GcDeadline(const ReservationSnapshot& r, Duration retention);

// OwnersOf: the live consuming pods as {namespace, name, uid}, sorted by uid, de-duplicated;
// terminal and deleting pods excluded. AllocatedOf: their effective requests summed, limited
// to the resource names in allocatable.
std::vector<OwnerRef> OwnersOf(const ReservationSnapshot& r);
ResourceAmounts AllocatedOf(const ReservationSnapshot& r);

// kNodeGoneGcDelay: how long after it ended a terminal reservation whose node is gone is kept
// (the retention when that is shorter).
inline constexpr Duration kNodeGoneGcDelay = std::chrono::seconds(30);

struct LifecycleOptions {
  Duration gc_retention = std::chrono::hours(24);  // --reservation-gc-duration; 0 disables GC
};

struct ReservationDecision {
  std::optional<ReservationStatus> status;  // set only when it differs from the observed status
  std::vector<EventNote> events;
  std::optional<PhaseTransition> transition;
  std::optional<Duration> requeue_after;  // the next deadline (expiry or GC)
  bool delete_reservation = false;        // GC: its retention has passed
  std::optional<Time> deadline;           // the expiry deadline the decision acted on, for lag metrics
};

// DecideReservation: the whole lifecycle step for one reservation at `now`.
ReservationDecision DecideReservation(const ReservationSnapshot& r, Time now,
                                      const LifecycleOptions& options);

// SetCondition upserts a condition: lastTransitionTime changes only when status changes;
// lastProbeTime is `now`.
void SetCondition(std::vector<Condition>& conditions, std::string_view type,
                  std::string_view status, std::string_view reason, std::string_view message,
                  Time now);

}  // namespace berth::reconcile
