// DecodeListItems parses every item of a page into one reused message (protobuf_codec.cc): each
// item must come out exactly as the generated classes parse it fresh (DecodeList: the whole list
// on an arena, strings copied), whatever the items before it held. Checked on a fixture sequence
// chosen to leave state behind (a rich pod, then pods missing each of its parts) and on random
// pods.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/proto/protobuf_codec.h"
#include "e2e/kubesim/protobuf/encoder.h"

namespace berth::shim::proto {
namespace {

std::string EncodePodList(const std::vector<std::string>& pods) {
  auto encoder = kubesim::protobuf::ListEncoder::Create("v1", "PodList");
  EXPECT_TRUE(encoder);
  encoder->SetMetadata("77", "next-page", 0);
  for (const std::string& pod : pods) {
    auto doc = json::Parse(pod);
    EXPECT_TRUE(doc) << pod;
    if (!doc) continue;
    auto st = encoder->AddItem(*doc);
    EXPECT_TRUE(st) << (st ? "" : st.error().message) << "\n" << pod;
  }
  return encoder->Finish();
}

// ExpectItemByItemMatchesAFreshParse: every item of `body` decoded by DecodeListItems serializes
// as the same item of DecodeList does.
void ExpectItemByItemMatchesAFreshParse(const std::string& body, size_t items) {
  auto whole = DecodeList(body);
  ASSERT_TRUE(whole) << whole.error().message;
  const rapidjson::Value& expected = whole->body["items"];
  ASSERT_EQ(expected.Size(), items);
  std::vector<std::string> got;
  auto meta = DecodeListItems(body, [&](rapidjson::Value& item, rapidjson::Document::AllocatorType&) -> Status {
    got.push_back(json::Serialize(item));
    return {};
  });
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->kind, "PodList");
  EXPECT_EQ(meta->resource_version, "77");
  EXPECT_EQ(meta->continue_token, "next-page");
  ASSERT_EQ(got.size(), items);
  for (size_t i = 0; i < items; ++i) {
    EXPECT_EQ(got[i], json::Serialize(expected[i])) << "item " << i;
  }
}

constexpr char kRichPod[] = R"({"metadata":{"name":"rich","namespace":"ns","uid":"u-1","resourceVersion":"5",
 "labels":{"app":"web","tier":"front"},"annotations":{"a":"1"},"finalizers":["f"],
 "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"rs-1","controller":true}]},
 "spec":{"containers":[{"name":"a","image":"img:1","args":["--x","--y"],"env":[{"name":"E","value":"v"}],
   "resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2"}},
   "ports":[{"containerPort":80,"protocol":"TCP"}]},{"name":"b","image":"img:2"}],
  "nodeName":"node-1","nodeSelector":{"zone":"a"},"priority":7,
  "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule","tolerationSeconds":30}],
  "affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"z","operator":"In","values":["a"]}]}]}}}},
 "status":{"phase":"Running","podIP":"10.0.0.1","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2024-05-01T12:00:00Z"}],
  "containerStatuses":[{"name":"a","ready":true,"restartCount":3,"image":"img:1","imageID":"id","state":{"running":{"startedAt":"2024-05-01T12:00:00Z"}}}]}})";

TEST(ListItemReuseTest, EachItemIsDecodedAsAFreshParseWhateverCameBefore) {
  const std::vector<std::string> pods = {
      kRichPod,
      // Nothing but a name: every field the rich pod set must be gone.
      R"({"metadata":{"name":"bare"}})",
      kRichPod,
      // Fewer containers, labels without the old keys, no status, an empty spec map.
      R"({"metadata":{"name":"fewer","labels":{"other":"x"}},"spec":{"containers":[{"name":"c"}],"nodeSelector":{}}})",
      // More containers than before, different repeated and map contents.
      R"({"metadata":{"name":"more","namespace":"ns2"},"spec":{"containers":[{"name":"x","args":["1"]},{"name":"y"},{"name":"z","env":[{"name":"A"},{"name":"B","value":""}]}]},
        "status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/3 nodes"}]}})",
      R"({"metadata":{"name":"bare2"},"spec":{},"status":{}})",
      kRichPod,
  };
  ExpectItemByItemMatchesAFreshParse(EncodePodList(pods), pods.size());
}

