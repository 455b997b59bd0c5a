// --scheduler-names parsing: comma-separated, spaces trimmed, empty items and duplicates dropped.
#include <gtest/gtest.h>

#include "controllers/scheduler/scheduler_controller.h"

namespace berth::controllers {
namespace {

TEST(SchedulerNamesTest, ACommaSeparatedListIsTrimmedAndDeduplicatedInOrder) {
  EXPECT_EQ(ParseSchedulerNames("koord-scheduler"), (std::vector<std::string>{"koord-scheduler"}));
  EXPECT_EQ(ParseSchedulerNames(" berth-a , berth-b,berth-a,"), (std::vector<std::string>{"berth-a", "berth-b"}));
}

TEST(SchedulerNamesTest, AListOfNothingButCommasAndSpacesIsEmpty) {
  EXPECT_TRUE(ParseSchedulerNames("").empty());
  EXPECT_TRUE(ParseSchedulerNames(" , ,, ").empty());
}

}  // namespace
}  // namespace berth::controllers
