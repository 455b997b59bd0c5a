// Tests for reconcile/provisioning/check_capacity.h: every condition transition with upstream's
// reasons and messages, the timers as exact requeues, backoff, and serial booking.
#include "reconcile/provisioning/check_capacity.h"

#include <gtest/gtest.h>

#include "reconcile/provisioning/conditions.h"

namespace berth::reconcile::provisioning {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr int64_t kCore = 1000;
const Time kT0 = Time{} + hours(24 * 365 * 50);

placement::NodeView Node(std::string name, int64_t cores, int64_t pods = 110) {
  placement::NodeView n;
  n.name = std::move(name);
  n.allocatable = {{"cpu", cores * kCore}, {"memory", int64_t{64} << 40}, {"pods", pods * 1000}};
  return n;
}

PodTemplateView Template(std::string name, int64_t milli_cpu) {
  PodTemplateView t;
  t.namespace_name = "team";
  t.name = std::move(name);
  t.containers.push_back({{{"cpu", milli_cpu}}, {}});
  return t;
}

ProvisioningRequestView Request(std::string name, std::vector<PodSetRef> sets, Time created = kT0) {
  ProvisioningRequestView r;
  r.namespace_name = "team";
  r.name = name;
  r.uid = "uid-" + name;
  r.generation = 1;
  r.creation_time = created;
  r.class_name = std::string(kClassCheckCapacity);
  r.pod_sets = std::move(sets);
  return r;
}

struct Fixture {
  placement::ClusterSnapshot snapshot;
  std::vector<PodTemplateView> templates = {Template("one-cpu", kCore), Template("two-cpu", 2 * kCore)};
  std::map<std::string, bool> nodes;  // name → unschedulable
  ProvisioningOptions options;
  PassInput input;

