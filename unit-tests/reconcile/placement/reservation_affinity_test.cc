// Tests for reconcile/placement/reservation_affinity.h: the reservation-affinity annotation
// (parsing, matching, the "required" rule and its messages), reservation-order and
// reservation-ignored as ClusterSnapshot::SchedulePod applies them.
#include "reconcile/placement/reservation_affinity.h"

#include <gtest/gtest.h>

#include "reconcile/placement/owners.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::placement {
namespace {

constexpr int64_t kGi = int64_t{1024} * 1024 * 1024 * 1000;  // milli-bytes
constexpr int64_t kCore = 1000;

std::string ParseError(std::string_view text) {
  auto parsed = ParseReservationAffinity(text);
  EXPECT_FALSE(parsed.has_value()) << text;
  return parsed ? "" : parsed.error().message;
}

NodeView Node(std::string name, int64_t cores, LabelMap labels = {}) {
  NodeView n;
  n.name = std::move(name);
  n.labels = std::move(labels);
  n.allocatable = {{"cpu", cores * kCore}, {"memory", 64 * kGi}, {"pods", 110 * 1000}};
  return n;
}

ReservationView Reservation(std::string name, std::string node, int64_t cores, LabelMap labels = {}) {
  ReservationView r;
  r.name = name;
  r.uid = name + "-uid";
  r.phase = Phase::kAvailable;
  r.node_name = std::move(node);
  r.allocatable = {{"cpu", cores * kCore}};
  r.allocate_once = false;
  r.labels = std::move(labels);
  ReservationOwner owner;
  owner.label_selector = *shim::LabelSelector::Parse("app=demo");
  r.owners = {owner};
  return r;
}

PodSpecView Pod(std::string name, int64_t milli_cpu, std::optional<std::string> affinity = std::nullopt) {
  PodSpecView p;
  p.namespace_name = "default";
  p.name = name;
  p.uid = name + "-uid";
  p.labels = {{"app", "demo"}};
  if (milli_cpu) p.requests["cpu"] = milli_cpu;
  if (affinity) {
    auto parsed = ParseReservationAffinity(*affinity);
    EXPECT_TRUE(parsed.has_value()) << *affinity;
    if (parsed) p.reservation_affinity = std::make_shared<const ReservationAffinity>(std::move(*parsed));
  }
  return p;
}

// ---- Parsing -------------------------------------------------------------------------------

TEST(ParseReservationAffinity, EmptyAndNullValuesAreAnEmptyAffinity) {
  for (std::string_view text : {"", "null", "{}"}) {
    auto parsed = ParseReservationAffinity(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_TRUE(parsed->name.empty());
    EXPECT_TRUE(parsed->reservation_selector.empty());
    EXPECT_FALSE(parsed->required_terms.has_value());
    EXPECT_TRUE(parsed->tolerations.empty());
  }
}

TEST(ParseReservationAffinity, ReadsEveryFieldAndIgnoresUnknownOnes) {
  auto parsed = ParseReservationAffinity(R"({
    "reservationSelector": {"pool": "a"},
    "requiredDuringSchedulingIgnoredDuringExecution": {"reservationSelectorTerms": [
      {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gold", "silver"]}]},
      {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["r1"]}]}]},
    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}],
    "somethingElse": 42, "name": null})");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->reservation_selector, (LabelMap{{"pool", "a"}}));
  ASSERT_TRUE(parsed->required_terms.has_value());
  ASSERT_EQ(parsed->required_terms->size(), 2u);
  const auto& expr = (*parsed->required_terms)[0].match_expressions.at(0);
  EXPECT_EQ(expr.key, "tier");
  EXPECT_EQ(expr.op, NodeSelectorOperator::kIn);
  EXPECT_EQ(expr.values, (std::vector<std::string>{"gold", "silver"}));
  EXPECT_EQ((*parsed->required_terms)[1].match_fields.at(0).values, (std::vector<std::string>{"r1"}));
  ASSERT_EQ(parsed->tolerations.size(), 1u);
  EXPECT_EQ(parsed->tolerations[0], (Toleration{"k", "Exists", "", "NoSchedule"}));
  EXPECT_TRUE(parsed->name.empty());
}

