// clientgo-shim/transport/server_url.h
//
// The API server address of a kubeconfig ("https://10.0.0.1:6443", "https://[::1]:6443",
// "https://example.com/k8s/clusters/c-1") split into the parts a connection needs, and the
// request-target builder (path prefix + path + percent-encoded query, Go url.Values style).
// Pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// ServerUrl: a parsed https:// server address.
struct ServerUrl {
  std::string host;         // "10.0.0.1", "::1" (no brackets), "example.com"
  uint16_t port = 443;
  std::string path_prefix;  // "" or "/k8s/clusters/c-1" (no trailing slash)
  bool host_is_ip = false;

  // HostHeader is the Host header value: host[:port], IPv6 in brackets, port omitted when 443.
  std::string HostHeader() const;
  // ToString is "https://host:port/prefix", for messages.
  std::string ToString() const;
};

// ParseServerUrl reads "https://host[:port][/prefix]"; a bare "host:port" is taken as https.
// Errors: kInvalidArgument naming the problem (scheme other than https, empty host, bad port,
// query or fragment present).
Result<ServerUrl> ParseServerUrl(std::string_view url);

// PercentEncode escapes every byte except the unreserved set A-Z a-z 0-9 - . _ ~.
std::string PercentEncode(std::string_view text);

// EncodeQuery builds "k1=v1&k2=v2" (keys sorted, as Go's url.Values.Encode). Empty map → "".
std::string EncodeQuery(const std::map<std::string, std::string>& query);

// BuildTarget is prefix + path + ("?" + query when non-empty). `path` should start with '/'.
std::string BuildTarget(const ServerUrl& server, std::string_view path,
                        const std::map<std::string, std::string>& query);

}  // namespace berth::shim