  Fixture() {
    AddNode(Node("n1", 4));
    AddNode(Node("n2", 4));
    input.template_lookup = [this](std::string_view ns, std::string_view name) -> const PodTemplateView* {
      for (const PodTemplateView& t : templates) {
        if (t.namespace_name == ns && t.name == name) return &t;
      }
      return nullptr;
    };
    input.node_unschedulable = [this](std::string_view node) -> std::optional<bool> {
      auto it = nodes.find(std::string(node));
      if (it == nodes.end()) return std::nullopt;
      return it->second;
    };
  }
  void AddNode(const placement::NodeView& n) {
    snapshot.UpsertNode(n);
    nodes[n.name] = n.unschedulable;
  }
  std::vector<RequestDecision> Pass(std::vector<ProvisioningRequestView> requests, Time now) {
    input.requests = std::move(requests);
    return DecidePass(input, snapshot, now, options);
  }
  RequestDecision One(const ProvisioningRequestView& r, Time now) {
    auto out = Pass({r}, now);
    EXPECT_EQ(out.size(), 1u);
    return out.front();
  }
};

// Applied: the request as the next pass sees it after the decision was written.
ProvisioningRequestView Applied(ProvisioningRequestView r, const RequestDecision& d) {
  if (d.conditions) r.conditions = *d.conditions;
  if (!d.book.empty()) {
    r.booking = d.book;
    for (size_t i = 0; i < r.booking.size(); ++i) r.booking[i].reservation_name = "b" + std::to_string(i);
  }
  if (d.release_booking) r.booking.clear();
  return r;
}

const Condition& Cond(const RequestDecision& d, std::string_view type) {
  static const Condition kNone;
  if (!d.conditions) return kNone;
  const Condition* c = FindCondition(*d.conditions, type);
  return c ? *c : kNone;
}

TEST(CheckCapacity, FitIsAcceptedAndProvisionedWithUpstreamStringsAndABooking) {
  Fixture f;
  RequestDecision d = f.One(Request("job", {{"one-cpu", 6}}), kT0);
  ASSERT_TRUE(d.conditions.has_value());
  const Condition& accepted = Cond(d, kConditionAccepted);
  EXPECT_EQ(accepted.status, "True");
  EXPECT_EQ(accepted.reason, "Accepted");
  EXPECT_EQ(accepted.message, "ProvisioningRequest is accepted by ClusterAutoscaler");
  EXPECT_EQ(accepted.observed_generation, 1);
  const Condition& provisioned = Cond(d, kConditionProvisioned);
  EXPECT_EQ(provisioned.status, "True");
  EXPECT_EQ(provisioned.reason, "CapacityIsFound");
  EXPECT_EQ(provisioned.message, "Capacity is found in the cluster");
  EXPECT_EQ(provisioned.last_transition_time, kT0);
  EXPECT_EQ(d.state, RequestState::kProvisioned);
  EXPECT_TRUE(d.checked);
  // 6 pods of 1 cpu on two 4-cpu nodes: the hint fills one node, then the other: 4 + 2.
  ASSERT_EQ(d.book.size(), 2u);
  int64_t cpu = 0, pods = 0;
  for (const BookedSlice& s : d.book) {
    cpu += s.resources.at("cpu");
    pods += s.pods;
  }
  EXPECT_EQ(cpu, 6 * kCore);
  EXPECT_EQ(pods, 6);
  EXPECT_EQ(d.book[0].pods + d.book[1].pods, 6);
  EXPECT_EQ(std::max(d.book[0].pods, d.book[1].pods), 4) << "packed, not spread";
  EXPECT_EQ(d.requeue_after, Duration(minutes(10)));
  ASSERT_EQ(d.events.size(), 2u);
  EXPECT_EQ(d.events[0].reason, "Accepted");
  EXPECT_EQ(d.events[1].reason, "CapacityIsFound");
}

TEST(CheckCapacity, NoFitIsCapacityIsNotFoundNamingPodSetCountAndSchedulerReasons) {
  Fixture f;
  RequestDecision d = f.One(Request("job", {{"one-cpu", 2}, {"two-cpu", 5}}), kT0);
  const Condition& provisioned = Cond(d, kConditionProvisioned);
  EXPECT_EQ(provisioned.status, "False");
  EXPECT_EQ(provisioned.reason, "CapacityIsNotFound");
  // Hinting packs: both 1-cpu pods and one 2-cpu pod fill n1, two more 2-cpu pods fill n2:
  // 3 of the 2-cpu pods placed, 2 of 5 did not fit.
  EXPECT_EQ(provisioned.message,
            "Capacity is not found, CA will try to find it later. podSet 1 (podTemplate \"two-cpu\"): 2 of 5 "
            "pods did not fit: 0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_TRUE(d.book.empty());
  EXPECT_EQ(d.state, RequestState::kAccepted);
  EXPECT_EQ(d.requeue_after, Duration(minutes(1)));
  // Nothing stays assumed: the whole cluster is free for the next request.
  EXPECT_EQ(f.snapshot.Usage("n1")->requested.count("cpu"), 0u);
  EXPECT_EQ(f.snapshot.Usage("n2")->requested.count("cpu"), 0u);
}

TEST(CheckCapacity, BackoffDoublesFromOneMinuteToTenAndWaitsExactly) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 100}});
  Time now = kT0;
  std::vector<Duration> waits;
  for (int i = 0; i < 6; ++i) {
    RequestDecision d = f.One(r, now);
    ASSERT_TRUE(d.checked) << i;
    ASSERT_TRUE(d.requeue_after.has_value());
    waits.push_back(*d.requeue_after);
    f.input.backoff[r.uid] = d.backoff;
    r = Applied(r, d);
    // Just before the next attempt: no check, requeue for the rest of the wait.
    RequestDecision early = f.One(r, now + *d.requeue_after - seconds(1));
    EXPECT_FALSE(early.checked);
    EXPECT_EQ(early.requeue_after, Duration(seconds(1)));
    EXPECT_FALSE(early.conditions.has_value());
    now += *d.requeue_after;
  }
  EXPECT_EQ(waits, (std::vector<Duration>{minutes(1), minutes(2), minutes(4), minutes(8), minutes(10), minutes(10)}));
}

