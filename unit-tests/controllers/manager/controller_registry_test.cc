// --controllers: kube-controller-manager's selection syntax over berth-manager's controller table,
// and starting only the selected controllers.
#include "controllers/manager/controller_registry.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

using Names = std::vector<std::string>;

std::vector<ControllerRegistration> Table() {
  return {{"reservation", true, nullptr}, {"scheduler", true, nullptr}, {"provisioningrequest", true, nullptr},
          {"experimental", false, nullptr}};
}

Names Select(std::string_view value) {
  auto r = SelectControllers(value, Table());
  EXPECT_TRUE(r.has_value()) << value << ": " << r.error().message;
  return r ? *r : Names{};
}

// Recording: a start function that appends `name` to `started`.
std::function<Status()> Recording(std::vector<std::string>& started, std::string name) {
  return [&started, name = std::move(name)]() -> Status {
    started.push_back(name);
    return {};
  };
}

std::string SelectError(std::string_view value) {
  auto r = SelectControllers(value, Table());
  EXPECT_FALSE(r.has_value()) << value;
  if (r) return "";
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  return r.error().message;
}

TEST(SelectControllersTest, StarEnablesEveryDefaultOnControllerInTableOrder) {
  EXPECT_EQ(Select("*"), (Names{"reservation", "scheduler", "provisioningrequest"}));
  EXPECT_EQ(Select(kDefaultControllers), Select("*"));
}

TEST(SelectControllersTest, MinusNameDisablesOneAndNameEnablesOneThatIsOffByDefault) {
  EXPECT_EQ(Select("*,-scheduler"), (Names{"reservation", "provisioningrequest"}));
  EXPECT_EQ(Select("*,experimental"), (Names{"reservation", "scheduler", "provisioningrequest", "experimental"}));
  EXPECT_EQ(Select("-scheduler,*"), (Names{"reservation", "provisioningrequest"}));
}

TEST(SelectControllersTest, WithoutStarOnlyTheNamedControllersRun) {
  EXPECT_EQ(Select("scheduler"), (Names{"scheduler"}));
  EXPECT_EQ(Select("provisioningrequest,reservation"), (Names{"reservation", "provisioningrequest"}));
  EXPECT_EQ(Select("reservation,-scheduler"), (Names{"reservation"}));
}

TEST(SelectControllersTest, TheFirstEntryNamingAControllerWinsAsInKubeControllerManager) {
  EXPECT_EQ(Select("scheduler,-scheduler"), (Names{"scheduler"}));
  EXPECT_EQ(Select("*,-scheduler,scheduler"), (Names{"reservation", "provisioningrequest"}));
}

TEST(SelectControllersTest, SpacesAroundEntriesAreIgnored) {
  EXPECT_EQ(Select(" * , -scheduler "), (Names{"reservation", "provisioningrequest"}));
}

TEST(SelectControllersTest, AnUnknownNameIsRejectedWithTheKnownNames) {
  EXPECT_EQ(SelectError("*,-schedular"),
            "--controllers: \"schedular\" is not in the list of known controllers (known: reservation, scheduler, "
            "provisioningrequest, experimental)");
  EXPECT_NE(SelectError("reservations").find("\"reservations\" is not in the list"), std::string::npos);
  EXPECT_NE(SelectError("--scheduler").find("\"-scheduler\" is not in the list"), std::string::npos);
  EXPECT_NE(SelectError("**").find("\"**\" is not in the list"), std::string::npos);
}

TEST(SelectControllersTest, EmptyEntriesAreRejectedNotSkipped) {
  EXPECT_NE(SelectError("").find("empty entry"), std::string::npos);
  EXPECT_NE(SelectError("*,,-scheduler").find("empty entry in \"*,,-scheduler\""), std::string::npos);
  EXPECT_NE(SelectError("reservation,").find("empty entry"), std::string::npos);
  EXPECT_NE(SelectError("-").find("\"\" is not in the list"), std::string::npos);
}

TEST(SelectControllersTest, ASelectionThatEnablesNothingIsRejected) {
  EXPECT_EQ(SelectError("-reservation,-scheduler,-provisioningrequest"),
            "--controllers=-reservation,-scheduler,-provisioningrequest enables no controller (known: reservation, "
            "scheduler, provisioningrequest, experimental)");
  EXPECT_NE(SelectError("-scheduler").find("enables no controller"), std::string::npos);
}

TEST(StartControllersTest, OnlyEnabledControllersStartInTableOrder) {
  std::vector<std::string> started;
  auto starter = [&started](std::string name) { return Recording(started, std::move(name)); };
  std::vector<ControllerRegistration> table = {
      {"reservation", true, starter("reservation")}, {"scheduler", true, starter("scheduler")},
      {"provisioningrequest", true, starter("provisioningrequest")}};
  auto enabled = SelectControllers("*,-scheduler", table);
  ASSERT_TRUE(enabled.has_value());
  ASSERT_TRUE(StartControllers(table, *enabled).has_value());
  EXPECT_EQ(started, (Names{"reservation", "provisioningrequest"}));
}

TEST(StartControllersTest, ControllersWithoutAStartFunctionAreSkipped) {
  int started = 0;
  std::vector<ControllerRegistration> table = {{"reservation", true, [&]() -> Status {
                                                  ++started;
                                                  return {};
                                                }},
                                               {"provisioningrequest", true, nullptr}};
  ASSERT_TRUE(StartControllers(table, {"reservation", "provisioningrequest"}).has_value());
  EXPECT_EQ(started, 1);
}

TEST(StartControllersTest, AControllerWhoseApiIsNotServedIsSkippedAndTheOthersStart) {
  std::vector<std::string> started;
  auto starter = [&started](std::string name) { return Recording(started, std::move(name)); };
  std::vector<ControllerRegistration> table = {
      {"reservation", true, starter("reservation"), [] { return std::string(); }},
      {"migration", true, starter("migration"), [] { return std::string("scheduling.koordinator.sh/v1alpha1 podmigrationjobs"); }},
      {"scheduler", true, starter("scheduler"), nullptr}};
  ASSERT_TRUE(StartControllers(table, {"reservation", "migration", "scheduler"}).has_value());
  EXPECT_EQ(started, (Names{"reservation", "scheduler"}));
}

TEST(StartControllersTest, TheFirstFailureStopsAndNamesTheController) {
  bool later_started = false;
  std::vector<ControllerRegistration> table = {
      {"reservation", true, []() -> Status { return MakeError(ErrorCode::kInvalidArgument, "bad option"); }},
      {"scheduler", true, [&]() -> Status {
         later_started = true;
         return {};
       }}};
  auto s = StartControllers(table, {"reservation", "scheduler"});
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.error().message, "cannot set up the reservation controller: bad option");
  EXPECT_FALSE(later_started);
}

TEST(ControllerNamesUsageTest, ListsTheTableAndWhatIsOffByDefault) {
  EXPECT_EQ(ControllerNamesUsage(Table()),
            "reservation, scheduler, provisioningrequest, experimental (off by default: experimental)");
  EXPECT_EQ(ControllerNamesUsage({{"reservation", true, nullptr}}), "reservation (all on by default)");
}

}  // namespace
}  // namespace berth::controllers
