// clientgo-shim/config/in_cluster.h
//
// In-cluster config (client-go rest.InClusterConfig): the API server at
// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (IPv6 bracketed), trusted with the
// service account's ca.crt, authenticated with its token — which is re-read every
// `token_refresh_period` because bound service-account tokens rotate — and the namespace file
// as the default namespace. Paths and the environment are overridable for tests.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/config/rest_config.h"

namespace berth::shim {

// InClusterOptions. Each field says its default.
struct InClusterOptions {
  // Default: /var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}.
  std::string token_path = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca_path = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string namespace_path = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
  // Default: nullopt = read KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT.
  std::optional<std::string> service_host;
  std::optional<std::string> service_port;
  std::chrono::milliseconds token_refresh_period{60000};  // client-go: 1 min. Default: 1 min.
};

// IsInCluster reports whether the service host and port are both set (non-empty).
bool IsInCluster(const InClusterOptions& options = {});

// LoadInClusterConfig builds the config. A missing namespace file means "default".
// Errors: kInvalidArgument "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT must be defined" (client-go's ErrNotInCluster text), or naming the
// token/CA file that cannot be read.
Result<RestConfig> LoadInClusterConfig(const InClusterOptions& options = {});

}  // namespace berth::shim