TEST(CheckCapacity, LastTransitionTimeMovesOnlyWhenStatusChanges) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  RequestDecision first = f.One(r, kT0);
  r = Applied(r, first);
  EXPECT_EQ(Cond(first, kConditionProvisioned).last_transition_time, kT0);
  f.input.capacity_freed = true;  // re-check at once, still no room
  RequestDecision again = f.One(r, kT0 + seconds(30));
  EXPECT_TRUE(again.checked);
  EXPECT_FALSE(again.conditions.has_value()) << "same status, reason and message: nothing to write";
  EXPECT_TRUE(again.events.empty());
  // A third node makes it fit: status False → True moves lastTransitionTime.
  f.AddNode(Node("n3", 4));
  RequestDecision fits = f.One(r, kT0 + seconds(40));
  EXPECT_EQ(Cond(fits, kConditionProvisioned).status, "True");
  EXPECT_EQ(Cond(fits, kConditionProvisioned).last_transition_time, kT0 + seconds(40));
  EXPECT_EQ(Cond(fits, kConditionAccepted).last_transition_time, kT0) << "Accepted did not change";
}

TEST(CheckCapacity, MessageChangeKeepsLastTransitionTimeAndRaisesNoEvent) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  r = Applied(r, f.One(r, kT0));
  f.AddNode(Node("n3", 0));  // one more node that cannot help: the summary now says 0/3
  f.input.capacity_freed = true;
  RequestDecision d = f.One(r, kT0 + seconds(5));
  ASSERT_TRUE(d.conditions.has_value());
  const Condition& c = Cond(d, kConditionProvisioned);
  EXPECT_NE(c.message.find("0/3 nodes are available"), std::string::npos) << c.message;
  EXPECT_EQ(c.last_transition_time, kT0);
  EXPECT_TRUE(d.events.empty());
}

TEST(CheckCapacity, CapacityFreedRetriesAtOnceAndKeepsTheBackoffLength) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  RequestDecision d = f.One(r, kT0);
  f.input.backoff[r.uid] = d.backoff;
  r = Applied(r, d);
  EXPECT_FALSE(f.One(r, kT0 + seconds(1)).checked);
  f.input.capacity_freed = true;
  RequestDecision retried = f.One(r, kT0 + seconds(2));
  EXPECT_TRUE(retried.checked);
  EXPECT_EQ(retried.requeue_after, Duration(minutes(2))) << "the second failure waits 2 minutes";
}

TEST(CheckCapacity, NoRetryFailsWithUpstreamsMessage) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  r.parameters["noRetry"] = "true";
  RequestDecision d = f.One(r, kT0);
  const Condition& failed = Cond(d, kConditionFailed);
  EXPECT_EQ(failed.status, "True");
  EXPECT_EQ(failed.reason, "CapacityIsNotFound");
  EXPECT_EQ(failed.message,
            "CA could not find requested capacity: podSet 0 (podTemplate \"one-cpu\"): 1 of 9 pods did not "
            "fit: 0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_EQ(FindCondition(*d.conditions, kConditionProvisioned), nullptr);
  EXPECT_EQ(d.state, RequestState::kFailed);
  EXPECT_EQ(d.requeue_after, Duration(hours(24 * 7))) << "deleted 7 days after failing";
  ASSERT_FALSE(d.events.empty());
  EXPECT_EQ(d.events.back().type, "Warning");
}

