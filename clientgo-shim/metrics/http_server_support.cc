// clientgo-shim/metrics/http_server_support.cc — see http_server_support.h.
#include "clientgo-shim/metrics/http_server_support.h"

#include <charconv>
#include <system_error>

#include <sys/stat.h>

namespace berth::shim {
namespace asio = boost::asio;
using boost::system::error_code;

namespace http_server_internal {

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int v = 0;
      auto r = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
      if (r.ec == std::errc() && r.ptr == s.data() + i + 3) {
        out += static_cast<char>(v);
        i += 2;
        continue;
      }
    }
    out += s[i] == '+' ? ' ' : s[i];
  }
  return out;
}

HttpServerRequest ParseTarget(std::string method, std::string_view target) {
  HttpServerRequest r;
  r.method = std::move(method);
  const size_t q = target.find('?');
  r.path = PercentDecode(target.substr(0, q));
  if (q == std::string_view::npos) return r;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    std::string_view part = rest.substr(0, amp);
    const size_t eq = part.find('=');
    if (!part.empty()) {
      r.query[PercentDecode(part.substr(0, eq))] =
          eq == std::string_view::npos ? "" : PercentDecode(part.substr(eq + 1));
    }
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
  return r;
}

FileStamp Stamp(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {true, static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
          static_cast<int64_t>(st.st_size), static_cast<uint64_t>(st.st_ino)};
}

// LoadTlsContext: a TLS 1.2+ server context with the PEM chain and key. Errors: kInvalidArgument
// naming the file and OpenSSL's reason (missing file, not PEM, a key that does not match).
// With cert_pem set, the PEM text is loaded instead of the files.
Result<std::shared_ptr<asio::ssl::context>> LoadTlsContext(const std::string& cert_file,
                                                           const std::string& key_file,
                                                           const std::string& cert_pem,
                                                           const std::string& key_pem) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  error_code ec;
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use,
                   ec);
  if (ec) return MakeError(ErrorCode::kInternal, "tls: " + ec.message());
  if (!cert_pem.empty()) {
    ctx->use_certificate_chain(asio::buffer(cert_pem), ec);
    if (ec) return MakeError(ErrorCode::kInvalidArgument, "tls certificate (in memory): " + ec.message());
    ctx->use_private_key(asio::buffer(key_pem), asio::ssl::context::pem, ec);
    if (ec) return MakeError(ErrorCode::kInvalidArgument, "tls key (in memory): " + ec.message());
    return ctx;
  }
  ctx->use_certificate_chain_file(cert_file, ec);
  if (ec) return MakeError(ErrorCode::kInvalidArgument, "tls certificate " + cert_file + ": " + ec.message());
  ctx->use_private_key_file(key_file, asio::ssl::context::pem, ec);
  if (ec) return MakeError(ErrorCode::kInvalidArgument, "tls key " + key_file + ": " + ec.message());
  return ctx;
}

}  // namespace http_server_internal

Result<BindAddress> ParseBindAddress(std::string_view text) {
  BindAddress b;
  if (text.empty() || text == "0") return b;
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid bind address \"" + std::string(text) + "\": missing port");
  }
  std::string_view host = text.substr(0, colon);
  std::string_view port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned value = 0;
  auto r = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || r.ec != std::errc() || r.ptr != port.data() + port.size() || value > 65535) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid bind address \"" + std::string(text) + "\": invalid port \"" +
                         std::string(port) + "\"");
  }
  b.enabled = true;
  b.host = std::string(host);
  b.port = static_cast<uint16_t>(value);
  return b;
}

}  // namespace berth::shim
