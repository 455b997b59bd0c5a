// reconcile/placement/reservation_affinity.h
//
// How a pod steers which Reservations it may use (koordinator's apis/extension/reservation.go and
// the Reservation plugin's transformer): the pod annotation
// scheduling.koordinator.sh/reservation-affinity, the Reservation label
// scheduling.koordinator.sh/reservation-order, and the reservation-level reasons the plugin's
// PostFilter adds to an unschedulable pod's message. A pod carrying the annotation (any value,
// even "" or "{}") must be placed through a Reservation it owns and the affinity selects.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

inline constexpr std::string_view kAnnotationReservationAffinity =
    "scheduling.koordinator.sh/reservation-affinity";
inline constexpr std::string_view kLabelReservationOrder = "scheduling.koordinator.sh/reservation-order";
// The Reservation plugin's ErrReasonReservationAffinity: a pod with reservation affinity and no
// matching reservation on the node (Filter), or on any node (PreFilter).
inline constexpr std::string_view kReasonReservationAffinity =
    "node(s) no reservations match reservation affinity";

// ReservationAffinity: the annotation's value (extension.ReservationAffinity).
struct ReservationAffinity {
  // name: only the Reservation of this name; the other fields, spec.unschedulable and the
  // Reservation's taints are then not checked.
  std::string name;
  // reservationSelector: every pair must equal a label of the Reservation (or of its node).
  LabelMap reservation_selector;
  // requiredDuringSchedulingIgnoredDuringExecution.reservationSelectorTerms (ORed, node-selector
  // terms evaluated against the Reservation's labels over its node's, matchFields metadata.name
  // against the Reservation's name); nullopt when absent.
  std::optional<std::vector<NodeSelectorTerm>> required_terms;
  // tolerations: which Reservation taints (NoSchedule/NoExecute) the pod tolerates.
  std::vector<Toleration> tolerations;
};

// ParseReservationAffinity parses the annotation value like Go's json.Unmarshal into
// extension.ReservationAffinity followed by nodeaffinity.NewNodeSelector: "" and "null" give an
// empty affinity; unknown fields are ignored; null fields count as absent.
// Errors: kInvalidArgument for JSON that does not parse, a wrong JSON type ("json: cannot
// unmarshal number into Go struct field ReservationAffinity.reservationSelector of type
// map[string]string"), or an invalid selector term ("nodeSelectorTerms[0].matchExpressions[0]
// .operator: Unsupported value: \"Foo\"", wrong value counts for the operator).
Result<ReservationAffinity> ParseReservationAffinity(std::string_view text);

// MatchesReservationAffinity: the name (when set) equals the Reservation's; otherwise the
// reservationSelector and the required terms match the Reservation's labels laid over its
// node's labels (koordinator lets a Reservation inherit its node's labels, e.g. the zone).
bool MatchesReservationAffinity(const ReservationAffinity& affinity,
                                const ReservationView& reservation, const LabelMap& node_labels);

// ReservationOrder: the reservation-order label as an int64; 0 (no preference) when absent or not
// an integer. A lower non-zero order is preferred over the capacity score.
int64_t ReservationOrder(const LabelMap& labels);

// AffinityOutcome: why the Reservation plugin's BeforePreFilter did or did not match an owner
// pod with a Reservation (the order it checks in).
enum class AffinityOutcome { kMatched, kNameMatched, kNameUnmatched, kUnschedulable, kTaint, kAffinityUnmatched };

// ToleratesPausedReservation: the affinity's tolerations tolerate the taint
// node.kubernetes.io/unschedulable:NoSchedule, koordinator's stand-in for spec.unschedulable.
bool ToleratesPausedReservation(const ReservationAffinity* affinity);

// ClassifyForAffinity: the outcome for a pod (with `affinity`, possibly null) that matches the
// Reservation's owners; `taint_key` receives "{key: value}" of the first untolerated taint.
// Without an affinity, taints are checked against `fallback_tolerations` (berth keeps the pod's
// own tolerations there; koordinator does not check taints for such pods).
AffinityOutcome ClassifyForAffinity(const ReservationAffinity* affinity,
                                    const std::vector<Toleration>& fallback_tolerations,
                                    const ReservationView& reservation, const LabelMap& node_labels,
                                    std::string* taint_key = nullptr);

// AffinityDiagnosis: the counts behind the plugin's PostFilter reasons.
struct AffinityDiagnosis {
  int owner_matched = 0;
  int name_matched = 0;
  int name_unmatched = 0;
  int affinity_unmatched = 0;
  int unschedulable = 0;
  std::map<std::string, int> taints;  // "{key: value}" → count
  void Add(AffinityOutcome outcome, const std::string& taint_key);
};

// PostFilterReasons: the Reservation plugin's PostFilter reasons in its order, e.g.
// {"2 Reservation(s) didn't match affinity rules", "2 Reservation(s) matched owner total"}.
std::vector<std::string> PostFilterReasons(const AffinityDiagnosis& diagnosis);

}  // namespace berth::reconcile::placement
