// Tests for clientgo-shim/client/object_client.h against a scripted FakeRestClient.
#include "clientgo-shim/client/object_client.h"

#include <gtest/gtest.h>

#include "fake_rest_client.h"

namespace berth::shim {
namespace {

using testing::Fail;
using testing::FakeRestClient;
using testing::Ok;

TEST(ResourcePathTest, BuildsCoreAndGroupPathsWithNamespacesNamesAndSubresources) {
  EXPECT_EQ(ResourcePath({.resource = "pods", .ns = "default", .name = "web"}),
            "/api/v1/namespaces/default/pods/web");
  EXPECT_EQ(ResourcePath({.resource = "nodes"}), "/api/v1/nodes");
  EXPECT_EQ(ResourcePath({.group = "coordination.k8s.io", .resource = "leases", .ns = "kube-system",
                          .name = "x"},
                         "status"),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x/status");
}

TEST(ObjectClientTest, CreatePostsToTheCollectionAndReturnsTheStoredObject) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest&) {
    return Ok(R"({"metadata":{"name":"a","resourceVersion":"5"}})", 201);
  });
  ObjectClient c(fake);
  auto obj = json::Parse(R"({"metadata":{"name":"a"}})");
  auto created = c.Create({.resource = "configmaps", .ns = "ns", .name = "ignored"}, *obj);
  ASSERT_TRUE(created);
  EXPECT_EQ(json::GetString(*created, {"metadata", "resourceVersion"}), "5");
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/api/v1/namespaces/ns/configmaps");
  EXPECT_EQ(reqs[0].body, R"({"metadata":{"name":"a"}})");
}

TEST(ObjectClientTest, ListSendsOnlyTheSetQueryParameters) {
  auto fake = std::make_shared<FakeRestClient>(
      [](const RestRequest&) { return Ok(R"({"items":[]})"); });
  ObjectClient c(fake);
  ASSERT_TRUE(c.List({.resource = "events", .ns = "d"},
                     {.field_selector = "involvedObject.name=x", .limit = 10}));
  auto q = fake->requests()[0].query;
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q["fieldSelector"], "involvedObject.name=x");
  EXPECT_EQ(q["limit"], "10");
}

TEST(ObjectClientTest, ErrorsKeepTheirCodeAndNameTheRequest) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest&) {
    return Fail(ErrorCode::kNotFound, 404, "pods \"web\" not found");
  });
  ObjectClient c(fake);
  auto got = c.Get({.resource = "pods", .ns = "d", .name = "web"});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(got.error().message, "GET /api/v1/namespaces/d/pods/web: pods \"web\" not found");
  auto del = c.Delete({.resource = "pods", .ns = "d", .name = "web"});
  ASSERT_FALSE(del);
  EXPECT_EQ(del.error().code, ErrorCode::kNotFound);
}

TEST(ObjectClientTest, NonJsonSuccessBodyIsADecodeError) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest&) { return Ok("<html>"); });
  ObjectClient c(fake);
  auto got = c.Get({.resource = "pods", .ns = "d", .name = "web"});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, ErrorCode::kDecode);
}

TEST(ObjectClientTest, MergePatchSendsTheMergePatchContentTypeToTheSubresource) {
  auto fake = std::make_shared<FakeRestClient>([](const RestRequest&) { return Ok("{}"); });
  ObjectClient c(fake);
  auto patch = json::Parse(R"({"status":{"phase":"Ready"}})");
  ASSERT_TRUE(c.MergePatch({.resource = "pods", .ns = "d", .name = "p"}, *patch, "status"));
  auto r = fake->requests()[0];
  EXPECT_EQ(r.method, "PATCH");
  EXPECT_EQ(r.content_type, "application/merge-patch+json");
  EXPECT_EQ(r.path, "/api/v1/namespaces/d/pods/p/status");
}

