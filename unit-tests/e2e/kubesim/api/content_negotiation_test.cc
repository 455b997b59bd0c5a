#include "e2e/kubesim/api/content_negotiation.h"

#include <gtest/gtest.h>

namespace berth::kubesim {
namespace {

constexpr auto kJson = ResponseMedia::kJson;
constexpr auto kProtobuf = ResponseMedia::kProtobuf;
constexpr auto kNone = ResponseMedia::kNotAcceptable;

TEST(ContentNegotiationTest, ClientGoProtobufPreferenceGetsProtobufForBuiltInKinds) {
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf,application/json", true), kProtobuf);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf, */*", true), kProtobuf);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf", true), kProtobuf);
}

TEST(ContentNegotiationTest, OrderDecidesBetweenEqualQValues) {
  EXPECT_EQ(NegotiateResponseMedia("application/json, application/vnd.kubernetes.protobuf", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("application/json;q=0.5,application/vnd.kubernetes.protobuf;q=0.5", true), kJson);
}

TEST(ContentNegotiationTest, QValuesOutrankOrderAndQZeroRefuses) {
  EXPECT_EQ(NegotiateResponseMedia("application/json;q=0.5, application/vnd.kubernetes.protobuf;q=0.9", true),
            kProtobuf);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf;q=0.4,application/json", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("application/json;q=0,application/vnd.kubernetes.protobuf;q=0.1", true),
            kProtobuf);
  EXPECT_EQ(NegotiateResponseMedia("application/json;q=0", true), kNone);
}

TEST(ContentNegotiationTest, WildcardsAndEmptyAcceptMeanJsonButLoseToASpecificTypeOfEqualQ) {
  EXPECT_EQ(NegotiateResponseMedia("", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("*/*", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("application/*", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("*/*, application/vnd.kubernetes.protobuf", true), kProtobuf);
  EXPECT_EQ(NegotiateResponseMedia("application/*;q=1, application/vnd.kubernetes.protobuf;q=0.8", true), kJson);
}

TEST(ContentNegotiationTest, WithoutAProtobufFormFallsBackToJsonOrIsNotAcceptable) {
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf,application/json", false), kJson);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf", false), kNone);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf;stream=watch", false), kNone);
}

TEST(ContentNegotiationTest, TransformationsStayJsonAndProtobufTransformationsAreSkipped) {
  EXPECT_EQ(NegotiateResponseMedia("application/json;as=Table;v=v1;g=meta.k8s.io,application/json", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
                                   "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
                                   true),
            kJson);
}

TEST(ContentNegotiationTest, MalformedOrUnknownEntriesAreSkipped) {
  EXPECT_EQ(NegotiateResponseMedia("text/html", true), kNone);
  EXPECT_EQ(NegotiateResponseMedia("text/html, application/json", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf;q=abc, application/json", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia("application/vnd.kubernetes.protobuf;q=2, application/json", true), kJson);
  EXPECT_EQ(NegotiateResponseMedia(",,;", true), kNone);
  EXPECT_EQ(NegotiateResponseMedia("APPLICATION/VND.KUBERNETES.PROTOBUF", true), kProtobuf);
  EXPECT_EQ(NegotiateResponseMedia("application/yaml", true), kJson);
}

}  // namespace
}  // namespace berth::kubesim
