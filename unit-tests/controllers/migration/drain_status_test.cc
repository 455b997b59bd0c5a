#include <gtest/gtest.h>

#include "controllers/migration/drain_controller.h"

namespace berth::controllers {
namespace {

namespace mig = reconcile::migration;

TEST(DrainStatusAnnotationTest, RoundTrips) {
  mig::DrainStatus s{"Draining", 3, "3 evictable pods left: \"a\"", std::chrono::sys_days{std::chrono::year{2026} / 1 / 2}};
  std::string text = DrainStatusJson(s);
  EXPECT_EQ(text,
            R"({"status":"Draining","podsRemaining":3,"message":"3 evictable pods left: \"a\"",)"
            R"("lastTransitionTime":"2026-01-02T00:00:00Z"})");
  auto back = ParseDrainStatus(text);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, s);
}

TEST(DrainStatusAnnotationTest, MalformedAnnotationsAreErrors) {
  for (const char* bad : {"", "{", "[]", "\"Drained\"", R"({"status":"Done","podsRemaining":0,"lastTransitionTime":"2026-01-02T00:00:00Z"})",
                          R"({"status":"Drained","podsRemaining":-1,"lastTransitionTime":"2026-01-02T00:00:00Z"})",
                          R"({"status":"Drained","podsRemaining":"0","lastTransitionTime":"2026-01-02T00:00:00Z"})",
                          R"({"status":"Drained","lastTransitionTime":"2026-01-02T00:00:00Z"})",
                          R"({"status":"Drained","podsRemaining":0,"lastTransitionTime":"yesterday"})",
                          R"({"status":"Drained","podsRemaining":0})"}) {
    EXPECT_FALSE(ParseDrainStatus(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace berth::controllers
