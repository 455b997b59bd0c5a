#include "e2e/kubesim/api/path_segments.h"

#include <gtest/gtest.h>

namespace berth::kubesim {
namespace {

using Parts = std::vector<std::string_view>;

TEST(SplitPathTest, ReturnsTheSegmentsBetweenSlashes) {
  EXPECT_EQ(SplitPath("/api/v1/namespaces/ns/pods/p/status"),
            (Parts{"api", "v1", "namespaces", "ns", "pods", "p", "status"}));
}

TEST(SplitPathTest, EmptySegmentsAndEmptyPathsYieldNothing) {
  EXPECT_EQ(SplitPath("//apis///apps/"), (Parts{"apis", "apps"}));
  EXPECT_TRUE(SplitPath("").empty());
  EXPECT_TRUE(SplitPath("///").empty());
  EXPECT_EQ(SplitPath("version"), (Parts{"version"}));
}

}  // namespace
}  // namespace berth::kubesim