TEST(ParseReservationAffinity, FieldNamesMatchCaseInsensitivelyLikeGo) {
  auto parsed = ParseReservationAffinity(R"({"ReservationSelector": {"pool": "b"}, "NAME": "r9"})");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->reservation_selector.at("pool"), "b");
  EXPECT_EQ(parsed->name, "r9");
}

TEST(ParseReservationAffinity, MalformedJsonIsAnError) {
  EXPECT_NE(ParseError(R"({"reservationSelector": )").find("invalid JSON"), std::string::npos);
  EXPECT_NE(ParseError("not json").find("invalid JSON"), std::string::npos);
}

TEST(ParseReservationAffinity, DeepNestingIsAnErrorNotAStackOverflow) {
  // A pod annotation may hold 200,000 '[' (256 KiB limit); a recursive parser overflows on it.
  EXPECT_NE(ParseError(std::string(200000, '[')).find("invalid JSON"), std::string::npos);
  EXPECT_EQ(ParseError(std::string(200000, '[') + std::string(200000, ']')),
            "json: cannot unmarshal array into Go value of type extension.ReservationAffinity");
}

TEST(ParseReservationAffinity, WrongTypesGiveGoUnmarshalTypeErrors) {
  EXPECT_EQ(ParseError("[1]"),
            "json: cannot unmarshal array into Go value of type extension.ReservationAffinity");
  EXPECT_EQ(ParseError(R"({"reservationSelector": 3})"),
            "json: cannot unmarshal number into Go struct field ReservationAffinity.reservationSelector of type "
            "map[string]string");
  EXPECT_EQ(ParseError(R"({"reservationSelector": {"pool": true}})"),
            "json: cannot unmarshal bool into Go struct field ReservationAffinity.reservationSelector of type string");
  EXPECT_EQ(ParseError(R"({"name": ["r1"]})"),
            "json: cannot unmarshal array into Go struct field ReservationAffinity.name of type string");
  EXPECT_EQ(ParseError(R"({"requiredDuringSchedulingIgnoredDuringExecution": {"reservationSelectorTerms": {}}})"),
            "json: cannot unmarshal object into Go struct field "
            "ReservationAffinity.requiredDuringSchedulingIgnoredDuringExecution.reservationSelectorTerms of type "
            "[]v1.NodeSelectorTerm");
  EXPECT_EQ(ParseError(R"({"requiredDuringSchedulingIgnoredDuringExecution": {"reservationSelectorTerms":
              [{"matchExpressions": [{"key": "a", "operator": 7}]}]}})"),
            "json: cannot unmarshal number into Go struct field "
            "ReservationAffinity.requiredDuringSchedulingIgnoredDuringExecution.reservationSelectorTerms."
            "matchExpressions.operator of type v1.NodeSelectorOperator");
  EXPECT_EQ(ParseError(R"({"tolerations": [{"key": "k", "tolerationSeconds": 1.5}]})"),
            "json: cannot unmarshal number 1.5 into Go struct field ReservationAffinity.tolerations.tolerationSeconds "
            "of type int64");
  EXPECT_EQ(ParseError(R"({"tolerations": "all"})"),
            "json: cannot unmarshal string into Go struct field ReservationAffinity.tolerations of type "
            "[]v1.Toleration");
}

std::string Terms(std::string_view requirements, std::string_view list = "matchExpressions") {
  return R"({"requiredDuringSchedulingIgnoredDuringExecution": {"reservationSelectorTerms": [{")" +
         std::string(list) + R"(": [)" + std::string(requirements) + "]}]}}";
}

