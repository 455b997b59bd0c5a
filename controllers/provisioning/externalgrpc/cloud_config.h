// controllers/provisioning/externalgrpc/cloud_config.h
//
// Where berth reaches a Cluster Autoscaler externalgrpc cloud provider, with upstream's client
// configuration: the --cloud-config YAML keys (address, key, cert, cacert, grpc_timeout) and
// berth-manager flags that override them (--cloud-provider-grpc-address, -cert, -key, -cacert,
// -timeout). TLS as upstream: keyed on `cert` alone; with a cert, key and cacert are required
// and the client always offers its certificate (mTLS) and trusts only cacert.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::controllers::externalgrpc {

struct CloudConfig {
  std::string address;  // host:port, [host]:port
  std::string key;      // PEM client private key
  std::string cert;     // PEM client certificate; "" = plaintext
  std::string cacert;   // PEM CA bundle that verifies the server
  std::chrono::milliseconds grpc_timeout{5000};  // per call (upstream's defaultGRPCTimeout)
};

// ParseCloudConfig reads the YAML text of a cloud-config file. Unknown keys are errors (a typo
// must not silently drop TLS). Errors name the key.
Result<CloudConfig> ParseCloudConfig(std::string_view yaml_text);
// LoadCloudConfig reads and parses the file at `path`.
Result<CloudConfig> LoadCloudConfig(const std::string& path);
// Validate: address is host:port; with cert, key and cacert are set.
Status ValidateCloudConfig(const CloudConfig& config);

}  // namespace berth::controllers::externalgrpc