// More pods than the cluster has pod slots: no retry can help, so it fails at once with
// upstream's terminal reason and message, naming the field; the request after it is unaffected.
TEST(CheckCapacity, ACountOverTheClustersPodSlotsFailsNamingTheField) {
  Fixture f;  // two nodes of 110 pods
  ProvisioningRequestView huge = Request("huge", {{"one-cpu", 1}, {"one-cpu", 221}});
  ProvisioningRequestView after = Request("after", {{"one-cpu", 8}}, kT0 + seconds(1));
  auto out = f.Pass({huge, after}, kT0);
  ASSERT_EQ(out.size(), 2u);
  const Condition& failed = Cond(out[0], kConditionFailed);
  EXPECT_EQ(failed.status, "True");
  EXPECT_EQ(failed.reason, "CapacityIsNotFound");
  EXPECT_EQ(failed.message,
            "CA could not find requested capacity: spec.podSets[1].count: 221 pods of podTemplate \"one-cpu\" can "
            "never fit: the cluster's 2 node(s) have 220 pod slots in all");
  EXPECT_EQ(FindCondition(*out[0].conditions, kConditionProvisioned), nullptr);
  EXPECT_EQ(out[0].state, RequestState::kFailed);
  EXPECT_TRUE(out[0].book.empty());
  ASSERT_FALSE(out[0].events.empty());
  EXPECT_EQ(out[0].events.back().type, "Warning");
  // Its pods placed before the check failed were forgotten: all 8 cpus are there for "after".
  EXPECT_EQ(Cond(out[1], kConditionProvisioned).reason, "CapacityIsFound");

  // At the pod slots exactly, it only does not fit now: retried.
  Fixture g;
  RequestDecision d = g.One(Request("full", {{"one-cpu", 220}}), kT0);
  EXPECT_EQ(Cond(d, kConditionProvisioned).reason, "CapacityIsNotFound");
  EXPECT_EQ(FindCondition(*d.conditions, kConditionFailed), nullptr);
}

TEST(CheckCapacity, NoRetryOtherThanTrueKeepsRetrying) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  r.parameters["noRetry"] = "yes";
  RequestDecision d = f.One(r, kT0);
  EXPECT_EQ(Cond(d, kConditionProvisioned).reason, "CapacityIsNotFound");
  EXPECT_EQ(FindCondition(*d.conditions, kConditionFailed), nullptr);
  // Ignored as upstream ignores it (it logs), but not silently: the message says so.
  EXPECT_NE(Cond(d, kConditionProvisioned).message.find(
                "parameters.noRetry \"yes\" is neither \"true\" nor \"false\": ignored, so the check is retried"),
            std::string::npos)
      << Cond(d, kConditionProvisioned).message;
  r.parameters["noRetry"] = "false";
  EXPECT_EQ(Cond(f.One(r, kT0), kConditionProvisioned).message.find("noRetry"), std::string::npos);
}

TEST(CheckCapacity, MissingTemplateWaitsForTheGraceThenFailsToCreatePods) {
  Fixture f;
  f.options.template_grace = seconds(15);
  ProvisioningRequestView r = Request("job", {{"later", 1}, {"one-cpu", 1}});
  RequestDecision waiting = f.One(r, kT0 + seconds(5));
  EXPECT_FALSE(waiting.checked);
  EXPECT_EQ(waiting.requeue_after, Duration(seconds(10)));
  EXPECT_EQ(Cond(waiting, kConditionAccepted).status, "True");
  EXPECT_EQ(FindCondition(*waiting.conditions, kConditionFailed), nullptr);
  r = Applied(r, waiting);
  // The template shows up within the grace: checked as usual.
  f.templates.push_back(Template("later", kCore));
  EXPECT_EQ(Cond(f.One(r, kT0 + seconds(9)), kConditionProvisioned).status, "True");
  f.templates.pop_back();
  RequestDecision failed = f.One(r, kT0 + seconds(15));
  const Condition& c = Cond(failed, kConditionFailed);
  EXPECT_EQ(c.status, "True");
  EXPECT_EQ(c.reason, "FailedToCreatePods");
  EXPECT_EQ(c.message, "missing pod templates, 2 pod templates were referenced, 1 templates were missing: later");
}

