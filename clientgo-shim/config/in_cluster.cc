// clientgo-shim/config/in_cluster.cc
#include "clientgo-shim/config/in_cluster.h"

#include <cstdlib>

#include "clientgo-shim/config/file_util.h"
#include "clientgo-shim/config/token_file.h"

namespace berth::shim {

bool IsInCluster(const InClusterOptions& options) {
  return !EnvOr(options.service_host, "KUBERNETES_SERVICE_HOST").empty() &&
         !EnvOr(options.service_port, "KUBERNETES_SERVICE_PORT").empty();
}

Result<RestConfig> LoadInClusterConfig(const InClusterOptions& options) {
  const std::string host = EnvOr(options.service_host, "KUBERNETES_SERVICE_HOST");
  const std::string port = EnvOr(options.service_port, "KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
                     "KUBERNETES_SERVICE_PORT must be defined");
  }
  RestConfig config;
  // JoinHostPort: an IPv6 literal needs brackets.
  const bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  config.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  config.source = "in-cluster config (" + options.token_path + ")";
  auto token = CachedFileToken::Open(options.token_path, options.token_refresh_period);
  if (!token) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "in-cluster config: token: " + token.error().message);
  }
  config.token_source = CachedFileToken::AsSource(*token);
  auto ca = ReadFileToString(options.ca_path);
  if (!ca) {
    return MakeError(ErrorCode::kInvalidArgument, "in-cluster config: ca.crt: " + ca.error().message);
  }
  config.ca_pem = *ca;
  if (auto ns = ReadFileToString(options.namespace_path); ns) {
    std::string trimmed = TrimToken(*ns);
    if (!trimmed.empty()) config.default_namespace = trimmed;
  }
  return config;
}

}  // namespace berth::shim
