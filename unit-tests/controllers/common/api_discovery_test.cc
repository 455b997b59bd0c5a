// ListsResource: reading an APIResourceList (discovery) for one resource, and refusing what is not one.
#include "controllers/common/api_discovery.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

TEST(ListsResourceTest, FindsThePluralAmongTheResourcesButNotItsSubresources) {
  const char* body = R"({"kind":"APIResourceList","groupVersion":"scheduling.koordinator.sh/v1alpha1","resources":[
    {"name":"reservations","namespaced":false,"kind":"Reservation"},{"name":"reservations/status"},
    {"name":"podmigrationjobs/status"}]})";
  EXPECT_EQ(ListsResource(body, "reservations"), true);
  EXPECT_EQ(ListsResource(body, "podmigrationjobs"), false);  // only its status subresource: not served
  EXPECT_EQ(ListsResource(R"({"resources":[]})", "reservations"), false);
}

TEST(ListsResourceTest, AnAnswerThatIsNoAPIResourceListIsAnError) {
  for (const char* body : {"", "not json", "[]", R"({"resources":{"name":"reservations"}})", R"({"kind":"Status"})",
                           R"({"resources":[)"}) {
    auto r = ListsResource(body, "reservations");
    ASSERT_FALSE(r.has_value()) << body;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << body;
  }
  // Entries that are not objects are skipped, not read as a name.
  EXPECT_EQ(ListsResource(R"({"resources":["reservations",7,null]})", "reservations"), false);
}

// Discovery of GET /apis/autoscaling.x-k8s.io/<version>, which decides between v1 and v1beta1.
TEST(ListsResourceTest, ProvisioningRequestsDiscoveryAsTheControllerReadsIt) {
  auto yes = ListsResource(R"({"kind":"APIResourceList","groupVersion":"autoscaling.x-k8s.io/v1beta1",
    "resources":[{"name":"provisioningrequests","namespaced":true,"kind":"ProvisioningRequest"},
                 {"name":"provisioningrequests/status","namespaced":true,"kind":"ProvisioningRequest"}]})", "provisioningrequests");
  ASSERT_TRUE(yes.has_value());
  EXPECT_TRUE(*yes);
  // Only the status subresource, or another resource of the group: not served.
  auto status_only = ListsResource(R"({"resources":[{"name":"provisioningrequests/status"},
    {"name":"capacitybuffers"}]})", "provisioningrequests");
  ASSERT_TRUE(status_only.has_value());
  EXPECT_FALSE(*status_only);
  auto empty = ListsResource(R"({"resources":[]})", "provisioningrequests");
  ASSERT_TRUE(empty.has_value());
  EXPECT_FALSE(*empty);
}

TEST(ListsResourceTest, ProvisioningRequestsDiscoveryThatIsNoAPIResourceListIsRefused) {
  for (std::string_view body : {"", "not json", "[]", "{\"resources\":\"provisioningrequests\"}", "{}",
                                "{\"resources\":[\"provisioningrequests\"]", "42"}) {
    auto r = ListsResource(body, "provisioningrequests");
    EXPECT_FALSE(r.has_value()) << body;
  }
  // Entries that are not objects are skipped, not a crash.
  auto odd = ListsResource(R"({"resources":[1,"provisioningrequests",{"name":7},{"name":"provisioningrequests"}]})", "provisioningrequests");
  ASSERT_TRUE(odd.has_value());
  EXPECT_TRUE(*odd);
}

}  // namespace
}  // namespace berth::controllers
