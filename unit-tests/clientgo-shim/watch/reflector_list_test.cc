// The reflector's pipelined LIST: pages decoded on workers while the next is fetched.
#include <algorithm>
#include <condition_variable>
#include <mutex>

#include <gtest/gtest.h>

#include "clientgo-shim/watch/fake_rest_client.h"
#include "clientgo-shim/watch/reflector_test_support.h"
#include "clientgo-shim/watch/reflector.h"
#include "support/thread_count.h"

namespace berth::shim {
namespace {

using namespace berth::shim::testing;
using std::chrono::milliseconds;

ReflectorOptions Options(int workers) {
  ReflectorOptions o = PodReflectorOptions();
  o.list_watch.page_size = 2;
  o.list_decode_workers = workers;
  return o;
}

SteadyTime In5s() { return std::chrono::steady_clock::now() + std::chrono::seconds(5); }

// PagedServer answers LIST requests by continue token ("" is page 1, "p2" page 2, …) through
// `respond`, told which list this is (1 for the first, 2 after the first restart, …).
class PagedServer {
 public:
  std::function<Result<RestResponse>(int page, int list)> respond;
  Result<RestResponse> operator()(const RestRequest& r) {
    int page = 1;
    if (auto it = r.query.find("continue"); it != r.query.end()) page = std::stoi(it->second.substr(1));
    int list;
    {
      std::lock_guard lock(mu_);
      if (page == 1) ++lists_;
      list = lists_;
    }
    return respond(page, list);
  }

 private:
  std::mutex mu_;
  int lists_ = 0;
};

std::string Page(int page, int pages, std::vector<std::string> items, const std::string& rv = "100") {
  return ListJson(items, rv, page < pages ? "p" + std::to_string(page + 1) : "");
}

TEST(ReflectorListTest, ManyPagesOnFourWorkersLandInPageOrder) {
  // 40 pages; "dup" is in page 3 (rv 3) and page 37 (rv 37): a list's later duplicate wins, so
  // page 37's must, whichever page a worker finished last.
  constexpr int kPages = 40;
  auto client = std::make_shared<FakeRestClient>();
  auto server = std::make_shared<PagedServer>();
  server->respond = [](int page, int) -> Result<RestResponse> {
    std::vector<std::string> items = {PodJson("a", "p" + std::to_string(page), std::to_string(page))};
    if (page == 3 || page == 37) items.push_back(PodJson("a", "dup", std::to_string(page)));
    return RestResponse{200, Page(page, kPages, items), {}};
  };
  client->list_handler = [server](const RestRequest& r) { return (*server)(r); };
  auto store = std::make_shared<Store>();
  Reflector r(client, store, Options(4));
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(In5s()));
  auto keys = KeysWithRv(*store);
  EXPECT_EQ(keys.size(), static_cast<size_t>(kPages) + 1);
  EXPECT_TRUE(std::count(keys.begin(), keys.end(), "a/dup@37"));
  EXPECT_TRUE(std::count(keys.begin(), keys.end(), "a/p40@40"));
  EXPECT_EQ(r.Stats().list_requests, static_cast<uint64_t>(kPages));
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return client->WatchRequests().size() == 1; }));
  EXPECT_EQ(client->WatchRequests()[0].query.at("resourceVersion"), "100");
  r.Stop();
}

TEST(ReflectorListTest, APageThatDoesNotDecodeAbortsTheListWhichRestartsAtPageOne) {
  // Page 3's items are not an array the first time: the scan finds its continue token, a
  // worker fails it, and the list starts over; nothing of the failed list reaches the store.
  constexpr int kPages = 6;
  auto client = std::make_shared<FakeRestClient>();
  auto server = std::make_shared<PagedServer>();
  server->respond = [](int page, int list) -> Result<RestResponse> {
    if (page == 3 && list == 1) {
      return RestResponse{200, R"({"metadata":{"resourceVersion":"50","continue":"p4"},"items":"x"})", {}};
    }
    const std::string rv = list == 1 ? "50" : "60";
    return RestResponse{200, Page(page, kPages, {PodJson("a", "p" + std::to_string(page), rv)}, rv), {}};
  };
  client->list_handler = [server](const RestRequest& r) { return (*server)(r); };
  auto store = std::make_shared<Store>();
  std::vector<std::string> added;
  std::mutex added_mu;
  store->AddEventHandler({.on_add = [&](const ObjectPtr& o, bool) {
    std::lock_guard lock(added_mu);
    added.push_back(std::string(o->Key()) + "@" + std::string(o->ResourceVersion()));
  }}, false);
  Reflector r(client, store, Options(2));
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(In5s()));
  EXPECT_EQ(KeysWithRv(*store), (std::vector<std::string>{"a/p1@60", "a/p2@60", "a/p3@60",
                                                          "a/p4@60", "a/p5@60", "a/p6@60"}));
  {
    std::lock_guard lock(added_mu);
    EXPECT_EQ(added.size(), 6u);  // one Replace: the aborted list added nothing
  }
  EXPECT_EQ(r.Stats().errors, 1u);
  EXPECT_EQ(r.Stats().lists_completed, 1u);
  EXPECT_EQ(r.Stats().last_error, "list: items is not an array");
  auto lists = client->ListRequests();
  // After the failure a request without a continue token starts the list again.
  auto restart = std::find_if(lists.begin() + 1, lists.end(),
                              [](const RestRequest& q) { return !q.query.count("continue"); });
  ASSERT_NE(restart, lists.end());
  EXPECT_GE(restart - lists.begin(), 3);  // pages 1–3 at least were requested first
  EXPECT_EQ(lists.end() - restart, kPages);
  r.Stop();
}

