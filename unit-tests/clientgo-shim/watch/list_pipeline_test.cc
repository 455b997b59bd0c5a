#include "clientgo-shim/watch/list_pipeline.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "support/thread_count.h"

namespace berth::shim {
namespace {

using std::chrono::milliseconds;

// Gate: a one-shot event with a deadline on the wait, so a broken pipeline fails the test
// instead of hanging it.
class Gate {
 public:
  void Open() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  bool Wait(milliseconds limit = milliseconds(5000)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// A page body here is "name,name,…"; each name becomes one cached object.
Result<DecodedPage> DecodeNames(const std::string& body) {
  DecodedPage page;
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string::npos) comma = body.size();
    auto doc = json::Parse(R"({"metadata":{"name":")" + body.substr(start, comma - start) + "\"}}");
    if (!doc) return std::unexpected(doc.error());
    auto obj = CachedObject::FromJson(*doc);
    if (!obj) return std::unexpected(obj.error());
    page.objects.push_back(*obj);
    start = comma + 1;
  }
  return page;
}

std::vector<std::string> Names(const DecodedPage& page) {
  std::vector<std::string> out;
  for (const ObjectPtr& o : page.objects) out.emplace_back(o->Name());
  return out;
}

bool Eventually(const std::function<bool()>& pred, milliseconds limit = milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::yield();
  }
  return pred();
}

TEST(ListPipelineTest, PagesDecodedOutOfOrderComeBackInPageOrder) {
  // Page 0 is held until pages 1 and 2 have been decoded, so the workers finish 1, 2, 0.
  Gate later_pages_done;
  std::mutex mu;
  std::vector<std::string> finished;
  auto decode = [&](std::string& body) -> Result<DecodedPage> {
    if (body == "a0,a1") {
      EXPECT_TRUE(later_pages_done.Wait());
    }
    auto page = DecodeNames(body);
    std::lock_guard lock(mu);
    finished.push_back(body);
    if (finished.size() == 2) later_pages_done.Open();
    return page;
  };
  ListPipeline pipeline(3, 3, decode);
  pipeline.Submit("a0,a1");
  pipeline.Submit("b0");
  pipeline.Submit("c0,c1,c2");
  auto all = pipeline.Finish();
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(finished.back(), "a0,a1");  // really decoded out of order
  EXPECT_EQ(Names(*all), (std::vector<std::string>{"a0", "a1", "b0", "c0", "c1", "c2"}));
}

TEST(ListPipelineTest, AFailedPageIsReportedAndFinishReturnsItsError) {
  auto decode = [](std::string& body) -> Result<DecodedPage> {
    if (body == "bad") return MakeError(ErrorCode::kDecode, "list: page 2 is broken");
    return DecodeNames(body);
  };
  ListPipeline pipeline(2, 3, decode);
  pipeline.Submit("a");
  pipeline.Submit("bad");
  ASSERT_TRUE(Eventually([&] { return pipeline.FirstError().has_value(); }));
  EXPECT_EQ(pipeline.FirstError()->message, "list: page 2 is broken");
  pipeline.Submit("c");
  auto all = pipeline.Finish();
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().message, "list: page 2 is broken");
}

TEST(ListPipelineTest, TheLowestFailedPageIsTheOneReported) {
  Gate second_failed;
  auto decode = [&](std::string& body) -> Result<DecodedPage> {
    if (body == "bad1") {
      EXPECT_TRUE(second_failed.Wait());
      return MakeError(ErrorCode::kDecode, "page 1");
    }
    second_failed.Open();
    return MakeError(ErrorCode::kDecode, "page 2");
  };
  ListPipeline pipeline(2, 2, decode);
  pipeline.Submit("bad1");
  pipeline.Submit("bad2");
  auto all = pipeline.Finish();
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().message, "page 1");
}