TEST(CheckCapacity, TemplateWithoutContainersFailsNamingTheField) {
  Fixture f;
  PodTemplateView empty = Template("empty", 0);
  empty.containers.clear();
  f.templates.push_back(empty);
  RequestDecision d = f.One(Request("job", {{"empty", 1}}), kT0);
  const Condition& c = Cond(d, kConditionFailed);
  EXPECT_EQ(c.reason, "FailedToCreatePods");
  EXPECT_NE(c.message.find("podSets[0] (podTemplate \"empty\"): template.spec.containers is empty"),
            std::string::npos)
      << c.message;
}

TEST(CheckCapacity, ValidUntilSecondsThatIsNotANumberFailsNamingTheParameter) {
  Fixture f;
  for (std::string bad : {"soon", "-5", "1.5", "", "12e3", "9999999999999"}) {
    ProvisioningRequestView r = Request("job", {{"one-cpu", 1}});
    r.parameters["ValidUntilSeconds"] = bad;
    RequestDecision d = f.One(r, kT0);
    const Condition& c = Cond(d, kConditionFailed);
    EXPECT_EQ(c.status, "True") << bad;
    EXPECT_EQ(c.reason, "InvalidParameter") << bad;
    EXPECT_EQ(c.message, "parameters.ValidUntilSeconds: \"" + bad + "\" is not a whole number of seconds");
    EXPECT_TRUE(d.book.empty());
  }
}

TEST(CheckCapacity, SpecErrorsFailTheRequestWithTheirFields) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 1}});
  r.spec_errors = {"spec.podSets[0].count: must be a positive integer, got \"many\""};
  RequestDecision d = f.One(r, kT0);
  EXPECT_EQ(Cond(d, kConditionFailed).reason, "InvalidSpec");
  EXPECT_EQ(Cond(d, kConditionFailed).message, "spec.podSets[0].count: must be a positive integer, got \"many\"");
}

TEST(CheckCapacity, ValidUntilSecondsExpiresANotProvisionedRequest) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  r.parameters["ValidUntilSeconds"] = "300";
  RequestDecision d = f.One(r, kT0);
  f.input.backoff[r.uid] = d.backoff;
  r = Applied(r, d);
  EXPECT_EQ(d.requeue_after, Duration(minutes(1)));
  RequestDecision later = f.One(r, kT0 + minutes(4));
  f.input.backoff[r.uid] = later.backoff;
  r = Applied(r, later);
  EXPECT_EQ(later.requeue_after, Duration(minutes(1))) << "the ValidUntil deadline comes before the backoff";
  RequestDecision expired = f.One(r, kT0 + minutes(5));
  EXPECT_EQ(Cond(expired, kConditionFailed).reason, "Expired");
  EXPECT_EQ(Cond(expired, kConditionFailed).message, "ProvisioningRequest is expired");
}

TEST(CheckCapacity, PendingForSevenDaysFailsExpired) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}}, kT0);
  RequestDecision d = f.One(r, kT0 + hours(24 * 7));
  EXPECT_EQ(Cond(d, kConditionFailed).reason, "Expired");
  EXPECT_FALSE(d.checked);
}

TEST(CheckCapacity, BookingExpiresTenMinutesAfterProvisioned) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 2}});
  r = Applied(r, f.One(r, kT0));
  ASSERT_FALSE(r.booking.empty());
  RequestDecision before = f.One(r, kT0 + minutes(9));
  EXPECT_FALSE(before.conditions.has_value());
  EXPECT_EQ(before.requeue_after, Duration(minutes(1)));
  EXPECT_FALSE(before.release_booking);
  RequestDecision d = f.One(r, kT0 + minutes(10));
  const Condition& c = Cond(d, kConditionBookingExpired);
  EXPECT_EQ(c.status, "True");
  EXPECT_EQ(c.reason, "CapacityReservationTimeExpired");
  EXPECT_EQ(c.message, "Capacity reservation time is expired");
  EXPECT_TRUE(d.release_booking);
  EXPECT_EQ(d.state, RequestState::kBookingExpired);
  EXPECT_EQ(d.requeue_after, Duration(hours(24 * 7)));
}

