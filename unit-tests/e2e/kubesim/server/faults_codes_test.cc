// kubesim fault codes: any 4xx/5xx is accepted, each answered with the Status kube-apiserver
// sends for it; 429 and 503 carry Retry-After; --fault-codes parsing rejects malformed lists.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/server/faults.h"

namespace berth::kubesim {
namespace {

HttpRequest Req(std::string method, std::string path) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  return r;
}

struct Answer {
  int status = 0;
  std::string reason, message, retry_after_header;
  int body_code = 0;
  bool has_reason = false;
  const HttpResponse* raw = nullptr;
};

Answer Inject(int code, HttpRequest request) {
  FaultInjector f(FaultConfig{.fault_rate = 1.0, .fault_codes = {code}});
  auto r = f.MaybeFail(request);
  EXPECT_TRUE(r.has_value()) << code;
  Answer a;
  if (!r) return a;
  a.status = r->status;
  for (const auto& [name, value] : r->headers) {
    if (name == "Retry-After") a.retry_after_header = value;
  }
  auto body = json::Parse(r->body);
  EXPECT_TRUE(body.has_value()) << r->body;
  if (!body) return a;
  EXPECT_EQ(json::GetString(*body, {"kind"}), "Status");
  EXPECT_EQ(json::GetString(*body, {"status"}), "Failure");
  a.has_reason = body->HasMember("reason");
  a.reason = std::string(json::GetString(*body, {"reason"}));
  a.message = std::string(json::GetString(*body, {"message"}));
  a.body_code = (*body)["code"].GetInt();
  return a;
}

TEST(FaultCodesTest, EachCodeGetsTheReasonKubeApiserverGivesIt) {
  const std::vector<std::pair<int, std::string>> table = {
      {400, "BadRequest"},        {401, "Unauthorized"},          {403, "Forbidden"},
      {404, "NotFound"},          {405, "MethodNotAllowed"},      {406, "NotAcceptable"},
      {410, "Expired"},           {413, "RequestEntityTooLarge"}, {415, "UnsupportedMediaType"},
      {422, "Invalid"},           {429, "TooManyRequests"},       {500, "InternalError"},
      {502, "InternalError"},     {503, "ServiceUnavailable"},    {504, "Timeout"},
      {599, "InternalError"}};
  for (const auto& [code, reason] : table) {
    Answer a = Inject(code, Req("PUT", "/api/v1/namespaces/ns/pods/web"));
    EXPECT_EQ(a.status, code);
    EXPECT_EQ(a.body_code, code);
    EXPECT_EQ(a.reason, reason) << code;
    EXPECT_FALSE(a.message.empty()) << code;
  }
}

TEST(FaultCodesTest, MessagesNameTheObjectAsApimachineryDoes) {
  EXPECT_EQ(Inject(403, Req("GET", "/apis/apps/v1/namespaces/ns/deployments/web")).message,
            "deployments.apps \"web\" is forbidden: injected fault");
  EXPECT_EQ(Inject(403, Req("GET", "/api/v1/pods")).message, "pods is forbidden: injected fault");
  EXPECT_EQ(Inject(404, Req("GET", "/api/v1/namespaces/ns/pods/p")).message, "pods \"p\" not found");
  EXPECT_EQ(Inject(401, Req("GET", "/api/v1/pods")).message, "Unauthorized");
  EXPECT_EQ(Inject(422, Req("POST", "/api/v1/namespaces/ns/pods/p")).message,
            "pods \"p\" is invalid: injected fault");
  EXPECT_EQ(Inject(503, Req("GET", "/api/v1/pods")).message,
            "the server is currently unable to handle the request");
  EXPECT_EQ(Inject(502, Req("GET", "/api/v1/pods")).message,
            "an error on the server (\"injected fault\") has prevented the request from succeeding");
  HttpRequest watch = Req("GET", "/api/v1/pods");
  watch.query["watch"] = "true";
  EXPECT_EQ(Inject(410, watch).message, "The resourceVersion for the provided watch is too old.");
  EXPECT_EQ(Inject(410, Req("GET", "/api/v1/pods")).message,
            "The resourceVersion for the provided list is too old.");
}

TEST(FaultCodesTest, AnUnnamedClientErrorHasNoReasonAsStatusReasonUnknown) {
  Answer a = Inject(418, Req("GET", "/api/v1/pods"));
  EXPECT_EQ(a.status, 418);
  EXPECT_FALSE(a.has_reason);
  EXPECT_EQ(a.message,
            "the server responded with the status code 418 but did not return more information");
}

TEST(FaultCodesTest, ServiceUnavailableAndTooManyRequestsCarryRetryAfterOthersDoNot) {
  FaultInjector f(FaultConfig{.fault_rate = 1.0, .fault_codes = {503}});
  auto r = f.MaybeFail(Req("POST", "/api/v1/namespaces/ns/events"));
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->headers.size(), 1u);
  EXPECT_EQ(r->headers[0].first, "Retry-After");
  EXPECT_EQ(r->headers[0].second, "1");
  auto body = json::Parse(r->body);
  ASSERT_TRUE(body.has_value());
  const json::Value* retry = json::Find(*body, {"details", "retryAfterSeconds"});
  ASSERT_NE(retry, nullptr);
  EXPECT_EQ(retry->GetInt(), 1);
  EXPECT_EQ(Inject(429, Req("GET", "/api/v1/pods")).retry_after_header, "1");
  for (int code : {500, 504, 403, 401, 422}) {
    EXPECT_EQ(Inject(code, Req("PUT", "/api/v1/namespaces/ns/pods/p")).retry_after_header, "")
        << code;
  }
}

TEST(FaultCodesTest, ValidCodesAreExactlyTheHttpErrorCodes) {
  EXPECT_FALSE(ValidFaultCode(399));
  EXPECT_TRUE(ValidFaultCode(400));
  EXPECT_TRUE(ValidFaultCode(503));
  EXPECT_TRUE(ValidFaultCode(599));
  EXPECT_FALSE(ValidFaultCode(600));
  EXPECT_FALSE(ValidFaultCode(200));
  EXPECT_FALSE(ValidFaultCode(0));
}

TEST(FaultCodesTest, ParseFaultCodesReadsCommaSeparatedCodes) {
  auto codes = ParseFaultCodes("500,503, 429 ,409,504,403");
  ASSERT_TRUE(codes.has_value()) << codes.error().message;
  EXPECT_EQ(*codes, (std::vector<int>{500, 503, 429, 409, 504, 403}));
  auto one = ParseFaultCodes("401");
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(*one, std::vector<int>{401});
}

TEST(FaultCodesTest, ParseFaultCodesRejectsMalformedLists) {
  for (const char* bad : {"", ",", "500,", ",500", "500,,429", "abc", "500abc", "5e2", "-500",
                          "200", "399", "600", "99999999999999999999", "500;429", "0x1f4"}) {
    auto codes = ParseFaultCodes(bad);
    ASSERT_FALSE(codes.has_value()) << "accepted \"" << bad << "\"";
    EXPECT_EQ(codes.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(codes.error().message.find("400..599"), std::string::npos) << codes.error().message;
  }
}

}  // namespace
}  // namespace berth::kubesim