TEST(ParseReservationAffinity, UnknownOperatorIsRejectedLikeNodeAffinity) {
  EXPECT_EQ(ParseError(Terms(R"({"key": "a", "operator": "Foo", "values": ["x"]})")),
            R"(nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Foo")");
  EXPECT_EQ(ParseError(Terms(R"({"key": "metadata.name", "operator": "Exists", "values": ["x"]})", "matchFields")),
            R"(nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn")");
}

TEST(ParseReservationAffinity, ValueCountsMustSuitTheOperator) {
  EXPECT_EQ(ParseError(Terms(R"({"key": "a", "operator": "In"})")),
            "nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string(nil): "
            "for 'in', 'notin' operators, values set can't be empty");
  EXPECT_EQ(ParseError(Terms(R"({"key": "a", "operator": "NotIn", "values": []})")),
            "nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string{}: "
            "for 'in', 'notin' operators, values set can't be empty");
  EXPECT_EQ(ParseError(Terms(R"({"key": "a", "operator": "Exists", "values": ["x"]})")),
            "nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string{\"x\"}: "
            "values set must be empty for exists and does not exist");
  EXPECT_EQ(ParseError(Terms(R"({"key": "a", "operator": "Gt", "values": ["ten"]})")),
            "nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"ten\": "
            "for 'Gt', 'Lt' operators, the value must be an integer");
  EXPECT_EQ(ParseError(Terms(R"({"key": "metadata.name", "operator": "In", "values": ["a", "b"]})", "matchFields")),
            "nodeSelectorTerms[0].matchFields[0].values: Invalid value: []string{\"a\", \"b\"}: must have one element");
  EXPECT_EQ(ParseError(Terms(R"({"key": "a", "operator": "Lt", "values": ["1", "2"]}, {"key": "b", "operator": "X"})")),
            "[nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string{\"1\", \"2\"}: "
            "for 'Gt', 'Lt' operators, exactly one value is required, "
            "nodeSelectorTerms[0].matchExpressions[1].operator: Unsupported value: \"X\"]");
}

// ---- Matching ------------------------------------------------------------------------------

TEST(MatchesReservationAffinity, SelectorPairsMustAllEqualTheReservationsLabels) {
  ReservationAffinity a = *ParseReservationAffinity(R"({"reservationSelector": {"pool": "a", "tier": "gold"}})");
  EXPECT_TRUE(MatchesReservationAffinity(a, Reservation("r", "n1", 1, {{"pool", "a"}, {"tier", "gold"}}), {}));
  EXPECT_FALSE(MatchesReservationAffinity(a, Reservation("r", "n1", 1, {{"pool", "a"}}), {}));
  EXPECT_FALSE(MatchesReservationAffinity(a, Reservation("r", "n1", 1, {{"pool", "b"}, {"tier", "gold"}}), {}));
}

TEST(MatchesReservationAffinity, ReservationLabelsOverlayTheirNodesLabels) {
  ReservationAffinity a = *ParseReservationAffinity(R"({"reservationSelector": {"zone": "z1"}})");
  EXPECT_TRUE(MatchesReservationAffinity(a, Reservation("r", "n1", 1), {{"zone", "z1"}}));
  EXPECT_FALSE(MatchesReservationAffinity(a, Reservation("r", "n1", 1, {{"zone", "z2"}}), {{"zone", "z1"}}));
}

TEST(MatchesReservationAffinity, RequiredTermsAreOredAndMatchFieldsSeeTheReservationName) {
  ReservationAffinity a = *ParseReservationAffinity(Terms(
      R"({"key": "tier", "operator": "In", "values": ["gold"]}]}, {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["special"]})"));
  EXPECT_TRUE(MatchesReservationAffinity(a, Reservation("r", "n1", 1, {{"tier", "gold"}}), {}));
  EXPECT_TRUE(MatchesReservationAffinity(a, Reservation("special", "n1", 1), {}));
  EXPECT_FALSE(MatchesReservationAffinity(a, Reservation("r", "n1", 1, {{"tier", "bronze"}}), {}));
  ReservationAffinity none =
      *ParseReservationAffinity(R"({"requiredDuringSchedulingIgnoredDuringExecution": {}})");
  EXPECT_FALSE(MatchesReservationAffinity(none, Reservation("r", "n1", 1), {}));
}

