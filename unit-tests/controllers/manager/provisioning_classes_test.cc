// --provisioning-classes: the classes berth handles; anything else is refused at startup.
#include "controllers/manager/provisioning_classes.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

using Names = std::vector<std::string>;

std::string ParseError(std::string_view value) {
  auto r = ParseProvisioningClasses(value);
  EXPECT_FALSE(r.has_value()) << value;
  if (r) return "";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  return r.error().message;
}

TEST(ProvisioningClassesTest, TheDefaultIsBothUpstreamClasses) {
  EXPECT_EQ(DefaultProvisioningClasses(), (Names{"check-capacity.autoscaling.x-k8s.io",
                                                 "best-effort-atomic-scale-up.autoscaling.x-k8s.io"}));
}

TEST(ProvisioningClassesTest, AListIsTrimmedAndDeduplicatedInOrder) {
  auto r = ParseProvisioningClasses(
      " best-effort-atomic-scale-up.autoscaling.x-k8s.io , check-capacity.autoscaling.x-k8s.io,"
      "best-effort-atomic-scale-up.autoscaling.x-k8s.io");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(*r, (Names{"best-effort-atomic-scale-up.autoscaling.x-k8s.io", "check-capacity.autoscaling.x-k8s.io"}));
  auto one = ParseProvisioningClasses("check-capacity.autoscaling.x-k8s.io");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(*one, (Names{"check-capacity.autoscaling.x-k8s.io"}));
}

TEST(ProvisioningClassesTest, AClassBerthDoesNotImplementIsRefusedNamingTheSupportedOnes) {
  EXPECT_EQ(ParseError("queued-provisioning.gke.io"),
            "--provisioning-classes: berth does not implement class \"queued-provisioning.gke.io\" (supported: "
            "check-capacity.autoscaling.x-k8s.io, best-effort-atomic-scale-up.autoscaling.x-k8s.io)");
  // Exact names only: case and prefixes matter, as in Cluster Autoscaler.
  EXPECT_NE(ParseError("Check-Capacity.autoscaling.x-k8s.io").find("does not implement"), std::string::npos);
  EXPECT_NE(ParseError("foo.check-capacity.autoscaling.x-k8s.io").find("does not implement"), std::string::npos);
}

TEST(ProvisioningClassesTest, OldUpstreamNamesAreRefusedWithTheirReplacement) {
  EXPECT_EQ(ParseError("check-capacity.kubernetes.io"),
            "--provisioning-classes: \"check-capacity.kubernetes.io\" was renamed upstream; use "
            "\"check-capacity.autoscaling.x-k8s.io\"");
  EXPECT_NE(ParseError("atomic-scale-up.kubernetes.io").find("use \"best-effort-atomic-scale-up.autoscaling.x-k8s.io\""),
            std::string::npos);
  EXPECT_NE(ParseError("atomic-scale-up.autoscaling.x-k8s.io").find("renamed upstream"), std::string::npos);
}

TEST(ProvisioningClassesTest, EmptyListsAndItemsAreRefused) {
  EXPECT_NE(ParseError("").find("needs at least one class"), std::string::npos);
  EXPECT_NE(ParseError("  ").find("needs at least one class"), std::string::npos);
  EXPECT_NE(ParseError("check-capacity.autoscaling.x-k8s.io,").find("empty item"), std::string::npos);
  EXPECT_NE(ParseError(",check-capacity.autoscaling.x-k8s.io").find("empty item"), std::string::npos);
}

}  // namespace
}  // namespace berth::controllers
