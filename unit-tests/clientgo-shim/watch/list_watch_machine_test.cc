#include "clientgo-shim/watch/list_watch_machine.h"

#include <gtest/gtest.h>

#include "clientgo-shim/watch/fake_clock.h"

namespace berth::shim {
namespace {

using std::chrono::milliseconds;
using testing::FakeClock;
using testing::FixedRng;

Error Err(ErrorCode code, int status, std::string reason = "", std::string message = "boom") {
  return Error{code, std::move(message), status, std::move(reason), {}};
}

class MachineTest : public ::testing::Test {
 protected:
  MachineTest() : rng_(0.0), m_(Options(), clock_, rng_) {}
  static ListWatchOptions Options() {
    ListWatchOptions o;
    o.path = "/api/v1/pods";
    o.label_selector = "app=web";
    return o;
  }
  // Lists one page and returns the watch action that follows.
  Action ListThenWatch(const std::string& rv) {
    EXPECT_EQ(m_.Next().kind, Action::kList);
    EXPECT_TRUE(m_.OnListPage(rv, ""));
    return m_.Next();
  }
  FakeClock clock_;
  FixedRng rng_;
  ListWatchMachine m_;
};

TEST_F(MachineTest, FirstListIsPaginatedWith500AndNoResourceVersion) {
  Action a = m_.Next();
  ASSERT_EQ(a.kind, Action::kList);
  EXPECT_EQ(a.request.path, "/api/v1/pods");
  EXPECT_EQ(a.request.query, (std::map<std::string, std::string>{{"labelSelector", "app=web"},
                                                                  {"limit", "500"}}));
}

TEST_F(MachineTest, ContinueTokensAreFollowedUntilTheLastPage) {
  m_.Next();
  EXPECT_FALSE(m_.OnListPage("10", "tok1"));
  Action a = m_.Next();
  ASSERT_EQ(a.kind, Action::kList);
  EXPECT_EQ(a.request.query.at("continue"), "tok1");
  EXPECT_EQ(a.request.query.at("limit"), "500");
  EXPECT_EQ(m_.Page(), 2);
  EXPECT_TRUE(m_.OnListPage("10", ""));
  EXPECT_EQ(m_.phase(), ListWatchMachine::Phase::kWatching);
  EXPECT_EQ(m_.ResourceVersion(), "10");
}

TEST_F(MachineTest, WatchStartsFromTheListRvWithBookmarksAndARandomizedTimeout) {
  Action w = ListThenWatch("42");
  ASSERT_EQ(w.kind, Action::kWatch);
  EXPECT_EQ(w.request.query, (std::map<std::string, std::string>{
                                 {"labelSelector", "app=web"},
                                 {"watch", "true"},
                                 {"resourceVersion", "42"},
                                 {"allowWatchBookmarks", "true"},
                                 {"timeoutSeconds", "300"}}));
  rng_.Set(0.9999);
  m_.OnWatchEnded({});  // clean end after 0 s with no events: very short → backoff first
  EXPECT_EQ(m_.Next().kind, Action::kWait);
  EXPECT_EQ(m_.Next().request.query.at("timeoutSeconds"), "599");
}

TEST_F(MachineTest, ADroppedWatchResumesFromTheLastEventOrBookmarkWithoutRelisting) {
  ListThenWatch("42");
  m_.OnWatchEvent("43");
  m_.OnWatchEvent("50");  // a bookmark
  m_.OnWatchEnded({});
  Action a = m_.Next();
  ASSERT_EQ(a.kind, Action::kWatch);
  EXPECT_EQ(a.request.query.at("resourceVersion"), "50");
}

TEST_F(MachineTest, AVeryShortEmptyWatchBacksOffButALongOneDoesNot) {
  ListThenWatch("1");
  clock_.Advance(std::chrono::seconds(2));
  m_.OnWatchEnded({});
  EXPECT_EQ(m_.Next().kind, Action::kWatch);
  clock_.Advance(milliseconds(100));
  m_.OnWatchEnded({});
  Action a = m_.Next();
  ASSERT_EQ(a.kind, Action::kWait);
  EXPECT_EQ(a.wait, milliseconds(800));
}

TEST_F(MachineTest, GoneOrExpiredOnTheWatchBacksOffThenRelists) {
  ListThenWatch("1");
  m_.OnWatchEnded(std::unexpected(Err(ErrorCode::kGone, 410, "Expired", "too old resource version")));
  EXPECT_EQ(m_.Next().kind, Action::kWait);
  Action a = m_.Next();
  ASSERT_EQ(a.kind, Action::kList);
  EXPECT_EQ(a.request.query.count("resourceVersion"), 0u);
  EXPECT_EQ(a.request.query.count("continue"), 0u);
}

TEST_F(MachineTest, TooLargeResourceVersionRelists) {
  ListThenWatch("1");
  m_.OnWatchEnded(std::unexpected(
      Err(ErrorCode::kTimeout, 504, "Timeout", "Too large resource version: 99, current: 5")));
  m_.Next();
  EXPECT_EQ(m_.Next().kind, Action::kList);
}

TEST_F(MachineTest, OtherWatchErrorsBackOffThenResumeTheWatch) {
  ListThenWatch("7");
  for (auto e : {Err(ErrorCode::kInternal, 500), Err(ErrorCode::kTooManyRequests, 429),
                 Err(ErrorCode::kTransport, 0)}) {
    m_.OnWatchEnded(std::unexpected(e));
    ASSERT_EQ(m_.Next().kind, Action::kWait);
    Action a = m_.Next();
    ASSERT_EQ(a.kind, Action::kWatch);
    EXPECT_EQ(a.request.query.at("resourceVersion"), "7");
  }
}

TEST_F(MachineTest, ConsecutiveErrorsGrowTheBackoffAndRetryAfterIsHonoured) {
  ListThenWatch("7");
  std::vector<int64_t> waits;
  for (int i = 0; i < 3; ++i) {
    m_.OnWatchEnded(std::unexpected(Err(ErrorCode::kInternal, 500)));
    waits.push_back(m_.Next().wait.count());
    m_.Next();
  }
  EXPECT_EQ(waits, (std::vector<int64_t>{800, 1600, 3200}));
  Error throttled = Err(ErrorCode::kTooManyRequests, 429);
  throttled.retry_after = milliseconds(20000);
  m_.OnWatchEnded(std::unexpected(throttled));
  EXPECT_EQ(m_.Next().wait, milliseconds(20000));
}

TEST_F(MachineTest, AFailedListBacksOffAndStartsAgainAtPageOne) {
  m_.Next();
  m_.OnListPage("5", "tok");
  m_.Next();
  m_.OnListFailed(Err(ErrorCode::kInternal, 500));
  EXPECT_EQ(m_.Next().kind, Action::kWait);
  Action a = m_.Next();
  ASSERT_EQ(a.kind, Action::kList);
  EXPECT_EQ(a.request.query.count("continue"), 0u);
  EXPECT_EQ(m_.Page(), 1);
}

TEST_F(MachineTest, AnExpiredContinueTokenFallsBackToOneUnpaginatedList) {
  m_.Next();
  m_.OnListPage("5", "tok");
  m_.Next();
  m_.OnListFailed(Err(ErrorCode::kGone, 410, "Expired", "The provided continue parameter is too old"));
  Action a = m_.Next();
  ASSERT_EQ(a.kind, Action::kList);  // no backoff: the pager retries at once
  EXPECT_EQ(a.request.query.count("limit"), 0u);
  EXPECT_EQ(a.request.query.count("continue"), 0u);
  EXPECT_TRUE(m_.OnListPage("9", "ignored-token"));  // an unpaginated answer is complete
  // The next relist is paginated again.
  m_.OnWatchEnded(std::unexpected(Err(ErrorCode::kGone, 410)));
  m_.Next();
  EXPECT_EQ(m_.Next().request.query.at("limit"), "500");
}

TEST(IsRelistErrorTest, RecognisesGoneExpiredAndTooLargeOnly) {
  EXPECT_TRUE(IsRelistError(Err(ErrorCode::kGone, 410)));
  EXPECT_TRUE(IsRelistError(Err(ErrorCode::kInternal, 0, "Expired")));
  EXPECT_TRUE(IsRelistError(Err(ErrorCode::kTimeout, 504, "Timeout", "Too large resource version")));
  EXPECT_FALSE(IsRelistError(Err(ErrorCode::kTimeout, 504, "Timeout", "the server timed out")));
  EXPECT_FALSE(IsRelistError(Err(ErrorCode::kTooManyRequests, 429)));
  EXPECT_FALSE(IsRelistError(Err(ErrorCode::kConflict, 409)));
}

}  // namespace
}  // namespace berth::shim