TEST(ListPipelineTest, SubmitWaitsWhileMaxInFlightPagesAreHeld) {
  Gate release;
  std::atomic<int> decoded{0};
  auto decode = [&](std::string& body) -> Result<DecodedPage> {
    EXPECT_TRUE(release.Wait());
    ++decoded;
    return DecodeNames(body);
  };
  ListPipeline pipeline(1, 2, decode);
  pipeline.Submit("p0");  // taken by the worker, which waits
  pipeline.Submit("p1");  // queued: two in flight
  std::atomic<bool> third_returned{false};
  int decoded_when_third_returned = -1;
  std::thread submitter([&] {
    pipeline.Submit("p2");
    decoded_when_third_returned = decoded.load();
    third_returned = true;
  });
  // Bounded check that the third Submit is held back while both slots are taken.
  EXPECT_FALSE(Eventually([&] { return third_returned.load(); }, milliseconds(100)));
  release.Open();
  submitter.join();
  EXPECT_GE(decoded_when_third_returned, 1);
  auto all = pipeline.Finish();
  ASSERT_TRUE(all);
  EXPECT_EQ(Names(*all), (std::vector<std::string>{"p0", "p1", "p2"}));
}

TEST(ListPipelineTest, CancelDropsQueuedPagesAndDestroyingLeavesNoThread) {
  std::thread([] {}).join();  // a sanitizer starts its helper thread with the first thread
  const size_t threads_before = test_support::SettledThreadCount();
  Gate started, release;
  std::atomic<int> calls{0};
  {
    auto decode = [&](std::string& body) -> Result<DecodedPage> {
      ++calls;
      started.Open();
      EXPECT_TRUE(release.Wait());
      return DecodeNames(body);
    };
    ListPipeline pipeline(1, 4, decode);
    EXPECT_TRUE(test_support::ThreadCountBecomes(threads_before + 1)) << test_support::ThreadCount();
    pipeline.Submit("p0");
    ASSERT_TRUE(started.Wait());  // the only worker is busy with p0
    pipeline.Submit("p1");
    pipeline.Submit("p2");
    pipeline.Cancel();
    release.Open();
    auto all = pipeline.Finish();
    ASSERT_FALSE(all);
    EXPECT_EQ(all.error().message, "list cancelled");
  }
  EXPECT_EQ(calls.load(), 1);  // p1 and p2 were never decoded
  EXPECT_TRUE(test_support::ThreadCountBecomes(threads_before)) << test_support::ThreadCount();
}

TEST(ListPipelineTest, DestroyingItWhileAPageIsDecodedWaitsForThatPage) {
  std::thread([] {}).join();  // a sanitizer starts its helper thread with the first thread
  const size_t threads_before = test_support::SettledThreadCount();
  Gate started;
  std::atomic<bool> decode_returned{false};
  {
    auto decode = [&](std::string& body) -> Result<DecodedPage> {
      started.Open();
      auto page = DecodeNames(body);
      decode_returned = true;
      return page;
    };
    ListPipeline pipeline(2, 2, decode);
    pipeline.Submit("p0");
    ASSERT_TRUE(started.Wait());
  }
  EXPECT_TRUE(decode_returned.load());  // the destructor joined the worker after its page
  EXPECT_TRUE(test_support::ThreadCountBecomes(threads_before)) << test_support::ThreadCount();
}

TEST(ListPipelineTest, WithoutWorkersEachPageIsDecodedInSubmit) {
  std::thread::id decoded_on;
  auto decode = [&](std::string& body) -> Result<DecodedPage> {
    decoded_on = std::this_thread::get_id();
    return DecodeNames(body);
  };
  ListPipeline pipeline(0, 1, decode);
  pipeline.Submit("x,y");
  EXPECT_EQ(decoded_on, std::this_thread::get_id());
  pipeline.Submit("z");
  auto all = pipeline.Finish();
  ASSERT_TRUE(all);
  EXPECT_EQ(Names(*all), (std::vector<std::string>{"x", "y", "z"}));
}

}  // namespace
}  // namespace berth::shim
