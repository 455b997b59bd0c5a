// controllers/provisioning/externalgrpc/cloud_config.cc
#include "controllers/provisioning/externalgrpc/cloud_config.h"

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "clientgo-shim/api/duration.h"

namespace berth::controllers::externalgrpc {

Result<CloudConfig> ParseCloudConfig(std::string_view yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return MakeError(ErrorCode::kInvalidArgument, std::string("cloud-config: not YAML: ") + e.what());
  }
  CloudConfig config;
  if (root.IsNull()) return config;
  if (!root.IsMap()) return MakeError(ErrorCode::kInvalidArgument, "cloud-config: not a mapping");
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>("");
    if (!entry.second.IsScalar()) {
      return MakeError(ErrorCode::kInvalidArgument, "cloud-config: " + key + ": not a string");
    }
    const std::string value = entry.second.Scalar();
    if (key == "address") {
      config.address = value;
    } else if (key == "key") {
      config.key = value;
    } else if (key == "cert") {
      config.cert = value;
    } else if (key == "cacert") {
      config.cacert = value;
    } else if (key == "grpc_timeout") {
      auto d = shim::ParseDuration(value);
      if (!d || d->count() <= 0) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "cloud-config: grpc_timeout: \"" + value + "\" is not a positive duration (e.g. 10s)");
      }
      config.grpc_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    } else {
      return MakeError(ErrorCode::kInvalidArgument, "cloud-config: unknown key \"" + key +
                                                        "\" (known: address, key, cert, cacert, grpc_timeout)");
    }
  }
  return config;
}

Result<CloudConfig> LoadCloudConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return MakeError(ErrorCode::kInvalidArgument, "cloud-config " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  auto config = ParseCloudConfig(text.str());
  if (!config) return MakeError(ErrorCode::kInvalidArgument, path + ": " + config.error().message);
  return config;
}

Status ValidateCloudConfig(const CloudConfig& config) {
  const std::string& a = config.address;
  const size_t colon = a.rfind(':');
  const bool bracketed = !a.empty() && a.front() == '[';
  const bool ok = colon != std::string::npos && colon + 1 < a.size() && colon > 0 &&
                  (!bracketed || a[colon - 1] == ']') &&
                  a.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
                  (bracketed || a.find(':') == colon);
  if (!ok) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cloud provider address \"" + a + "\": want host:port or [host]:port");
  }
  if (!config.cert.empty() && (config.key.empty() || config.cacert.empty())) {
    return MakeError(ErrorCode::kInvalidArgument, "cloud provider TLS: cert needs key and cacert as well");
  }
  return {};
}

}  // namespace berth::controllers::externalgrpc
