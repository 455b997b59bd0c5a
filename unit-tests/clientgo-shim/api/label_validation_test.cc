#include "clientgo-shim/api/label_validation.h"

#include <string>

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

TEST(LabelValidationTest, AcceptsQualifiedNamesWithOptionalDnsPrefix) {
  for (const char* key : {"app", "a", "A1", "my.name", "123-abc", "a_b", "example.com/MyName",
                          "app.kubernetes.io/name", "k8s.io/x"}) {
    EXPECT_EQ(ValidateLabelKey(key), "") << key;
  }
  EXPECT_EQ(ValidateLabelKey(std::string(63, 'a')), "");
  EXPECT_EQ(ValidateLabelKey(std::string(253, 'a') + "/x"), "");
}

TEST(LabelValidationTest, RejectsMalformedKeysWithUpstreamMessages) {
  EXPECT_EQ(ValidateLabelKey(""),
            "name part must be non-empty; name part must consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(ValidateLabelKey(std::string(64, 'a')), "name part must be no more than 63 characters");
  EXPECT_EQ(ValidateLabelKey("Upper.Case/x"),
            "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_NE(ValidateLabelKey(std::string(254, 'a') + "/x")
                .find("prefix part must be no more than 253 characters"),
            std::string::npos);
  EXPECT_EQ(ValidateLabelKey("/x"), "prefix part must be non-empty");
  EXPECT_NE(ValidateLabelKey("a..b/c").find("prefix part a lowercase"), std::string::npos);
  EXPECT_EQ(ValidateLabelKey("a/b/c").rfind("a qualified name must consist", 0), 0u);
  EXPECT_NE(ValidateLabelKey("x_").find("name part must consist"), std::string::npos);
  EXPECT_NE(ValidateLabelKey("a b").find("name part must consist"), std::string::npos);
}

TEST(LabelValidationTest, ValidatesLabelValues) {
  EXPECT_EQ(ValidateLabelValue(""), "");
  EXPECT_EQ(ValidateLabelValue("v1.2_3-x"), "");
  EXPECT_EQ(ValidateLabelValue(std::string(63, 'v')), "");
  EXPECT_EQ(ValidateLabelValue(std::string(64, 'v')), "must be no more than 63 characters");
  EXPECT_EQ(ValidateLabelValue("-x"),
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
            "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
            "'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  EXPECT_NE(ValidateLabelValue("a/b").find("a valid label must"), std::string::npos);
  EXPECT_NE(ValidateLabelValue(std::string(64, '-')).find("; a valid label"), std::string::npos);
}

}  // namespace
}  // namespace berth::shim
