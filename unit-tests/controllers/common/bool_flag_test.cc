#include "controllers/common/bool_flag.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

BoolFlagMatch Take(std::vector<std::string> args, size_t& i, bool& out, std::string& error) {
  return TakeBoolFlag(args, i, "--leader-elect", out, error);
}

TEST(TakeBoolFlagTest, NamedAloneIsTrue) {
  bool out = false;
  std::string error;
  size_t i = 0;
  EXPECT_EQ(Take({"--leader-elect"}, i, out, error), BoolFlagMatch::kTaken);
  EXPECT_TRUE(out);
  EXPECT_EQ(i, 0u);
}

TEST(TakeBoolFlagTest, NamedAloneDoesNotTakeTheNextFlag) {
  bool out = false;
  std::string error;
  size_t i = 0;
  EXPECT_EQ(Take({"--leader-elect", "--zap-devel"}, i, out, error), BoolFlagMatch::kTaken);
  EXPECT_TRUE(out);
  EXPECT_EQ(i, 0u);
}

TEST(TakeBoolFlagTest, FollowingTrueOrFalseIsTheValue) {
  bool out = true;
  std::string error;
  size_t i = 0;
  EXPECT_EQ(Take({"--leader-elect", "false", "--x"}, i, out, error), BoolFlagMatch::kTaken);
  EXPECT_FALSE(out);
  EXPECT_EQ(i, 1u);
  i = 0;
  EXPECT_EQ(Take({"--leader-elect", "true"}, i, out, error), BoolFlagMatch::kTaken);
  EXPECT_TRUE(out);
  EXPECT_EQ(i, 1u);
}

TEST(TakeBoolFlagTest, EqualsTakesGoForms) {
  bool out = true;
  std::string error;
  size_t i = 0;
  EXPECT_EQ(Take({"--leader-elect=0"}, i, out, error), BoolFlagMatch::kTaken);
  EXPECT_FALSE(out);
  EXPECT_EQ(Take({"--leader-elect=True"}, i, out, error), BoolFlagMatch::kTaken);
  EXPECT_TRUE(out);
}

TEST(TakeBoolFlagTest, BadValueIsAnErrorNamingFlagAndValueAndLeavesTheValue) {
  bool out = true;
  std::string error;
  size_t i = 0;
  EXPECT_EQ(Take({"--leader-elect=yes"}, i, out, error), BoolFlagMatch::kInvalid);
  EXPECT_TRUE(out);
  EXPECT_EQ(error, "invalid boolean value \"yes\" for --leader-elect");
  EXPECT_EQ(Take({"--leader-elect="}, i, out, error), BoolFlagMatch::kInvalid);
}

TEST(TakeBoolFlagTest, OtherFlagsAndPrefixesAreNotMine) {
  bool out = false;
  std::string error;
  size_t i = 0;
  EXPECT_EQ(Take({"--leader-elect-lease-duration=30s"}, i, out, error), BoolFlagMatch::kNotMine);
  EXPECT_EQ(Take({"--leader-electx"}, i, out, error), BoolFlagMatch::kNotMine);
  EXPECT_FALSE(out);
}

}  // namespace
}  // namespace berth::controllers
