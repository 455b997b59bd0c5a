// unit-tests/clientgo-shim/client/fake_rest_client.h
//
// FakeRestClient: a RestClient whose answers come from a handler function, recording every
// request. For unit tests of code above the RestClient seam.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "clientgo-shim/transport/rest_client.h"

namespace berth::shim::testing {

class FakeRestClient : public RestClient {
 public:
  using Handler = std::function<Result<RestResponse>(const RestRequest&)>;
  explicit FakeRestClient(Handler handler) : handler_(std::move(handler)) {}

  Result<RestResponse> Do(const RestRequest& request) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      requests_.push_back(request);
    }
    return handler_(request);
  }
  Status Stream(const RestRequest&, const std::function<bool(std::string_view)>&,
                const std::atomic<bool>*) override {
    return MakeError(ErrorCode::kInternal, "FakeRestClient does not stream");
  }
  std::vector<RestRequest> requests() const {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }

 private:
  Handler handler_;
  mutable std::mutex mu_;
  std::vector<RestRequest> requests_;
};

inline RestResponse Ok(std::string body, int status = 200) {
  RestResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

inline std::unexpected<Error> Fail(ErrorCode code, int http_status, std::string message) {
  Error e;
  e.code = code;
  e.http_status = http_status;
  e.message = std::move(message);
  return std::unexpected(std::move(e));
}

}  // namespace berth::shim::testing