TEST(ReflectorListTest, AServerErrorOnPageKAbortsTheListAndRetriesCleanly) {
  constexpr int kPages = 5;
  auto client = std::make_shared<FakeRestClient>();
  auto server = std::make_shared<PagedServer>();
  server->respond = [](int page, int list) -> Result<RestResponse> {
    if (page == 4 && list == 1) {
      return std::unexpected(HttpError(ErrorCode::kInternal, 500, "InternalError", "etcd hiccup"));
    }
    return RestResponse{200, Page(page, kPages, {PodJson("a", "p" + std::to_string(page), "7")}), {}};
  };
  client->list_handler = [server](const RestRequest& r) { return (*server)(r); };
  auto store = std::make_shared<Store>();
  Reflector r(client, store, Options(2));
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(In5s()));
  EXPECT_EQ(store->Size(), 5u);
  EXPECT_EQ(r.Stats().errors, 1u);
  EXPECT_EQ(r.Stats().last_error, "etcd hiccup");
  EXPECT_EQ(r.Stats().list_requests, 4u + kPages);
  r.Stop();
}

TEST(ReflectorListTest, AnExpiredContinueTokenRelistsFromScratchWithOneFullList) {
  // Page 2's token has expired (410): client-go's pager falls back to one unpaginated list.
  // Page 1 of the expired list held "gone", which the full list no longer has.
  auto client = std::make_shared<FakeRestClient>();
  client->list_handler = [](const RestRequest& r) -> Result<RestResponse> {
    if (!r.query.count("limit")) {
      return RestResponse{200, ListJson({PodJson("a", "x", "20"), PodJson("a", "y", "21")}, "30"), {}};
    }
    if (!r.query.count("continue")) {
      return RestResponse{200, ListJson({PodJson("a", "gone", "5"), PodJson("a", "x", "6")}, "10", "p2"), {}};
    }
    return std::unexpected(HttpError(ErrorCode::kGone, 410, "Expired",
                                     "The provided continue parameter is too old"));
  };
  auto store = std::make_shared<Store>();
  Reflector r(client, store, Options(2));
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(In5s()));
  EXPECT_EQ(KeysWithRv(*store), (std::vector<std::string>{"a/x@20", "a/y@21"}));
  auto lists = client->ListRequests();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_FALSE(lists[2].query.count("limit"));
  EXPECT_FALSE(lists[2].query.count("continue"));
  EXPECT_EQ(r.Stats().relist_errors, 1u);
  ASSERT_TRUE(FakeRestClient::WaitUntil([&] { return client->WatchRequests().size() == 1; }));
  EXPECT_EQ(client->WatchRequests()[0].query.at("resourceVersion"), "30");
  r.Stop();
}

TEST(ReflectorListTest, StopMidListLeavesNoThreadBehind) {
  // Page 3's request is held until Stop has begun; pages 1 and 2 are with the workers by then.
  std::thread([] {}).join();  // a sanitizer starts its helper thread with the first thread
  const size_t threads_before = test_support::SettledThreadCount();
  auto client = std::make_shared<FakeRestClient>();
  std::mutex mu;
  std::condition_variable cv;
  bool page3_reached = false, release = false;
  client->list_handler = [&](const RestRequest& r) -> Result<RestResponse> {
    const std::string cont = r.query.count("continue") ? r.query.at("continue") : "";
    if (cont == "p3") {
      std::unique_lock lock(mu);
      page3_reached = true;
      cv.notify_all();
      EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return release; }));
    }
    const int page = cont.empty() ? 1 : std::stoi(cont.substr(1));
    return RestResponse{200, Page(page, 10, {PodJson("a", "p" + std::to_string(page), "1")}), {}};
  };
  auto store = std::make_shared<Store>();
  auto r = std::make_unique<Reflector>(client, store, Options(3));
  r->Start();
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return page3_reached; }));
  }
  // The run thread and three decode workers.
  EXPECT_TRUE(test_support::ThreadCountBecomes(threads_before + 4)) << test_support::ThreadCount();
  std::thread stopper([&] { r->Stop(); });
  // WaitForCacheSync returns once Stop has set the stop flag (the list cannot complete: page 3
  // is held), so page 3 is released only after that.
  EXPECT_FALSE(r->WaitForCacheSync(In5s()));
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  stopper.join();
  EXPECT_FALSE(r->HasSynced());
  EXPECT_EQ(store->Size(), 0u);
  EXPECT_TRUE(test_support::ThreadCountBecomes(threads_before)) << test_support::ThreadCount();
  EXPECT_EQ(client->ListRequests().size(), 3u);  // no page requested after Stop
}

TEST(ReflectorListTest, WithoutWorkersTheListIsDecodedOnTheReflectorThread) {
  auto client = std::make_shared<FakeRestClient>();
  client->QueueListBody(ListJson({PodJson("a", "p1", "3")}, "10", "p2"));
  client->QueueListBody(ListJson({PodJson("a", "p2", "4")}, "10"));
  auto store = std::make_shared<Store>();
  std::thread([] {}).join();  // a sanitizer starts its helper thread with the first thread
  const size_t threads_before = test_support::SettledThreadCount();
  Reflector r(client, store, Options(0));
  r.Start();
  ASSERT_TRUE(r.WaitForCacheSync(In5s()));
  EXPECT_TRUE(test_support::ThreadCountBecomes(threads_before + 1)) << test_support::ThreadCount();
  EXPECT_EQ(KeysWithRv(*store), (std::vector<std::string>{"a/p1@3", "a/p2@4"}));
  r.Stop();
}

}  // namespace
}  // namespace berth::shim
