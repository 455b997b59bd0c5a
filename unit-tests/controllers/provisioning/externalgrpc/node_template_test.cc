// Tests for controllers/provisioning/externalgrpc/node_template.h: a core/v1 Node in k8s.io/api
// protobuf (field numbers checked against hand-built wire bytes), and malformed input.
#include "controllers/provisioning/externalgrpc/node_template.h"

#include <gtest/gtest.h>

namespace berth::controllers::externalgrpc {
namespace {

std::string Field(int number, const std::string& payload) {  // length-delimited
  std::string out;
  out += static_cast<char>((number << 3) | 2);
  out += static_cast<char>(payload.size());  // payloads here are < 128 bytes
  return out + payload;
}

TEST(NodeTemplateTest, DecodesUpstreamFieldNumbers) {
  // Node{1 metadata{1 name, 11 labels{1 k, 2 v}}, 2 spec{5 taints{1 key, 3 effect}},
  //      3 status{2 allocatable{1 k, 2 Quantity{1 string}}}}, as Go's v1.Node#Marshal writes it.
  std::string meta = Field(1, "tmpl") + Field(11, Field(1, "pool") + Field(2, "burst"));
  std::string spec = Field(5, Field(1, "dedicated") + Field(3, "NoSchedule"));
  std::string status = Field(2, Field(1, "cpu") + Field(2, Field(1, "8"))) +
                       Field(2, Field(1, "memory") + Field(2, Field(1, "16Gi"))) +
                       Field(2, Field(1, "pods") + Field(2, Field(1, "110")));
  std::string bytes = Field(1, meta) + Field(2, spec) + Field(3, status);
  auto node = DecodeTemplateNode(bytes);
  ASSERT_TRUE(node) << node.error().message;
  EXPECT_EQ(node->name, "tmpl");
  EXPECT_EQ(node->labels.at("pool"), "burst");
  ASSERT_EQ(node->taints.size(), 1u);
  EXPECT_EQ(node->taints[0].key, "dedicated");
  EXPECT_EQ(node->taints[0].effect, "NoSchedule");
  EXPECT_EQ(node->allocatable.at("cpu"), 8000);
  EXPECT_EQ(node->allocatable.at("memory"), (int64_t{16} << 30) * 1000);
  EXPECT_EQ(node->allocatable.at("pods"), 110000);
}

TEST(NodeTemplateTest, RoundTripsThroughEncode) {
  reconcile::placement::NodeView view;
  view.name = "t";
  view.labels["a"] = "b";
  view.taints.push_back({"k", "v", "NoExecute"});
  view.allocatable = {{"cpu", 2500}, {"memory", int64_t{1} << 40}, {"pods", 110000}};
  auto back = DecodeTemplateNode(EncodeTemplateNode(view, "x://y"));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->labels, view.labels);
  EXPECT_EQ(back->taints, view.taints);
  EXPECT_EQ(back->allocatable, view.allocatable);
}

TEST(NodeTemplateTest, CapacityStandsInForAMissingAllocatable) {
  std::string status = Field(1, Field(1, "cpu") + Field(2, Field(1, "4"))) +
                       Field(1, Field(1, "memory") + Field(2, Field(1, "1Gi")));
  auto node = DecodeTemplateNode(Field(3, status));
  ASSERT_TRUE(node) << node.error().message;
  EXPECT_EQ(node->allocatable.at("cpu"), 4000);
}

TEST(NodeTemplateTest, MalformedBytesAreErrors) {
  auto garbage = DecodeTemplateNode(std::string("\x0a\x7f", 2));  // truncated field 1
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().message, "template node: not a core/v1 Node in protobuf");
  std::string bad_q = Field(3, Field(2, Field(1, "cpu") + Field(2, Field(1, "lots"))));
  auto q = DecodeTemplateNode(bad_q);
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().message.find("template node: status.allocatable[cpu]: \"lots\": "), std::string::npos)
      << q.error().message;
  auto empty = DecodeTemplateNode("");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "template node: no cpu in status.allocatable or status.capacity");
  // The apiserver's envelope is not what the protocol carries.
  auto envelope = DecodeTemplateNode(std::string("k8s\0\x0a\x02", 6));
  EXPECT_FALSE(envelope);
}

}  // namespace
}  // namespace berth::controllers::externalgrpc