// A server holding one object with a resourceVersion; PUT with a stale version conflicts.
struct VersionedServer {
  int rv = 1;
  int value = 0;
  int conflicts_to_inject = 0;
  Result<RestResponse> Handle(const RestRequest& r) {
    if (r.method == "GET") {
      return Ok(R"({"metadata":{"resourceVersion":")" + std::to_string(rv) +
                R"("},"spec":{"value":)" + std::to_string(value) + "}}");
    }
    auto doc = json::Parse(r.body);
    if (!doc) return Fail(ErrorCode::kBadRequest, 400, "bad body");
    if (conflicts_to_inject > 0) {
      --conflicts_to_inject;
      ++rv;  // someone else wrote
      return Fail(ErrorCode::kConflict, 409,
                  "Operation cannot be fulfilled on things \"x\": the object has been modified; "
                  "please apply your changes to the latest version and try again");
    }
    if (json::GetString(*doc, {"metadata", "resourceVersion"}) != std::to_string(rv)) {
      return Fail(ErrorCode::kConflict, 409, "stale");
    }
    value = (*doc)["spec"]["value"].GetInt();
    ++rv;
    return Ok(json::Serialize(*doc));
  }
};

Mutation Increment() {
  return [](json::Document& d) -> Result<bool> {
    d["spec"]["value"].SetInt(d["spec"]["value"].GetInt() + 1);
    return true;
  };
}

TEST(UpdateWithRetryTest, ReReadsAndReAppliesTheMutationAfterAConflict) {
  VersionedServer server;
  server.conflicts_to_inject = 2;
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) { return server.Handle(r); });
  ObjectClient c(fake);
  auto got = c.UpdateWithRetry({.resource = "things", .ns = "d", .name = "x"}, Increment(), {},
                               {.steps = 5, .delay = std::chrono::milliseconds(0)});
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(server.value, 1);
  auto reqs = fake->requests();
  ASSERT_EQ(reqs.size(), 6u);  // (GET, PUT) × 3
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[1].method, "PUT");
  EXPECT_EQ(reqs[4].method, "GET");
}

TEST(UpdateWithRetryTest, GivesUpWithTheConflictAfterTheLastStep) {
  VersionedServer server;
  server.conflicts_to_inject = 100;
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) { return server.Handle(r); });
  ObjectClient c(fake);
  auto got = c.UpdateWithRetry({.resource = "things", .ns = "d", .name = "x"}, Increment(), {},
                               {.steps = 3, .delay = std::chrono::milliseconds(0)});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, ErrorCode::kConflict);
  EXPECT_EQ(fake->requests().size(), 6u);
  EXPECT_EQ(server.value, 0);
}

TEST(UpdateWithRetryTest, AMutationThatChangesNothingDoesNotWrite) {
  VersionedServer server;
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) { return server.Handle(r); });
  ObjectClient c(fake);
  auto got = c.UpdateWithRetry({.resource = "things", .ns = "d", .name = "x"},
                               [](json::Document&) -> Result<bool> { return false; });
  ASSERT_TRUE(got);
  EXPECT_EQ(fake->requests().size(), 1u);
}

TEST(UpdateWithRetryTest, MutationErrorsAndNonConflictErrorsStopAtOnce) {
  VersionedServer server;
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) -> Result<RestResponse> {
    if (r.method == "PUT") return Fail(ErrorCode::kInvalid, 422, "spec.value: Invalid value");
    return server.Handle(r);
  });
  ObjectClient c(fake);
  auto invalid = c.UpdateWithRetry({.resource = "things", .ns = "d", .name = "x"}, Increment());
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(fake->requests().size(), 2u);
  auto aborted = c.UpdateWithRetry(
      {.resource = "things", .ns = "d", .name = "x"},
      [](json::Document&) -> Result<bool> { return MakeError(ErrorCode::kInternal, "nope"); });
  ASSERT_FALSE(aborted);
  EXPECT_EQ(aborted.error().message, "nope");
}

TEST(UpdateWithRetryTest, StatusSubresourcePutsToStatus) {
  VersionedServer server;
  auto fake = std::make_shared<FakeRestClient>([&](const RestRequest& r) { return server.Handle(r); });
  ObjectClient c(fake);
  ASSERT_TRUE(c.UpdateWithRetry({.resource = "things", .ns = "d", .name = "x"}, Increment(), "status"));
  EXPECT_EQ(fake->requests()[1].path, "/api/v1/namespaces/d/things/x/status");
}

}  // namespace
}  // namespace berth::shim
