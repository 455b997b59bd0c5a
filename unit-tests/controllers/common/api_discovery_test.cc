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

}  // namespace
}  // namespace berth::controllers
