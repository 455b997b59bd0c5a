#include "clientgo-shim/transport/api_error.h"

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ApiErrorTest, StatusBodyGivesMessageReasonAndCode) {
  const Error e = DecodeApiError(
      404, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
           R"("message":"pods \"x\" not found","reason":"NotFound",)"
           R"("details":{"name":"x","kind":"pods"},"code":404})");
  EXPECT_EQ(e.code, ErrorCode::kNotFound);
  EXPECT_EQ(e.http_status, 404);
  EXPECT_EQ(e.reason, "NotFound");
  EXPECT_EQ(e.message, "pods \"x\" not found");
  EXPECT_FALSE(e.retry_after.has_value());
}

TEST(ApiErrorTest, ConflictWithAlreadyExistsReasonIsAlreadyExists) {
  EXPECT_EQ(DecodeApiError(409, R"({"kind":"Status","reason":"AlreadyExists","message":"m"})").code,
            ErrorCode::kAlreadyExists);
  EXPECT_EQ(DecodeApiError(409, R"({"kind":"Status","reason":"Conflict","message":"m"})").code,
            ErrorCode::kConflict);
  EXPECT_EQ(DecodeApiError(409, "").code, ErrorCode::kConflict);
}

TEST(ApiErrorTest, HttpStatusesMapToErrorCodes) {
  EXPECT_EQ(ErrorCodeForHttpStatus(400), ErrorCode::kBadRequest);
  EXPECT_EQ(ErrorCodeForHttpStatus(401), ErrorCode::kUnauthorized);
  EXPECT_EQ(ErrorCodeForHttpStatus(403), ErrorCode::kForbidden);
  EXPECT_EQ(ErrorCodeForHttpStatus(404), ErrorCode::kNotFound);
  EXPECT_EQ(ErrorCodeForHttpStatus(410), ErrorCode::kGone);
  EXPECT_EQ(ErrorCodeForHttpStatus(422), ErrorCode::kInvalid);
  EXPECT_EQ(ErrorCodeForHttpStatus(429), ErrorCode::kTooManyRequests);
  EXPECT_EQ(ErrorCodeForHttpStatus(500), ErrorCode::kInternal);
  EXPECT_EQ(ErrorCodeForHttpStatus(503), ErrorCode::kInternal);
  EXPECT_EQ(ErrorCodeForHttpStatus(504), ErrorCode::kTimeout);
}

TEST(ApiErrorTest, RetryAfterHeaderIsSeconds) {
  const Error e = DecodeApiError(429, "Too many requests, please try again later.\n", "1");
  EXPECT_EQ(e.code, ErrorCode::kTooManyRequests);
  ASSERT_TRUE(e.retry_after.has_value());
  EXPECT_EQ(*e.retry_after, milliseconds(1000));
}

TEST(ApiErrorTest, PlainTextBodyIsKeptAfterTheGenericMessage) {
  const Error e = DecodeApiError(429, "Too many requests, please try again later.\n");
  EXPECT_EQ(e.message,
            "the server has received too many requests and has asked us to try again later "
            "(Too many requests, please try again later.)");
  EXPECT_TRUE(e.reason.empty());
}

TEST(ApiErrorTest, DetailsRetryAfterSecondsIsUsedWithoutHeader) {
  const ApiStatus s = DecodeApiStatus(
      500, R"({"kind":"Status","message":"busy","details":{"retryAfterSeconds":3}})");
  ASSERT_TRUE(s.retry_after.has_value());
  EXPECT_EQ(*s.retry_after, seconds(3));
}

TEST(ApiErrorTest, HeaderWinsOverDetailsRetryAfter) {
  const ApiStatus s = DecodeApiStatus(
      429, R"({"kind":"Status","message":"m","details":{"retryAfterSeconds":3}})", "7");
  EXPECT_EQ(*s.retry_after, seconds(7));
}

TEST(ApiErrorTest, CausesAreDecoded) {
  const ApiStatus s = DecodeApiStatus(
      422, R"({"kind":"Status","message":"Pod \"p\" is invalid","reason":"Invalid",)"
           R"("details":{"name":"p","kind":"Pod","causes":[)"
           R"({"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"},)"
           R"(7,{"reason":"FieldValueInvalid"}]}})");
  EXPECT_EQ(s.name, "p");
  EXPECT_EQ(s.kind, "Pod");
  ASSERT_EQ(s.causes.size(), 2u);
  EXPECT_EQ(s.causes[0].type, "FieldValueRequired");
  EXPECT_EQ(s.causes[0].message, "Required value");
  EXPECT_EQ(s.causes[0].field, "spec.containers");
  EXPECT_EQ(s.causes[1].type, "FieldValueInvalid");
  EXPECT_TRUE(s.causes[1].field.empty());
}

TEST(ApiErrorTest, ResponseStatusWinsOverBodyCode) {
  const ApiStatus s = DecodeApiStatus(503, R"({"kind":"Status","message":"m","code":200})");
  EXPECT_EQ(s.code, 503);
}

TEST(ApiErrorTest, MalformedBodiesFallBackToGenericMessages) {
  const char* bodies[] = {"{",
                          "{\"kind\":\"Status\",\"message\":",
                          "[1,2,3]",
                          "{\"message\":7,\"reason\":[],\"details\":\"x\"}",
                          "{\"kind\":\"Status\",\"details\":{\"causes\":{}}}",
                          "{\"kind\":\"Status\",\"details\":{\"retryAfterSeconds\":-5}}",
                          "{\"kind\":\"Status\",\"details\":{\"retryAfterSeconds\":1e300}}",
                          "<html><body>502 Bad Gateway</body></html>",
                          "\x01\x02\xff\xfe",
                          ""};
  for (const char* body : bodies) {
    const ApiStatus s = DecodeApiStatus(404, body);
    EXPECT_FALSE(s.message.empty()) << body;
    EXPECT_FALSE(s.retry_after.has_value()) << body;
  }
  EXPECT_EQ(DecodeApiStatus(404, "{").message, "the server could not find the requested resource");
  EXPECT_EQ(DecodeApiStatus(502, "<html>x</html>").message,
            "an error on the server has prevented the request from succeeding");
}

TEST(ApiErrorTest, LongPlainTextIsTruncatedToOneLine) {
  const std::string body = "line one\nline two " + std::string(5000, 'x');
  const ApiStatus s = DecodeApiStatus(500, body);
  EXPECT_EQ(s.message.find('\n'), std::string::npos);
  EXPECT_LT(s.message.size(), 700u);
}

TEST(ApiErrorTest, RetryAfterRejectsDatesAndJunk) {
  EXPECT_EQ(ParseRetryAfter("120"), milliseconds(120000));
  EXPECT_EQ(ParseRetryAfter(" 0 "), milliseconds(0));
  EXPECT_FALSE(ParseRetryAfter("").has_value());
  EXPECT_FALSE(ParseRetryAfter("-1").has_value());
  EXPECT_FALSE(ParseRetryAfter("1.5").has_value());
  EXPECT_FALSE(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT").has_value());
  EXPECT_FALSE(ParseRetryAfter("99999999999999999999").has_value());
}

}  // namespace
}  // namespace berth::shim