TEST(CheckCapacity, ABookedRequestWhosePodTemplateIsDeletedFailsToBookCapacityAndReleasesIt) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 2}, {"two-cpu", 1}});
  r = Applied(r, f.One(r, kT0));
  ASSERT_FALSE(r.booking.empty());
  std::erase_if(f.templates, [](const PodTemplateView& t) { return t.name == "two-cpu"; });
  RequestDecision d = f.One(r, kT0 + minutes(1));
  const Condition& c = Cond(d, kConditionFailed);
  EXPECT_EQ(c.status, "True");
  EXPECT_EQ(c.reason, "FailedToBookCapacity");
  EXPECT_EQ(c.message,
            "Couldn't create pods, err: missing pod templates, 2 pod templates were referenced, 1 templates were "
            "missing: two-cpu");
  EXPECT_TRUE(d.release_booking);
  EXPECT_EQ(d.state, RequestState::kFailed);
  EXPECT_EQ(Cond(d, kConditionProvisioned).status, "True");  // as upstream: Failed is added, Provisioned stays
}

TEST(CheckCapacity, AConsumedOrExpiredBookingNeedsNoTemplate) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 2}});
  r = Applied(r, f.One(r, kT0));
  f.templates.clear();
  r.bound_consumers = 2;
  EXPECT_EQ(Cond(f.One(r, kT0 + minutes(1)), kConditionBookingExpired).reason, "CapacityBookingConsumed");
  r.bound_consumers = 0;
  EXPECT_EQ(Cond(f.One(r, kT0 + minutes(10)), kConditionBookingExpired).reason, "CapacityReservationTimeExpired");
}

TEST(CheckCapacity, BookingConsumedWhenEveryConsumerPodIsBound) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 2}, {"two-cpu", 1}});
  r = Applied(r, f.One(r, kT0));
  r.bound_consumers = 2;
  EXPECT_FALSE(f.One(r, kT0 + minutes(1)).conditions.has_value()) << "2 of 3 bound: still booked";
  r.bound_consumers = 3;
  RequestDecision d = f.One(r, kT0 + minutes(1));
  const Condition& c = Cond(d, kConditionBookingExpired);
  EXPECT_EQ(c.reason, "CapacityBookingConsumed");
  EXPECT_EQ(c.message, "Capacity booking consumed: all pods scheduled");
  EXPECT_TRUE(d.release_booking);
}

TEST(CheckCapacity, BookedNodeDeletedOrUnschedulableRevokesCapacity) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 2}});
  r = Applied(r, f.One(r, kT0));
  const std::string node = r.booking.front().node_name;
  f.nodes[node] = true;
  RequestDecision cordoned = f.One(r, kT0 + minutes(1));
  EXPECT_EQ(Cond(cordoned, kConditionCapacityRevoked).reason, "NodeUnschedulable");
  EXPECT_EQ(Cond(cordoned, kConditionCapacityRevoked).message,
            "node \"" + node + "\" holding booked capacity was marked unschedulable");
  EXPECT_TRUE(cordoned.release_booking);
  EXPECT_EQ(cordoned.state, RequestState::kCapacityRevoked);
  f.nodes.erase(node);
  RequestDecision deleted = f.One(r, kT0 + minutes(1));
  EXPECT_EQ(Cond(deleted, kConditionCapacityRevoked).reason, "NodeDeleted");
}

TEST(CheckCapacity, TerminalRequestsAreDeletedSevenDaysLaterAndNeverRechecked) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  r.parameters["noRetry"] = "true";
  r = Applied(r, f.One(r, kT0));
  f.AddNode(Node("n3", 100));
  RequestDecision d = f.One(r, kT0 + hours(1));
  EXPECT_FALSE(d.checked);
  EXPECT_FALSE(d.conditions.has_value());
  EXPECT_EQ(d.requeue_after, Duration(hours(24 * 7 - 1)));
  EXPECT_FALSE(d.delete_request);
  EXPECT_TRUE(f.One(r, kT0 + hours(24 * 7)).delete_request);
}