TEST(MatchesReservationAffinity, ANameSelectsOnlyThatReservationAndOverridesTheRest) {
  ReservationAffinity a = *ParseReservationAffinity(R"({"name": "r2", "reservationSelector": {"pool": "x"}})");
  EXPECT_TRUE(MatchesReservationAffinity(a, Reservation("r2", "n1", 1), {}));
  EXPECT_FALSE(MatchesReservationAffinity(a, Reservation("r1", "n1", 1, {{"pool", "x"}}), {}));
}

TEST(ReservationOrder, ReadsTheLabelAsAnIntegerAndZeroOtherwise) {
  EXPECT_EQ(ReservationOrder({{std::string(kLabelReservationOrder), "7"}}), 7);
  EXPECT_EQ(ReservationOrder({{std::string(kLabelReservationOrder), "-3"}}), -3);
  EXPECT_EQ(ReservationOrder({{std::string(kLabelReservationOrder), "high"}}), 0);
  EXPECT_EQ(ReservationOrder({{std::string(kLabelReservationOrder), ""}}), 0);
  EXPECT_EQ(ReservationOrder({}), 0);
}

TEST(CanAllocate, WithAnAffinityTheAffinitysTolerationsDecideTheReservationTaints) {
  ReservationView r = Reservation("r", "n1", 1);
  r.taints = {{"dedicated", "ml", "NoSchedule"}};
  PodSpecView plain = Pod("p", 100);
  EXPECT_FALSE(CanAllocate(plain, r, false));
  PodSpecView tolerating = Pod("p", 100, R"({"tolerations": [{"key": "dedicated", "operator": "Exists"}]})");
  EXPECT_TRUE(CanAllocate(tolerating, r, false));
  // The pod's own tolerations do not count once it has an affinity.
  PodSpecView own = Pod("p", 100, "{}");
  own.tolerations = {{"dedicated", "Exists", "", ""}};
  EXPECT_FALSE(CanAllocate(own, r, false));
  std::string key;
  EXPECT_EQ(ClassifyForAffinity(own.reservation_affinity.get(), own.tolerations, r, {}, &key),
            AffinityOutcome::kTaint);
  EXPECT_EQ(key, "{dedicated: ml}");
}

// Issue 13 / koordinator PR #2796: a paused reservation takes a pod whose reservation-affinity
// tolerations tolerate node.kubernetes.io/unschedulable:NoSchedule, and only such a pod.
TEST(CanAllocate, AnAffinityTolerationOfUnschedulableOpensAPausedReservation) {
  ReservationView r = Reservation("r", "n1", 1);
  r.unschedulable = true;
  EXPECT_FALSE(CanAllocate(Pod("p", 100), r, false));
  EXPECT_FALSE(CanAllocate(Pod("p", 100, "{}"), r, false));
  EXPECT_TRUE(CanAllocate(
      Pod("p", 100, R"({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                        "effect": "NoSchedule"}]})"),
      r, false));
  EXPECT_TRUE(CanAllocate(Pod("p", 100, R"({"tolerations": [{"operator": "Exists"}]})"), r, false));
  // Wrong effect or key: still paused.
  EXPECT_FALSE(CanAllocate(
      Pod("p", 100, R"({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                        "effect": "NoExecute"}]})"),
      r, false));
  EXPECT_FALSE(CanAllocate(Pod("p", 100, R"({"tolerations": [{"key": "other", "operator": "Exists"}]})"), r, false));
  // The pod's own toleration (a DaemonSet's for cordoned nodes) does not open it.
  PodSpecView own = Pod("p", 100);
  own.tolerations = {{"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"}};
  EXPECT_FALSE(CanAllocate(own, r, false));
  // The toleration does not lift the reservation's own taints.
  r.taints = {{"dedicated", "ml", "NoSchedule"}};
  EXPECT_FALSE(CanAllocate(
      Pod("p", 100, R"({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]})"),
      r, false));
}

