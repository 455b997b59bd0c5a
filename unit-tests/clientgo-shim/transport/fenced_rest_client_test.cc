// Tests for clientgo-shim/transport/fenced_rest_client: writes pass only while the fence is open.
#include "clientgo-shim/transport/fenced_rest_client.h"

#include <mutex>
#include <vector>

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

// SwitchFence: open or closed by hand, counting checks.
class SwitchFence final : public WriteFence {
 public:
  std::atomic<bool> open{false};
  mutable std::atomic<int> checks{0};
  Status CheckWrite() const override {
    ++checks;
    if (open) return {};
    return MakeError(ErrorCode::kFenced, "leader fence closed: test");
  }
};

// RecordingClient: answers 200 and records what reached it.
class RecordingClient final : public RestClient {
 public:
  Result<RestResponse> Do(const RestRequest& r) override {
    std::lock_guard<std::mutex> l(mu);
    seen.push_back(r);
    if (answer) return std::unexpected(*answer);
    return RestResponse{200, "{}", {}};
  }
  Status Stream(const RestRequest& r, const std::function<bool(std::string_view)>& on_line,
                const std::atomic<bool>*) override {
    {
      std::lock_guard<std::mutex> l(mu);
      seen.push_back(r);
    }
    on_line(R"({"type":"ADDED"})");
    return {};
  }
  std::mutex mu;
  std::vector<RestRequest> seen;
  std::optional<Error> answer;
};

struct Fixture {
  std::shared_ptr<SwitchFence> fence = std::make_shared<SwitchFence>();
  std::shared_ptr<RecordingClient> inner = std::make_shared<RecordingClient>();
  FencedRestClient client{inner, fence};
};

TEST(FencedRestClientTest, AClosedFenceRefusesEveryMutatingMethodBeforeItIsSent) {
  Fixture f;
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    auto r = f.client.Do({.method = method, .path = "/api/v1/namespaces/default/pods/p/binding",
                          .body = "{}"});
    ASSERT_FALSE(r) << method;
    EXPECT_EQ(r.error().code, ErrorCode::kFenced) << method;
    EXPECT_EQ(r.error().message, "leader fence closed: test");
  }
  EXPECT_TRUE(f.inner->seen.empty()) << "nothing reached the transport";
  EXPECT_EQ(f.fence->checks.load(), 4);
}

TEST(FencedRestClientTest, ReadsAndWatchesPassWhileTheFenceIsClosed) {
  Fixture f;
  auto get = f.client.Do({.method = "GET", .path = "/api/v1/pods"});
  ASSERT_TRUE(get);
  int lines = 0;
  Status watch = f.client.Stream({.method = "GET", .path = "/api/v1/pods", .query = {{"watch", "true"}}},
                                 [&](std::string_view) { return ++lines, true; });
  ASSERT_TRUE(watch);
  EXPECT_EQ(lines, 1);
  ASSERT_EQ(f.inner->seen.size(), 2u);
  EXPECT_EQ(f.inner->seen[0].fence, nullptr) << "reads carry no fence";
  EXPECT_EQ(f.fence->checks.load(), 0);
}

TEST(FencedRestClientTest, AnOpenFenceLetsTheWriteThroughCarryingTheFenceForEveryAttempt) {
  Fixture f;
  f.fence->open = true;
  auto r = f.client.Do({.method = "PUT", .path = "/apis/x/v1/things/a/status", .body = "{\"a\":1}"});
  ASSERT_TRUE(r);
  ASSERT_EQ(f.inner->seen.size(), 1u);
  EXPECT_EQ(f.inner->seen[0].body, "{\"a\":1}");
  ASSERT_NE(f.inner->seen[0].fence, nullptr)
      << "the transport needs the fence to re-check before each retry";
  f.fence->open = false;
  EXPECT_FALSE(f.inner->seen[0].fence->CheckWrite());
}

TEST(FencedRestClientTest, AFencedRefusalFromTheTransportComesBackUnchanged) {
  // The fence closed between this layer's check and the transport's (e.g. during a Retry-After
  // wait): the transport's kFenced error is the result.
  Fixture f;
  f.fence->open = true;
  f.inner->answer = Error{ErrorCode::kFenced, "leader fence closed: late", 0, {}, {}};
  auto r = f.client.Do({.method = "DELETE", .path = "/api/v1/namespaces/a/pods/b"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kFenced);
  EXPECT_EQ(r.error().message, "leader fence closed: late");
}

TEST(FencedRestClientTest, IsMutatingMethodCoversExactlyTheWritingVerbs) {
  for (const char* m : {"POST", "PUT", "PATCH", "DELETE"}) EXPECT_TRUE(IsMutatingMethod(m)) << m;
  for (const char* m : {"GET", "HEAD", "OPTIONS", "post", ""}) EXPECT_FALSE(IsMutatingMethod(m)) << m;
}

}  // namespace
}  // namespace berth::shim