TEST(CheckCapacity, DeletingRequestReleasesItsBookingAndWritesNothing) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 2}});
  r = Applied(r, f.One(r, kT0));
  r.deleting = true;
  RequestDecision d = f.One(r, kT0 + seconds(1));
  EXPECT_TRUE(d.release_booking);
  EXPECT_FALSE(d.conditions.has_value());
}

TEST(CheckCapacity, ObservedGenerationFollowsTheRequest) {
  Fixture f;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 9}});
  r.generation = 4;
  RequestDecision d = f.One(r, kT0);
  for (const Condition& c : *d.conditions) EXPECT_EQ(c.observed_generation, 4) << c.type;
}

TEST(SerialBooking, TwoRequestsForMoreThanHalfTheCapacityOnlyTheOlderIsProvisioned) {
  Fixture f;  // 8 cpu in all
  ProvisioningRequestView older = Request("b-older", {{"one-cpu", 5}}, kT0);
  ProvisioningRequestView newer = Request("a-newer", {{"one-cpu", 5}}, kT0 + seconds(1));
  auto out = f.Pass({newer, older}, kT0 + seconds(2));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "b-older");
  EXPECT_EQ(Cond(out[0], kConditionProvisioned).status, "True");
  EXPECT_EQ(Cond(out[1], kConditionProvisioned).status, "False");
  EXPECT_NE(Cond(out[1], kConditionProvisioned).message.find("2 of 5 pods did not fit"), std::string::npos)
      << Cond(out[1], kConditionProvisioned).message;
}

TEST(SerialBooking, SameCreationTimeIsOrderedByUid) {
  Fixture f;
  ProvisioningRequestView x = Request("x", {{"one-cpu", 5}});
  ProvisioningRequestView y = Request("y", {{"one-cpu", 5}});
  x.uid = "2222";
  y.uid = "1111";
  auto out = f.Pass({x, y}, kT0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "y");
  EXPECT_EQ(Cond(out[0], kConditionProvisioned).status, "True");
  EXPECT_EQ(Cond(out[1], kConditionProvisioned).status, "False");
}

TEST(SerialBooking, ABookingReservationHoldsCapacityAgainstLaterRequests) {
  Fixture f;
  // An earlier request's booking, as the controller feeds it: a Reservation Available on n1
  // holding 3 cpu for team/first's consumers.
  placement::ReservationView booking;
  booking.name = "provreq-first";
  booking.uid = "res-1";
  booking.phase = Phase::kAvailable;
  booking.node_name = "n1";
  booking.allocatable = {{"cpu", 3 * kCore}};
  booking.allocate_once = false;
  booking.provisioning_request = "team/first";
  f.snapshot.UpsertReservation(booking);
  RequestDecision d = f.One(Request("second", {{"one-cpu", 6}}), kT0);
  EXPECT_EQ(Cond(d, kConditionProvisioned).status, "False") << "only 5 cpu are free";
  // The first request's consumer pods may use it; other pods may not.
  placement::PodSpecView consumer;
  consumer.namespace_name = "team";
  consumer.name = "c";
  consumer.uid = "c-uid";
  consumer.node_name = "";
  consumer.requests = {{"cpu", 3 * kCore}};
  consumer.consumes_provisioning_request = "team/first";
  auto placed = f.snapshot.SchedulePod(consumer);
  ASSERT_TRUE(placed.has_value());
  ASSERT_TRUE(placed->reservation.has_value());
  EXPECT_EQ(placed->reservation->name, "provreq-first");
  consumer.consumes_provisioning_request = "team/other";
  auto other = f.snapshot.SchedulePod(consumer);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->node_name, "n2");
  EXPECT_FALSE(other->reservation.has_value());
}