TEST(ScheduleWithAffinity, ATolerantOwnerIsPlacedIntoAPausedReservation) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  ReservationView r = Reservation("r", "n1", 2);
  r.unschedulable = true;
  snap.UpsertReservation(r);
  PodDecision refused = snap.SchedulePod(Pod("p", 500, "{}"));
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().Message().find("1 Reservation(s) is unschedulable"), std::string::npos)
      << refused.error().Message();
  PodDecision placed = snap.SchedulePod(
      Pod("p", 500, R"({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]})"));
  ASSERT_TRUE(placed.has_value()) << placed.error().Message();
  ASSERT_TRUE(placed->reservation.has_value());
  EXPECT_EQ(placed->reservation->name, "r");
}

TEST(CanAllocate, ANamedReservationIsUsableEvenWhenUnschedulableOrTainted) {
  ReservationView r = Reservation("r", "n1", 1);
  r.unschedulable = true;
  r.taints = {{"dedicated", "ml", "NoSchedule"}};
  EXPECT_TRUE(CanAllocate(Pod("p", 100, R"({"name": "r"})"), r, false));
  EXPECT_FALSE(CanAllocate(Pod("p", 100, R"({"name": "other"})"), r, false));
  EXPECT_FALSE(CanAllocate(Pod("p", 100, "{}"), r, false));
}

TEST(PostFilterReasons, UseTheReservationPluginsWordingAndOrder) {
  AffinityDiagnosis d;
  d.Add(AffinityOutcome::kAffinityUnmatched, "");
  d.Add(AffinityOutcome::kAffinityUnmatched, "");
  d.Add(AffinityOutcome::kUnschedulable, "");
  d.Add(AffinityOutcome::kTaint, "{a: b}");
  d.Add(AffinityOutcome::kMatched, "");
  EXPECT_EQ(PostFilterReasons(d),
            (std::vector<std::string>{"2 Reservation(s) didn't match affinity rules",
                                      "1 Reservation(s) is unschedulable",
                                      "1 Reservation(s) had untolerated taint {a: b}",
                                      "5 Reservation(s) matched owner total"}));
}

// ---- Scheduling ----------------------------------------------------------------------------

TEST(ScheduleWithAffinity, ThePodUsesOnlyTheReservationItsSelectorPicks) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertNode(Node("n2", 8));
  snap.UpsertReservation(Reservation("ra", "n1", 2, {{"pool", "a"}}));
  snap.UpsertReservation(Reservation("rb", "n2", 2, {{"pool", "b"}}));
  for (std::string pool : {"a", "b"}) {
    PodDecision d = snap.SchedulePod(Pod("p", kCore, R"({"reservationSelector": {"pool": ")" + pool + R"("}})"));
    ASSERT_TRUE(d.has_value());
    ASSERT_TRUE(d->reservation.has_value());
    EXPECT_EQ(d->reservation->name, "r" + pool);
    EXPECT_EQ(d->node_name, pool == "a" ? "n1" : "n2");
  }
}

TEST(ScheduleWithAffinity, NoMatchingReservationMakesThePodUnschedulableWithKoordinatorsWording) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertNode(Node("n2", 8));
  snap.UpsertReservation(Reservation("ra", "n1", 2, {{"pool", "a"}}));
  snap.UpsertReservation(Reservation("rb", "n1", 2, {{"pool", "b"}}));
  PodDecision d = snap.SchedulePod(Pod("p", kCore, R"({"reservationSelector": {"pool": "c"}})"));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "0/2 nodes are available: node(s) no reservations match reservation affinity. "
            "2 Reservation(s) didn't match affinity rules, 2 Reservation(s) matched owner total.");
  // Without the annotation the same pod runs on free capacity.
  EXPECT_TRUE(snap.SchedulePod(Pod("p", kCore)).has_value());
}

