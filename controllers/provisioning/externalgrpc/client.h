// controllers/provisioning/externalgrpc/client.h
//
// A gRPC client of Cluster Autoscaler's externalgrpc CloudProvider service (proto/
// externalgrpc.proto), with gRPC's C++ library: one channel (plaintext, or mTLS as upstream's
// client config says), every call under its own deadline (grpc_timeout), no retries (the caller
// decides, as CA's loop does). Thread-safe (gRPC stubs are).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "controllers/provisioning/externalgrpc/cloud_config.h"
#include "proto/externalgrpc.grpc.pb.h"

namespace berth::controllers::externalgrpc {

namespace pb = ::clusterautoscaler::cloudprovider::v1::externalgrpc;

// CallError: a failed RPC: gRPC's status code (grpc::StatusCode) and a message "rpc <Name>:
// <CODE>: <details>".
struct CallError {
  int code = 0;
  std::string message;
  bool Unimplemented() const;
  // MaybeApplied: the server may have acted on the call (DeadlineExceeded, Cancelled, Unknown,
  // Unavailable after sending): the caller cannot assume it did not.
  bool MaybeApplied() const;
};
template <typename T>
using CallResult = std::expected<T, CallError>;

class ExternalGrpcClient {
 public:
  // Create builds the channel (non-blocking, as upstream's grpc.Dial: it connects on first use).
  // Errors: an invalid config, TLS files that cannot be read.
  static Result<std::unique_ptr<ExternalGrpcClient>> Create(const CloudConfig& config);

  CallResult<void> Refresh();
  CallResult<std::vector<pb::NodeGroup>> NodeGroups();
  CallResult<pb::NodeGroup> NodeGroupForNode(const pb::ExternalGrpcNode& node);
  CallResult<int32_t> NodeGroupTargetSize(const std::string& id);
  CallResult<void> NodeGroupIncreaseSize(const std::string& id, int32_t delta);
  CallResult<void> NodeGroupDecreaseTargetSize(const std::string& id, int32_t delta);
  CallResult<void> NodeGroupDeleteNodes(const std::string& id, const std::vector<pb::ExternalGrpcNode>& nodes);
  // The template Node's bytes ("" when the provider sends none).
  CallResult<std::string> NodeGroupTemplateNodeInfo(const std::string& id);

 private:
  ExternalGrpcClient(std::shared_ptr<grpc::Channel> channel, std::chrono::milliseconds timeout);
  template <typename Request, typename Response, typename Method>
  CallResult<Response> Call(const char* name, const Request& request, Method method);

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::CloudProvider::Stub> stub_;
  std::chrono::milliseconds timeout_;
};

}  // namespace berth::controllers::externalgrpc
