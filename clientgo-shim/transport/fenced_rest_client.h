// clientgo-shim/transport/fenced_rest_client.h
//
// FencedRestClient: the RestClient a leader-elected manager hands to its controllers. Every
// mutating request (POST, PUT, PATCH, DELETE) is checked against a WriteFence before it is passed
// on, and carries the fence down to the transport, which checks it again right before each
// attempt is written (so a retry after a Retry-After wait cannot slip out either). A closed
// fence fails the request with ErrorCode::kFenced, is logged at warn, and is not retried. Reads
// (GET, LIST, WATCH) are never fenced: a standby keeps its caches warm.
// The leader elector's own Lease writes use the unfenced client underneath (the elector must be
// able to acquire while the fence is closed).
// Thread-safety: as the wrapped client.
// Example:
//   auto fenced = std::make_shared<FencedRestClient>(raw_client, elector->fence());
//   fenced->Do({.method = "PUT", ...});  // kFenced once leadership is lost
#pragma once

#include <memory>

#include "clientgo-shim/transport/rest_client.h"

namespace berth::shim {

class FencedRestClient final : public RestClient {
 public:
  // Both are required (non-null).
  FencedRestClient(RestClientPtr inner, std::shared_ptr<const WriteFence> fence);

  Result<RestResponse> Do(const RestRequest& request) override;
  Status Stream(const RestRequest& request,
                const std::function<bool(std::string_view line)>& on_line,
                const std::atomic<bool>* cancel = nullptr) override;
  Status StreamBytes(
      const RestRequest& request,
      const std::function<void(const std::map<std::string, std::string>& headers)>& on_headers,
      const std::function<bool(std::string_view bytes)>& on_bytes,
      const std::atomic<bool>* cancel = nullptr) override {
    return inner_->StreamBytes(request, on_headers, on_bytes, cancel);  // a read: never fenced
  }
  // Server names the inner client's server, so failure logs through this wrapper still say where.
  std::string Server() const override { return inner_->Server(); }

  const RestClientPtr& inner() const { return inner_; }

 private:
  RestClientPtr inner_;
  std::shared_ptr<const WriteFence> fence_;
};

}  // namespace berth::shim
