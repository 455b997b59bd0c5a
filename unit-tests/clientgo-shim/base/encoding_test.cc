#include "clientgo-shim/base/encoding.h"

#include <string>

#include <gtest/gtest.h>

namespace berth {
namespace {

const Base64DecodeOptions kUrlTolerant{.alphabet = Base64Alphabet::kUrl,
                                      .padding = Base64Padding::kOptional,
                                      .accept_both_alphabets = true};

// Moved from unit-tests/e2e/kubesim/server/kubeconfig_test.cc.
TEST(Base64Test, EncodesWithPaddingPerRfc4648) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\x00\x80", 3)), "/wCA");
}

TEST(Base64Test, UrlAlphabetUsesDashAndUnderscore) {
  EXPECT_EQ(Base64Encode("\xfb\xff", Base64Alphabet::kStandard), "+/8=");
  EXPECT_EQ(Base64Encode("\xfb\xff", Base64Alphabet::kUrl), "-_8=");
}

TEST(Base64Test, RawEncodingLeavesPaddingOff) {
  EXPECT_EQ(Base64Encode("f", Base64Alphabet::kUrl, /*pad=*/false), "Zg");
  EXPECT_EQ(Base64Encode("fo", Base64Alphabet::kUrl, /*pad=*/false), "Zm8");
  EXPECT_EQ(Base64Encode("foo", Base64Alphabet::kUrl, /*pad=*/false), "Zm9v");
  EXPECT_EQ(Base64Encode("", Base64Alphabet::kUrl, /*pad=*/false), "");
}

TEST(Base64Test, DecodeRoundTripsEveryByteValueInEveryMode) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t len : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{254}, size_t{256}}) {
    const std::string data = all.substr(0, len);
    EXPECT_EQ(Base64Decode(Base64Encode(data)).value(), data);
    EXPECT_EQ(Base64Decode(Base64Encode(data, Base64Alphabet::kUrl, false), kUrlTolerant).value(),
              data);
    EXPECT_EQ(Base64Decode(Base64Encode(data, Base64Alphabet::kUrl, true), kUrlTolerant).value(),
              data);
  }
}

// Moved from unit-tests/clientgo-shim/config/file_util_test.cc (kubeconfig *-data options).
TEST(Base64Test, DecodesStandardPaddedTextSkippingLineBreaks) {
  const Base64DecodeOptions opts{.skip_whitespace = true};
  EXPECT_EQ(Base64Decode("aGVsbG8=", opts).value(), "hello");
  EXPECT_EQ(Base64Decode("aGVs\nbG8h", opts).value(), "hell" "o!");
  EXPECT_EQ(Base64Decode("YQ==", opts).value(), "a");
  EXPECT_EQ(Base64Decode("", opts).value(), "");
  EXPECT_EQ(Base64Decode("aG Vs\r\n\tbG8h", opts).value(), "hello!");
}

TEST(Base64Test, RejectsBadInputWithOffset) {
  const Base64DecodeOptions opts{.skip_whitespace = true};
  auto r = Base64Decode("aGV*bG8=", opts);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().message, "illegal base64 data at input byte 3");
  EXPECT_FALSE(Base64Decode("aGVsbG8", opts).has_value());    // missing padding
  EXPECT_FALSE(Base64Decode("YQ=", opts).has_value());        // short padding
  EXPECT_FALSE(Base64Decode("=YQ=", opts).has_value());       // padding first
  EXPECT_FALSE(Base64Decode("YQ==YQ==", opts).has_value());   // data after padding
  EXPECT_FALSE(Base64Decode("a-b_", opts).has_value());       // URL alphabet is not standard
}

TEST(Base64Test, ErrorOffsetsPointAtTheFirstBadByte) {
  EXPECT_EQ(Base64Decode("YQ=").error().message, "illegal base64 data at input byte 3");
  EXPECT_EQ(Base64Decode("=YQ=").error().message, "illegal base64 data at input byte 0");
  EXPECT_EQ(Base64Decode("YQ==YQ==").error().message, "illegal base64 data at input byte 4");
  EXPECT_EQ(Base64Decode("Y===").error().message, "illegal base64 data at input byte 1");
  // Without skip_whitespace a line break is just a bad byte.
  EXPECT_EQ(Base64Decode("aGVs\nbG8h").error().message, "illegal base64 data at input byte 4");
}

TEST(Base64Test, StandardAlphabetRejectsUrlSymbolsAndViceVersa) {
  EXPECT_FALSE(Base64Decode("-_8=").has_value());
  EXPECT_EQ(Base64Decode("+/8=").value(), "\xfb\xff");
  const Base64DecodeOptions url{.alphabet = Base64Alphabet::kUrl};
  EXPECT_EQ(Base64Decode("-_8=", url).value(), "\xfb\xff");
  EXPECT_FALSE(Base64Decode("+/8=", url).has_value());
}

TEST(Base64Test, TolerantUrlReaderAcceptsStandardSymbolsAndOptionalPadding) {
  EXPECT_EQ(Base64Decode("+/8", kUrlTolerant).value(), "\xfb\xff");
  EXPECT_EQ(Base64Decode("-_8", kUrlTolerant).value(), "\xfb\xff");
  EXPECT_EQ(Base64Decode("Zg", kUrlTolerant).value(), "f");
  EXPECT_EQ(Base64Decode("Zg==", kUrlTolerant).value(), "f");
}

TEST(Base64Test, LoneTrailingSymbolIsRejectedEvenWhenPaddingIsOptional) {
  auto r = Base64Decode("Zm9vY", kUrlTolerant);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message, "illegal base64 data at input byte 5");
}

TEST(Base64Test, NonAlphabetBytesAreRejectedNotCrashing) {
  EXPECT_FALSE(Base64Decode(std::string("YQ\0=", 4)).has_value());
  EXPECT_FALSE(Base64Decode("\xff\xfe==").has_value());
  EXPECT_FALSE(Base64Decode("Zm9v!", kUrlTolerant).has_value());
  EXPECT_FALSE(Base64Decode("Zg=x", kUrlTolerant).has_value());
}

}  // namespace
}  // namespace berth