TEST(ScheduleWithAffinity, TheDiagnosisCountsEveryReservationOwningThePodWhateverTheOwnerKind) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertReservation(Reservation("by-label", "n1", 1, {{"pool", "a"}}));
  ReservationView by_name = Reservation("by-name", "n1", 1, {{"pool", "a"}});
  ReservationOwner object;
  object.object = ObjectOwner{};
  object.object->namespace_name = "default";
  object.object->name = "p";
  by_name.owners = {object};
  snap.UpsertReservation(by_name);
  ReservationView stranger = Reservation("for-others", "n1", 1, {{"pool", "a"}});
  stranger.owners[0].label_selector = *shim::LabelSelector::Parse("app=other");
  snap.UpsertReservation(stranger);
  PodDecision d = snap.SchedulePod(Pod("p", kCore, R"({"reservationSelector": {"pool": "c"}})"));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "0/1 nodes are available: node(s) no reservations match reservation affinity. "
            "2 Reservation(s) didn't match affinity rules, 2 Reservation(s) matched owner total.");
}

TEST(ScheduleWithAffinity, NodesWithoutAMatchingReservationFailOnAffinity) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertNode(Node("n2", 8));
  snap.UpsertReservation(Reservation("ra", "n1", 1, {{"pool", "a"}}));
  ReservationView rb = Reservation("rb", "n2", 1, {{"pool", "b"}});
  rb.allocate_policy = AllocatePolicy::kRestricted;
  snap.UpsertReservation(rb);
  // rb matches but is Restricted and too small; n1 has nothing the affinity selects.
  PodDecision d = snap.SchedulePod(Pod("p", 2 * kCore, R"({"reservationSelector": {"pool": "b"}})"));
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "0/2 nodes are available: 1 node(s) no reservations match reservation affinity, "
            "1 node(s) reservations insufficient resources. "
            "1 Reservation(s) didn't match affinity rules, 2 Reservation(s) matched owner total.");
}

TEST(ScheduleWithAffinity, AnEmptyAffinityStillRequiresAReservationEvenOneThePodTakesNothingFrom) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  ReservationView r = Reservation("r", "n1", 0);
  r.allocatable = {{"memory", kGi}};
  snap.UpsertReservation(r);
  PodDecision plain = snap.SchedulePod(Pod("p", kCore));
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->reservation.has_value());
  PodDecision required = snap.SchedulePod(Pod("p", kCore, ""));
  ASSERT_TRUE(required.has_value());
  ASSERT_TRUE(required->reservation.has_value());
  EXPECT_EQ(required->reservation->name, "r");
  EXPECT_TRUE(required->from_reservation.empty());
  // A stranger (no owner match) with an affinity has nothing to use.
  PodSpecView stranger = Pod("s", kCore, "{}");
  stranger.labels = {{"app", "other"}};
  PodDecision d = snap.SchedulePod(stranger);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "0/1 nodes are available: node(s) no reservations match reservation affinity. "
            "0 Reservation(s) matched owner total.");
}

TEST(ScheduleWithAffinity, AMalformedAnnotationMakesThePodUnschedulableWithTheParseError) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  PodSpecView pod = Pod("p", kCore);
  pod.reservation_affinity_error = ParseError(R"({"reservationSelector": 3})");
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().Message(),
            "invalid annotation scheduling.koordinator.sh/reservation-affinity: json: cannot unmarshal number into "
            "Go struct field ReservationAffinity.reservationSelector of type map[string]string");
}

