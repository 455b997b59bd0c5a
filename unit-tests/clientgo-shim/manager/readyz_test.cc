// The manager's /readyz "informer-sync" check names every informer that has not synced and why.
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/wait_for.h"
#include "clientgo-shim/client/fake_rest_client.h"
#include "clientgo-shim/manager/manager.h"

namespace berth::shim {
namespace {

using namespace std::chrono_literals;
using ::berth::testing::WaitFor;

TEST(InformersSyncedCheckTest, NamesTheInformersThatHaveNotSyncedWithTheirLastError) {
  auto rest = std::make_shared<testing::FakeRestClient>([](const RestRequest& r) -> Result<RestResponse> {
    if (r.path == "/api/v1/nodes") {
      return testing::Ok(R"({"kind":"NodeList","metadata":{"resourceVersion":"5"},"items":[]})");
    }
    return testing::Fail(ErrorCode::kForbidden, 403,
                         "pods is forbidden: User \"berth\" cannot list resource \"pods\"");
  });
  SharedInformerFactoryOptions fo;
  fo.backoff.initial = 5ms;
  fo.backoff.cap = 20ms;
  SharedInformerFactory factory(rest, fo);
  auto nodes = factory.InformerFor({"/api/v1/nodes", "", ""});
  auto pods = factory.InformerFor({"/api/v1/pods", "app=web", ""});
  EXPECT_FALSE(InformersSyncedCheck(factory)) << "nothing has synced before Start";
  factory.Start();
  // Created after Start: never started.
  auto late = factory.InformerFor({"/api/v1/configmaps", "", ""});
  ASSERT_TRUE(WaitFor([&] { return nodes->HasSynced() && pods->Stats().errors >= 2; }));

  Status s = InformersSyncedCheck(factory);
  ASSERT_FALSE(s);
  const std::string& why = s.error().message;
  EXPECT_EQ(why.find("/api/v1/nodes"), std::string::npos) << why;
  EXPECT_NE(why.find("informer /api/v1/configmaps has not synced (no list has completed yet, no "
                     "error so far)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("informer /api/v1/pods labelSelector=app=web has not synced: last list "
                     "error: pods is forbidden: User \"berth\" cannot list resource \"pods\" ("),
            std::string::npos)
      << why;
  EXPECT_NE(why.find(" list/watch errors)"), std::string::npos) << why;
  factory.Stop();
  (void)late;
}

TEST(InformersSyncedCheckTest, PassesOnceEveryInformerSynced) {
  auto rest = std::make_shared<testing::FakeRestClient>([](const RestRequest&) {
    return testing::Ok(R"({"kind":"List","metadata":{"resourceVersion":"5"},"items":[]})");
  });
  SharedInformerFactory factory(rest);
  auto nodes = factory.InformerFor({"/api/v1/nodes", "", ""});
  factory.Start();
  ASSERT_TRUE(factory.WaitForCacheSync(std::chrono::steady_clock::now() + 5s));
  EXPECT_TRUE(InformersSyncedCheck(factory));
  factory.Stop();
}

}  // namespace
}  // namespace berth::shim