TEST(SerialBooking, StaleBookingOfAnUnprovisionedRequestDoesNotCountAgainstItself) {
  Fixture f;
  placement::ReservationView stale;
  stale.name = "provreq-job-n1";
  stale.uid = "res-stale";
  stale.phase = Phase::kAvailable;
  stale.node_name = "n1";
  stale.allocatable = {{"cpu", 4 * kCore}};
  stale.allocate_once = false;
  stale.provisioning_request = "team/job";
  f.snapshot.UpsertReservation(stale);
  ProvisioningRequestView r = Request("job", {{"one-cpu", 8}});
  r.booking = {{"provreq-job-n1", "res-stale", "n1", {{"cpu", 4 * kCore}}, 4}};
  RequestDecision d = f.One(r, kT0);
  EXPECT_EQ(Cond(d, kConditionProvisioned).status, "True");
  EXPECT_EQ(d.book.size(), 2u);
}

TEST(SerialBooking, TaintsAndSelectorsOfTheTemplateApply) {
  Fixture f;
  placement::NodeView tainted = Node("gpu-1", 16);
  tainted.taints = {{"gpu", "true", "NoSchedule"}};
  tainted.labels = {{"pool", "gpu"}};
  f.AddNode(tainted);
  PodTemplateView t = Template("gpu", 8 * kCore);
  t.pod.node_selector = {{"pool", "gpu"}};
  f.templates.push_back(t);
  RequestDecision d = f.One(Request("job", {{"gpu", 1}}), kT0);
  EXPECT_EQ(Cond(d, kConditionProvisioned).message,
            "Capacity is not found, CA will try to find it later. podSet 0 (podTemplate \"gpu\"): 1 of 1 pods did "
            "not fit: 0/3 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 2 node(s) didn't "
            "match Pod's node affinity/selector.");
  f.templates.back().pod.tolerations = {{"gpu", "Exists", "", ""}};
  RequestDecision fits = f.One(Request("job2", {{"gpu", 2}}), kT0);
  ASSERT_EQ(fits.book.size(), 1u);
  EXPECT_EQ(fits.book[0].node_name, "gpu-1");
}

class GrantingProvisioner : public Provisioner {
 public:
  explicit GrantingProvisioner(Fixture& f) : f_(f) {}
  ScaleUpOutcome Provision(const ProvisioningRequestView&, const std::vector<UnfitPodSet>& unfit,
                           const placement::ClusterSnapshot&, Time) override {
    unfit_ = unfit;
    f_.AddNode(Node("new-1", 8));
    return {ScaleUpOutcome::Kind::kProvisioned, "", std::nullopt};
  }
  std::vector<UnfitPodSet> unfit_;

 private:
  Fixture& f_;
};

TEST(ProvisionerInterface, UnfitPodsGoToTheClassProvisionerAndProvisionedMeansTheyFit) {
  Fixture f;
  GrantingProvisioner provisioner(f);
  f.input.provisioners[std::string(kClassBestEffortAtomicScaleUp)] = &provisioner;
  ProvisioningRequestView r = Request("job", {{"one-cpu", 12}});
  r.class_name = std::string(kClassBestEffortAtomicScaleUp);
  RequestDecision d = f.One(r, kT0);
  ASSERT_EQ(provisioner.unfit_.size(), 1u);
  EXPECT_EQ(provisioner.unfit_[0].count, 4) << "8 of 12 fit on the existing nodes";
  EXPECT_EQ(Cond(d, kConditionProvisioned).reason, "CapacityIsProvisioned");
  EXPECT_EQ(Cond(d, kConditionProvisioned).message, "Capacity is found in the cluster");
  // Re-simulated with the new 8-cpu node: it takes 8 pods (the emptiest node first, then the
  // hint keeps filling it), n1 or n2 the other 4.
  ASSERT_EQ(d.book.size(), 2u);
  EXPECT_EQ(d.book[0].pods + d.book[1].pods, 12);
}

}  // namespace
}  // namespace berth::reconcile::provisioning
