// The reflector's log lines: list errors at error, watch errors at warn, an expired
// resourceVersion at debug, each naming the resource and the server, rate-limited.
#include <gtest/gtest.h>

#include "clientgo-shim/base/log_capture.h"
#include "clientgo-shim/watch/fake_rest_client.h"
#include "clientgo-shim/watch/reflector_test_support.h"
#include "clientgo-shim/watch/reflector.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;
using berth::testing::LogCapture;
using std::chrono::milliseconds;

ReflectorOptions Options() { return PodReflectorOptions(); }

bool Eventually(const std::function<bool()>& pred) { return FakeRestClient::WaitUntil(pred); }

class ReflectorLogTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeRestClient> client_ = std::make_shared<FakeRestClient>();
  std::shared_ptr<Store> store_ = std::make_shared<Store>();
  LogCapture capture_;
};

TEST_F(ReflectorLogTest, ListErrorsAreLoggedAtErrorOncePerCodeWithinTheInterval) {
  for (int i = 0; i < 3; ++i) {
    client_->QueueList(std::unexpected(
        HttpError(ErrorCode::kForbidden, 403, "Forbidden",
                  "pods is forbidden: User \"system:serviceaccount:berth:berth\" cannot list")));
  }
  client_->QueueList(std::unexpected(HttpError(ErrorCode::kInternal, 500, "InternalError", "boom")));
  client_->QueueListBody(ListJson({PodJson("a", "p1", "3")}, "10"));
  auto o = Options();
  o.list_watch.label_selector = "app=web";
  Reflector r(client_, store_, o);
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  r.Stop();
  auto lines = capture_.Matching("failed to list");
  ASSERT_EQ(lines.size(), 2u) << "one per (verb, code): 403 once, 500 once";
  EXPECT_EQ(lines[0].Get("level"), "error");
  EXPECT_EQ(lines[0].Get("logger"), "reflector");
  EXPECT_EQ(lines[0].Get("resource"), "/api/v1/pods?labelSelector=app=web");
  EXPECT_EQ(lines[0].Get("server"), "https://fake-apiserver:6443");
  EXPECT_EQ(lines[0].Get("code"), "403");
  EXPECT_EQ(lines[0].Get("reason"), "Forbidden");
  EXPECT_EQ(lines[0].Get("error"),
            "pods is forbidden: User \"system:serviceaccount:berth:berth\" cannot list");
  EXPECT_EQ(lines[1].Get("code"), "500");
  EXPECT_EQ(lines[1].Get("error"), "boom");
  EXPECT_EQ(r.Stats().last_error_op, "list");
  EXPECT_EQ(r.Stats().last_error, "boom");
}

TEST_F(ReflectorLogTest, WithAZeroIntervalEveryErrorIsLogged) {
  for (int i = 0; i < 3; ++i) {
    client_->QueueList(std::unexpected(HttpError(ErrorCode::kTransport, 0, "", "connect: refused")));
  }
  client_->QueueListBody(ListJson({}, "10"));
  auto o = Options();
  o.error_log_interval = milliseconds(0);
  Reflector r(client_, store_, o);
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(std::chrono::steady_clock::now() + std::chrono::seconds(5)));
  r.Stop();
  auto lines = capture_.Matching("failed to list");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2].Get("errorCode"), "Transport");
  EXPECT_EQ(lines[2].Get("code"), "") << "no HTTP response, no code field";
  EXPECT_EQ(lines[2].Get("error"), "connect: refused");
}

TEST_F(ReflectorLogTest, AWatchErrorIsAWarningAndAnExpiredResourceVersionIsDebug) {
  client_->QueueListBody(ListJson({}, "10"));
  client_->QueueListBody(ListJson({}, "20"));
  client_->PushWatch({{}, std::unexpected(HttpError(ErrorCode::kInternal, 500, "InternalError",
                                                    "etcdserver: request timed out"))});
  client_->PushWatch({{}, std::unexpected(HttpError(ErrorCode::kGone, 410, "Expired",
                                                    "too old resource version: 10 (15)"))});
  client_->PushWatch({{}, {}, /*hold_open=*/true});
  berth::testing::ScopedLogLevel debug(log::Level::kDebug);
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(Eventually([&] { return client_->WatchRequests().size() >= 3; }));
  r.Stop();
  auto lines = capture_.Matching("watch ended with an error");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].Get("level"), "warn");
  EXPECT_EQ(lines[0].Get("resource"), "/api/v1/pods");
  EXPECT_EQ(lines[0].Get("code"), "500");
  EXPECT_EQ(lines[0].Get("error"), "etcdserver: request timed out");
  EXPECT_EQ(lines[1].Get("level"), "debug");
  EXPECT_EQ(lines[1].Get("reason"), "Expired");
}

TEST_F(ReflectorLogTest, ACleanWatchEndIsNotLogged) {
  client_->QueueListBody(ListJson({}, "10"));
  client_->PushWatch({{EventJson("ADDED", PodJson("a", "p1", "11"))}, {}});
  client_->PushWatch({{}, {}, /*hold_open=*/true});
  Reflector r(client_, store_, Options());
  r.Start();
  ASSERT_TRUE(Eventually([&] { return client_->WatchRequests().size() >= 2; }));
  r.Stop();
  EXPECT_TRUE(capture_.Lines().empty()) << capture_.Lines()[0].raw;
}

}  // namespace
}  // namespace berth::shim
