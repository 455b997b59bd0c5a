#include "clientgo-shim/base/go_bool.h"

#include <gtest/gtest.h>

namespace berth {
namespace {

TEST(ParseGoBoolTest, AcceptsExactlyStrconvParseBoolForms) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) EXPECT_EQ(ParseGoBool(t), true) << t;
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"}) EXPECT_EQ(ParseGoBool(f), false) << f;
  for (const char* bad : {"", "yes", "no", "on", "2", "tRUE", " true", "true "}) {
    EXPECT_EQ(ParseGoBool(bad), std::nullopt) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace berth
