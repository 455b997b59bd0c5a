// pre_allocation_codec: preAllocationPolicy, candidate pods and the berth.dev/pre-allocated-pods
// record; malformed input is never fatal.
#include "controllers/scheduler/pre_allocation_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_test_parse.h"
#include "controllers/scheduler/scheduler_codec.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

using json::testing::Parse;

TEST(PreAllocationCodecTest, ThePolicyDefaultsToDefaultModeWithoutMultiple) {
  auto none = Parse(R"({"spec":{"preAllocation":true}})");
  EXPECT_EQ(ReadPreAllocationPolicy(none).mode, placement::PreAllocationMode::kDefault);
  EXPECT_FALSE(ReadPreAllocationPolicy(none).enable_multiple);
  EXPECT_TRUE(ReadPreAllocationEnabled(none));
  auto cluster = Parse(R"({"spec":{"preAllocation":true,"preAllocationPolicy":{"mode":"Cluster","enableMultiple":true}}})");
  EXPECT_EQ(ReadPreAllocationPolicy(cluster).mode, placement::PreAllocationMode::kCluster);
  EXPECT_TRUE(ReadPreAllocationPolicy(cluster).enable_multiple);
}

TEST(PreAllocationCodecTest, MalformedPolicyFieldsFallBackToDefaults) {
  auto bad = Parse(R"({"spec":{"preAllocation":"true","preAllocationPolicy":{"mode":7,"enableMultiple":"yes"}}})");
  EXPECT_FALSE(ReadPreAllocationEnabled(bad));
  EXPECT_EQ(ReadPreAllocationPolicy(bad).mode, placement::PreAllocationMode::kDefault);
  EXPECT_FALSE(ReadPreAllocationPolicy(bad).enable_multiple);
  auto not_object = Parse(R"({"spec":{"preAllocationPolicy":"Cluster"}})");
  EXPECT_EQ(ReadPreAllocationPolicy(not_object).mode, placement::PreAllocationMode::kDefault);
  EXPECT_FALSE(ReadPreAllocationEnabled(Parse("{}")));
}

TEST(PreAllocationCodecTest, ACandidatePodCarriesItsPriorityTextPhaseAndDeletion) {
  auto pod = Parse(R"({"metadata":{"name":"batch-job-1","namespace":"default","uid":"u1",
      "labels":{"pod.koordinator.sh/is-pre-allocatable":"true"},
      "annotations":{"pod.koordinator.sh/pre-allocatable-priority":"100"},
      "deletionTimestamp":"2024-01-01T00:00:00Z"},
    "spec":{"nodeName":"node-1","containers":[{"resources":{"requests":{"cpu":"2","memory":"4Gi"}}}]},
    "status":{"phase":"Running"}})");
  placement::PreAllocatablePod p = ReadPreAllocatablePod(pod, placement::kPreAllocatablePriorityAnnotation);
  EXPECT_EQ(p.pod.name, "batch-job-1");
  EXPECT_EQ(p.pod.node_name, "node-1");
  EXPECT_EQ(p.pod.requests.at("cpu"), 2000);
  EXPECT_EQ(p.priority, "100");
  EXPECT_TRUE(p.deleting);
  EXPECT_FALSE(p.terminal);
  auto other_key = ReadPreAllocatablePod(pod, "example.com/priority");
  EXPECT_EQ(other_key.priority, std::nullopt);
  auto done = Parse(R"({"metadata":{"name":"x","annotations":{"pod.koordinator.sh/pre-allocatable-priority":5}},
    "status":{"phase":"Succeeded"}})");
  placement::PreAllocatablePod q = ReadPreAllocatablePod(done, placement::kPreAllocatablePriorityAnnotation);
  EXPECT_TRUE(q.terminal);
  EXPECT_FALSE(q.deleting);
  EXPECT_EQ(q.priority, std::nullopt) << "a non-string annotation is absent";
}

TEST(PreAllocationCodecTest, TheRecordRoundTrips) {
  std::vector<placement::PreAllocatedPod> pods = {{"default", "batch-job-1", "u1"}, {"ns", "b\"2", "u2"}};
  std::string text = FormatPreAllocatedPods(pods);
  EXPECT_EQ(FormatPreAllocatedPods({{"default", "batch-job-1", "u1"}}),
            R"([{"namespace":"default","name":"batch-job-1","uid":"u1"}])");
  auto back = ParsePreAllocatedPods(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, pods);
  EXPECT_EQ(FormatPreAllocatedPods({}), "[]");
}

TEST(PreAllocationCodecTest, MalformedRecordsAreErrorsAndEntriesWithoutUidAreDropped) {
  for (std::string_view bad : {"", "{", "{}", "\"x\"", "[1]", "[[]]", "null"}) {
    auto r = ParsePreAllocatedPods(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  }
  // Unbounded nesting (the annotation is writable by anyone who can edit the Reservation) is an
  // error, not a stack overflow.
  auto deep = ParsePreAllocatedPods(std::string(200000, '['));
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().code, ErrorCode::kInvalidArgument);
  auto partial = ParsePreAllocatedPods(R"([{"name":"a"},{"namespace":"d","name":"b","uid":"u"},{"uid":7}])");
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(*partial, (std::vector<placement::PreAllocatedPod>{{"d", "b", "u"}}));
}

TEST(PreAllocationCodecTest, TheReservationViewReadsTheRecordAndIgnoresAMalformedOne) {
  auto r = Parse(R"({"metadata":{"name":"r","uid":"ru","annotations":{
      "berth.dev/pre-allocated-pods":"[{\"namespace\":\"default\",\"name\":\"batch-job-1\",\"uid\":\"u1\"}]"}},
    "spec":{"owners":[]},"status":{"phase":"Waiting","nodeName":"node-1"}})");
  placement::ReservationView view = ReadReservationView(r);
  EXPECT_EQ(view.pre_allocated, (std::vector<placement::PreAllocatedPod>{{"default", "batch-job-1", "u1"}}));
  auto bad = Parse(R"({"metadata":{"name":"r","annotations":{"berth.dev/pre-allocated-pods":"not json"}}})");
  EXPECT_TRUE(ReadReservationView(bad).pre_allocated.empty());
  EXPECT_TRUE(ReadPreAllocatedPods(Parse(R"({"metadata":{"annotations":{"berth.dev/pre-allocated-pods":3}}})")).empty());
}

}  // namespace
}  // namespace berth::controllers