TEST(ReservationOrderPreference, TheLowestNonZeroOrderWinsOnANodeAndAcrossNodes) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 8));
  snap.UpsertNode(Node("n2", 8));
  // Without orders the pod would pick "big-n1" on n1 (most allocated would be the small one).
  snap.UpsertReservation(Reservation("small-n1", "n1", 1));
  snap.UpsertReservation(Reservation("big-n1", "n1", 4, {{std::string(kLabelReservationOrder), "5"}}));
  snap.UpsertReservation(Reservation("big-n2", "n2", 4, {{std::string(kLabelReservationOrder), "2"}}));
  PodDecision d = snap.SchedulePod(Pod("p", kCore));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reservation->name, "big-n2");
  snap.RemoveReservation("big-n2-uid");
  d = snap.SchedulePod(Pod("p", kCore));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reservation->name, "big-n1");
  // Order 0 means no preference: the capacity score decides again.
  snap.UpsertReservation(Reservation("big-n1", "n1", 4, {{std::string(kLabelReservationOrder), "0"}}));
  d = snap.SchedulePod(Pod("p", kCore));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reservation->name, "small-n1");
}

TEST(ReservationIgnored, ThePodUsesNoReservationButMayTakeWhatReservationsHoldUnallocated) {
  ClusterSnapshot snap;
  snap.UpsertNode(Node("n1", 4));
  snap.UpsertReservation(Reservation("r", "n1", 4));
  PodSpecView pod = Pod("p", kCore);
  pod.reservation_ignored = true;
  PodDecision d = snap.SchedulePod(pod);
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->reservation.has_value());
  EXPECT_EQ(d->from_node.at("cpu"), kCore);
  // More than the node has, held or not, still fails with the node's reason.
  PodSpecView big = Pod("big", 5 * kCore);
  big.reservation_ignored = true;
  PodDecision fail = snap.SchedulePod(big);
  ASSERT_FALSE(fail.has_value());
  EXPECT_EQ(fail.error().Message(), "0/1 nodes are available: 1 Insufficient cpu.");
  // An ignored pod's affinity does not make a reservation required.
  PodSpecView both = Pod("both", kCore, R"({"reservationSelector": {"pool": "none"}})");
  both.reservation_ignored = true;
  EXPECT_TRUE(snap.SchedulePod(both).has_value());
}

// What an ignored pod takes from a reservation's hold leaves the node short: neither an Aligned
// nor a Restricted reservation may then hand out its whole remainder (the node would be
// overcommitted), only what the node can still back.
TEST(ReservationIgnored, CapacityAnIgnoredPodTakesFromAHoldIsNotHandedOutAgain) {
  for (AllocatePolicy policy : {AllocatePolicy::kAligned, AllocatePolicy::kRestricted}) {
    ClusterSnapshot snap;
    snap.UpsertNode(Node("n1", 4));
    ReservationView r = Reservation("r", "n1", 4);
    r.allocate_policy = policy;
    snap.UpsertReservation(r);
    PodSpecView ignored = Pod("ignored", kCore);
    ignored.reservation_ignored = true;
    PodDecision d = snap.SchedulePod(ignored);
    ASSERT_TRUE(d.has_value());
    ASSERT_TRUE(snap.AssumePod(ignored, *d).has_value());
    PodDecision whole = snap.SchedulePod(Pod("owner-4", 4 * kCore));
    ASSERT_FALSE(whole.has_value()) << "policy " << static_cast<int>(policy);
    EXPECT_EQ(whole.error().Message(), "0/1 nodes are available: 1 node(s) reservations insufficient resources.");
    PodDecision rest = snap.SchedulePod(Pod("owner-3", 3 * kCore));
    ASSERT_TRUE(rest.has_value()) << "policy " << static_cast<int>(policy);
    EXPECT_EQ(rest->reservation->name, "r");
  }
}

}  // namespace
}  // namespace berth::reconcile::placement
