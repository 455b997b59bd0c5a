// controllers/provisioning/externalgrpc/client.cc
#include "controllers/provisioning/externalgrpc/client.h"

#include <fstream>
#include <sstream>

#include <grpcpp/grpcpp.h>

namespace berth::controllers::externalgrpc {
namespace {

Result<std::string> ReadPem(const std::string& what, const std::string& path) {
  std::ifstream in(path);
  if (!in) return MakeError(ErrorCode::kInvalidArgument, "cloud provider TLS " + what + " " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "Canceled";
    case grpc::StatusCode::UNKNOWN: return "Unknown";
    case grpc::StatusCode::INVALID_ARGUMENT: return "InvalidArgument";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DeadlineExceeded";
    case grpc::StatusCode::NOT_FOUND: return "NotFound";
    case grpc::StatusCode::ALREADY_EXISTS: return "AlreadyExists";
    case grpc::StatusCode::PERMISSION_DENIED: return "PermissionDenied";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "ResourceExhausted";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FailedPrecondition";
    case grpc::StatusCode::ABORTED: return "Aborted";
    case grpc::StatusCode::OUT_OF_RANGE: return "OutOfRange";
    case grpc::StatusCode::UNIMPLEMENTED: return "Unimplemented";
    case grpc::StatusCode::INTERNAL: return "Internal";
    case grpc::StatusCode::UNAVAILABLE: return "Unavailable";
    case grpc::StatusCode::DATA_LOSS: return "DataLoss";
    case grpc::StatusCode::UNAUTHENTICATED: return "Unauthenticated";
    default: return "Unknown";
  }
}

}  // namespace

bool CallError::Unimplemented() const { return code == grpc::StatusCode::UNIMPLEMENTED; }

bool CallError::MaybeApplied() const {
  return code == grpc::StatusCode::DEADLINE_EXCEEDED || code == grpc::StatusCode::CANCELLED ||
         code == grpc::StatusCode::UNKNOWN || code == grpc::StatusCode::UNAVAILABLE;
}

Result<std::unique_ptr<ExternalGrpcClient>> ExternalGrpcClient::Create(const CloudConfig& config) {
  if (auto valid = ValidateCloudConfig(config); !valid) return std::unexpected(valid.error());
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (config.cert.empty()) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions ssl;
    auto cert = ReadPem("cert", config.cert);
    auto key = ReadPem("key", config.key);
    auto ca = ReadPem("cacert", config.cacert);
    if (!cert) return std::unexpected(cert.error());
    if (!key) return std::unexpected(key.error());
    if (!ca) return std::unexpected(ca.error());
    ssl.pem_cert_chain = *cert;
    ssl.pem_private_key = *key;
    ssl.pem_root_certs = *ca;  // only cacert, no system roots
    creds = grpc::SslCredentials(ssl);
  }
  // "dns:///" would resolve; a bare host:port is what grpc-go's Dial takes too.
  auto channel = grpc::CreateChannel(config.address, creds);
  return std::unique_ptr<ExternalGrpcClient>(new ExternalGrpcClient(std::move(channel), config.grpc_timeout));
}

ExternalGrpcClient::ExternalGrpcClient(std::shared_ptr<grpc::Channel> channel, std::chrono::milliseconds timeout)
    : channel_(std::move(channel)), stub_(pb::CloudProvider::NewStub(channel_)), timeout_(timeout) {}

template <typename Request, typename Response, typename Method>
CallResult<Response> ExternalGrpcClient::Call(const char* name, const Request& request, Method method) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout_);
  Response response;
  grpc::Status status = ((*stub_).*method)(&context, request, &response);
  if (!status.ok()) {
    return std::unexpected(CallError{static_cast<int>(status.error_code()),
                                     std::string("rpc ") + name + ": " + CodeName(status.error_code()) + ": " +
                                         status.error_message()});
  }
  return response;
}

