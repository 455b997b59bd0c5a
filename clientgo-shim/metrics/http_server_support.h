// clientgo-shim/metrics/http_server_support.h
//
// HttpServer's pure parts (internal to metrics/): request targets, certificate file stamps and
// the TLS server context.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <boost/asio/ssl.hpp>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/metrics/http_server.h"

namespace berth::shim::http_server_internal {

// PercentDecode decodes %XX escapes and '+' (a query's space); a malformed escape stays as is.
std::string PercentDecode(std::string_view s);

// ParseTarget splits a request target into its decoded path and query parameters.
HttpServerRequest ParseTarget(std::string method, std::string_view target);

// FileStamp: what tells a rewritten certificate file (a Secret volume swaps a symlink).
struct FileStamp {
  bool exists = false;
  int64_t mtime_ns = 0;
  int64_t size = 0;
  uint64_t inode = 0;
  bool operator==(const FileStamp&) const = default;
};

// Stamp reads `path`'s stamp; exists is false when it cannot be read.
FileStamp Stamp(const std::string& path);

// LoadTlsContext: a TLS 1.2+ server context with the PEM chain and key. Errors: kInvalidArgument
// naming the file and OpenSSL's reason (missing file, not PEM, a key that does not match).
// With cert_pem set, the PEM text is loaded instead of the files.
Result<std::shared_ptr<boost::asio::ssl::context>> LoadTlsContext(const std::string& cert_file,
                                                           const std::string& key_file,
                                                           const std::string& cert_pem,
                                                           const std::string& key_pem);

}  // namespace berth::shim::http_server_internal
