// reconcile/reservation/types.h
//
// The Reservation as the lifecycle logic sees it: plain structs built by the controller from
// its caches (no JSON, no I/O). Field names follow scheduling.koordinator.sh/v1alpha1.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/common/resources.h"

namespace berth::reconcile {

using Time = std::chrono::system_clock::time_point;
using Duration = std::chrono::nanoseconds;

enum class Phase { kPending, kAvailable, kWaiting, kSucceeded, kFailed };

// PhaseName is the wire value ("Pending", ...). ParsePhase maps "" to Pending, as koordinator
// does, and returns nullopt for unknown values.
std::string_view PhaseName(Phase phase);
std::optional<Phase> ParsePhase(std::string_view text);
inline bool IsTerminal(Phase p) { return p == Phase::kSucceeded || p == Phase::kFailed; }

// Condition types and reasons (koordinator's constants, plus berth's InvalidSpec).
inline constexpr std::string_view kConditionScheduled = "Scheduled";
inline constexpr std::string_view kConditionReady = "Ready";
inline constexpr std::string_view kReasonExpired = "Expired";
inline constexpr std::string_view kReasonSucceeded = "Succeeded";
inline constexpr std::string_view kReasonInvalidSpec = "InvalidSpec";

struct Condition {
  std::string type;
  std::string status;  // "True" / "False" / "Unknown"
  std::string reason;
  std::string message;
  std::optional<Time> last_transition_time;
  std::optional<Time> last_probe_time;
  bool operator==(const Condition&) const = default;
};

struct OwnerRef {
  std::string namespace_name;
  std::string name;
  std::string uid;
  bool operator==(const OwnerRef&) const = default;
};

struct ReservationStatus {
  Phase phase = Phase::kPending;
  std::string node_name;
  ResourceAmounts allocatable;
  ResourceAmounts allocated;
  std::vector<OwnerRef> current_owners;
  std::vector<Condition> conditions;
  bool operator==(const ReservationStatus&) const = default;
};

// ConsumerPod: a pod whose reservation-allocated annotation names this reservation's uid.
struct ConsumerPod {
  std::string namespace_name;
  std::string name;
  std::string uid;
  bool terminal = false;  // phase Succeeded or Failed
  bool deleting = false;  // deletionTimestamp set
  ResourceAmounts requests;  // effective requests (EffectiveRequests)
  std::string node_name;  // spec.nodeName: a bound consumer is on the reservation's node
};

struct ReservationSnapshot {
  std::string name;
  std::string uid;
  Time creation_time;
  bool deleting = false;
  // spec
  std::optional<Duration> ttl;  // nullopt when absent
  std::string ttl_text;         // as written, for messages
  std::optional<Time> expires;
  bool allocate_once = true;
  // Problems found while reading the spec (unparsable ttl, negative ttl, bad quantities...).
  std::vector<std::string> spec_errors;
  // status, as last written
  ReservationStatus status;
  // When this process wrote the terminal transition, to sub-second precision (API timestamps have
  // 1 s resolution, which would let GC come up to 1 s early). Used only if it falls within the
  // Ready condition's lastTransitionTime second; nullopt after a restart.
  std::optional<Time> terminal_since_precise;
  // world
  bool node_exists = true;  // false when status.nodeName names a node that is gone
  std::vector<ConsumerPod> consumers;
};

// EventNote: an Event to record on the Reservation.
struct EventNote {
  std::string type;  // "Normal" / "Warning"
  std::string reason;
  std::string message;
  bool operator==(const EventNote&) const = default;
};

// PhaseTransition: for metrics (berth_reservation_transitions_total{from,to,reason}).
struct PhaseTransition {
  Phase from;
  Phase to;
  std::string reason;
};

}  // namespace berth::reconcile