// RandomPod: a pod with a random subset of the fields above, random sizes of its lists and maps.
std::string RandomPod(std::mt19937& rng, int index) {
  auto coin = [&] { return rng() % 2 == 0; };
  auto count = [&](int max) { return static_cast<int>(rng() % static_cast<unsigned>(max + 1)); };
  auto word = [&] { return std::string(1, static_cast<char>('a' + rng() % 6)) + std::to_string(rng() % 4); };
  std::string meta = R"("name":"p)" + std::to_string(index) + R"(")";
  if (coin()) meta += R"(,"namespace":")" + word() + R"(")";
  if (coin()) meta += R"(,"uid":"u-)" + std::to_string(index) + R"(")";
  auto map = [&](int max) {
    std::string out = "{";
    const int n = count(max);
    for (int i = 0; i < n; ++i) out += (i ? "," : "") + (R"(")" + word() + std::to_string(i) + R"(":")" + word() + R"(")");
    return out + "}";
  };
  if (coin()) meta += R"(,"labels":)" + map(4);
  if (coin()) meta += R"(,"annotations":)" + map(3);
  std::string spec;
  auto add = [](std::string& to, const std::string& field) { to += (to.empty() ? "" : ",") + field; };
  if (coin()) {
    std::string containers;
    const int n = 1 + count(3);
    for (int c = 0; c < n; ++c) {
      std::string container = R"("name":"c)" + std::to_string(c) + R"(")";
      if (coin()) container += R"(,"image":"img:)" + word() + R"(")";
      if (coin()) {
        std::string args;
        for (int a = count(3); a > 0; --a) args += std::string(args.empty() ? "" : ",") + R"(")" + word() + R"(")";
        container += R"(,"args":[)" + args + "]";
      }
      if (coin()) {
        std::string env;
        for (int e = count(3); e > 0; --e) {
          env += std::string(env.empty() ? "" : ",") + R"({"name":")" + word() + R"(")" +
                 (coin() ? R"(,"value":")" + word() + R"(")" : "") + "}";
        }
        container += R"(,"env":[)" + env + "]";
      }
      if (coin()) container += R"(,"resources":{"requests":)" + (coin() ? std::string(R"({"cpu":"100m"})") : "{}") + "}";
      containers += std::string(containers.empty() ? "" : ",") + "{" + container + "}";
    }
    add(spec, R"("containers":[)" + containers + "]");
  }
  if (coin()) add(spec, R"("nodeName":"node-)" + std::to_string(rng() % 5) + R"(")");
  if (coin()) add(spec, R"("nodeSelector":)" + map(2));
  if (coin()) add(spec, R"("priority":)" + std::to_string(static_cast<int>(rng() % 2000) - 1000));
  if (coin()) {
    add(spec, R"("tolerations":[{"key":")" + word() + R"(","operator":"Exists")" +
                  (coin() ? R"(,"tolerationSeconds":)" + std::to_string(rng() % 600) : "") + "}]");
  }
  std::string status;
  if (coin()) add(status, std::string(R"("phase":")") + (coin() ? "Running" : "Pending") + R"(")");
  if (coin()) add(status, R"("podIP":"10.0.0.)" + std::to_string(rng() % 250) + R"(")");
  if (coin()) {
    std::string conditions;
    for (int c = count(3); c > 0; --c) {
      conditions += std::string(conditions.empty() ? "" : ",") + R"({"type":")" + word() + R"(","status":"True")" +
                    (coin() ? R"(,"lastTransitionTime":"2024-05-01T12:00:0)" + std::to_string(rng() % 10) + R"(Z")" : "") +
                    "}";
    }
    add(status, R"("conditions":[)" + conditions + "]");
  }
  std::string pod = R"({"metadata":{)" + meta + "}";
  if (coin() || !spec.empty()) pod += R"(,"spec":{)" + spec + "}";
  if (coin() || !status.empty()) pod += R"(,"status":{)" + status + "}";
  return pod + "}";
}

TEST(ListItemReuseTest, RandomPodsAreDecodedAsAFreshParse) {
  std::mt19937 rng(20261126);
  for (int page = 0; page < 5; ++page) {
    std::vector<std::string> pods;
    for (int i = 0; i < 100; ++i) pods.push_back(RandomPod(rng, page * 100 + i));
    SCOPED_TRACE("page " + std::to_string(page));
    ExpectItemByItemMatchesAFreshParse(EncodePodList(pods), pods.size());
  }
}

// A malformed item after good ones still fails the list, with the item's position.
TEST(ListItemReuseTest, AnItemWithoutMetadataAfterGoodOnesFailsTheList) {
  const std::string body = EncodePodList({kRichPod, R"({"metadata":{"name":"ok"}})", R"({"spec":{}})"});
  int seen = 0;
  auto meta = DecodeListItems(body, [&](rapidjson::Value&, rapidjson::Document::AllocatorType&) -> Status {
    ++seen;
    return {};
  });
  ASSERT_FALSE(meta);
  EXPECT_EQ(seen, 2);
  EXPECT_NE(meta.error().message.find("item 2 has no metadata"), std::string::npos) << meta.error().message;
}

}  // namespace
}  // namespace berth::shim::proto
