#include "e2e/kubesim/schema/go_format.h"

#include <gtest/gtest.h>

#include "e2e/kubesim/schema/cause.h"
#include "schema_test_util.h"

namespace berth::kubesim::schema {
namespace {

TEST(GoFormatTest, BadValuesRenderLikeFieldErrorBody) {
  auto v = testing::ParseJson(R"({"s":"x","i":3,"f":2.5,"b":true,"n":null,"o":{"b":1,"a":[1,"y"]}})");
  EXPECT_EQ(GoBadValue(v["s"]), R"("x")");
  EXPECT_EQ(GoBadValue(v["i"]), "3");
  EXPECT_EQ(GoBadValue(v["f"]), "2.5");
  EXPECT_EQ(GoBadValue(v["b"]), "true");
  EXPECT_EQ(GoBadValue(v["n"]), R"("null")");
  EXPECT_EQ(GoBadValue(v["o"]),
            R"(map[string]interface {}{"a":[]interface {}{1, "y"}, "b":1})");
}

TEST(CauseTest, InvalidMessageWithoutCausesHasNoColonAndDuplicatesCollapse) {
  EXPECT_EQ(FormatInvalidMessage("Reservation.scheduling.koordinator.sh", "r1", {}),
            R"(Reservation.scheduling.koordinator.sh "r1" is invalid)");
  const Cause c{"FieldValueRequired", "spec.template", "Required value"};
  EXPECT_EQ(FormatInvalidMessage("Reservation.scheduling.koordinator.sh", "r1", {c, c}),
            R"(Reservation.scheduling.koordinator.sh "r1" is invalid: spec.template: Required value)");
}

TEST(CauseTest, MakeCauseOmitsTheValueWhereFieldErrorDoes) {
  EXPECT_EQ(MakeCause("FieldValueRequired", "a", "\"x\"", "").message, "Required value");
  EXPECT_EQ(MakeCause("FieldValueTooLong", "a", "\"x\"", "may not be longer than 1").message,
            "Too long: may not be longer than 1");
  EXPECT_EQ(MakeCause("FieldValueInvalid", "a", "5", "bad").message, "Invalid value: 5: bad");
  EXPECT_EQ(CauseTypeText("FieldValueTypeInvalid"), "Invalid value");
}

}  // namespace
}  // namespace berth::kubesim::schema