CallResult<void> ExternalGrpcClient::Refresh() {
  auto r = Call<pb::RefreshRequest, pb::RefreshResponse>("Refresh", {}, &pb::CloudProvider::Stub::Refresh);
  if (!r) return std::unexpected(r.error());
  return {};
}

CallResult<std::vector<pb::NodeGroup>> ExternalGrpcClient::NodeGroups() {
  auto r = Call<pb::NodeGroupsRequest, pb::NodeGroupsResponse>("NodeGroups", {}, &pb::CloudProvider::Stub::NodeGroups);
  if (!r) return std::unexpected(r.error());
  return std::vector<pb::NodeGroup>(r->nodegroups().begin(), r->nodegroups().end());
}

CallResult<pb::NodeGroup> ExternalGrpcClient::NodeGroupForNode(const pb::ExternalGrpcNode& node) {
  pb::NodeGroupForNodeRequest req;
  *req.mutable_node() = node;
  auto r = Call<pb::NodeGroupForNodeRequest, pb::NodeGroupForNodeResponse>(
      "NodeGroupForNode", req, &pb::CloudProvider::Stub::NodeGroupForNode);
  if (!r) return std::unexpected(r.error());
  return r->nodegroup();
}

CallResult<int32_t> ExternalGrpcClient::NodeGroupTargetSize(const std::string& id) {
  pb::NodeGroupTargetSizeRequest req;
  req.set_id(id);
  auto r = Call<pb::NodeGroupTargetSizeRequest, pb::NodeGroupTargetSizeResponse>(
      "NodeGroupTargetSize", req, &pb::CloudProvider::Stub::NodeGroupTargetSize);
  if (!r) return std::unexpected(r.error());
  return r->targetsize();
}

CallResult<void> ExternalGrpcClient::NodeGroupIncreaseSize(const std::string& id, int32_t delta) {
  pb::NodeGroupIncreaseSizeRequest req;
  req.set_id(id);
  req.set_delta(delta);
  auto r = Call<pb::NodeGroupIncreaseSizeRequest, pb::NodeGroupIncreaseSizeResponse>(
      "NodeGroupIncreaseSize", req, &pb::CloudProvider::Stub::NodeGroupIncreaseSize);
  if (!r) return std::unexpected(r.error());
  return {};
}

CallResult<void> ExternalGrpcClient::NodeGroupDecreaseTargetSize(const std::string& id, int32_t delta) {
  pb::NodeGroupDecreaseTargetSizeRequest req;
  req.set_id(id);
  req.set_delta(delta);
  auto r = Call<pb::NodeGroupDecreaseTargetSizeRequest, pb::NodeGroupDecreaseTargetSizeResponse>(
      "NodeGroupDecreaseTargetSize", req, &pb::CloudProvider::Stub::NodeGroupDecreaseTargetSize);
  if (!r) return std::unexpected(r.error());
  return {};
}

CallResult<void> ExternalGrpcClient::NodeGroupDeleteNodes(const std::string& id,
                                                          const std::vector<pb::ExternalGrpcNode>& nodes) {
  pb::NodeGroupDeleteNodesRequest req;
  req.set_id(id);
  for (const auto& n : nodes) *req.add_nodes() = n;
  auto r = Call<pb::NodeGroupDeleteNodesRequest, pb::NodeGroupDeleteNodesResponse>(
      "NodeGroupDeleteNodes", req, &pb::CloudProvider::Stub::NodeGroupDeleteNodes);
  if (!r) return std::unexpected(r.error());
  return {};
}

CallResult<std::string> ExternalGrpcClient::NodeGroupTemplateNodeInfo(const std::string& id) {
  pb::NodeGroupTemplateNodeInfoRequest req;
  req.set_id(id);
  auto r = Call<pb::NodeGroupTemplateNodeInfoRequest, pb::NodeGroupTemplateNodeInfoResponse>(
      "NodeGroupTemplateNodeInfo", req, &pb::CloudProvider::Stub::NodeGroupTemplateNodeInfo);
  if (!r) return std::unexpected(r.error());
  return r->nodebytes();
}

}  // namespace berth::controllers::externalgrpc
