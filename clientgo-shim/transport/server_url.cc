// clientgo-shim/transport/server_url.cc
#include "clientgo-shim/transport/server_url.h"

#include <arpa/inet.h>

#include <charconv>

namespace berth::shim {
namespace {

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

std::unexpected<Error> Bad(std::string_view url, std::string_view why) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "invalid server URL \"" + std::string(url) + "\": " + std::string(why));
}

}  // namespace

std::string ServerUrl::HostHeader() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (port != 443) h += ":" + std::to_string(port);
  return h;
}

std::string ServerUrl::ToString() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return "https://" + h + ":" + std::to_string(port) + path_prefix;
}

Result<ServerUrl> ParseServerUrl(std::string_view url) {
  std::string_view rest = url;
  if (const size_t p = rest.find("://"); p != std::string_view::npos) {
    std::string scheme(rest.substr(0, p));
    for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme != "https") return Bad(url, "scheme must be https");
    rest.remove_prefix(p + 3);
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return Bad(url, "query and fragment are not allowed");
  }
  ServerUrl out;
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
    out.path_prefix = std::string(prefix);
  }
  if (authority.find('@') != std::string_view::npos) return Bad(url, "user info is not allowed");
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Bad(url, "missing ']' in IPv6 host");
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return Bad(url, "unexpected text after IPv6 host");
      port_text = after.substr(1);
      if (port_text.empty()) return Bad(url, "empty port");
    }
  } else {
    const size_t colon = authority.rfind(':');
    if (colon != std::string_view::npos) {
      if (authority.find(':') != colon) return Bad(url, "IPv6 hosts need brackets");
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return Bad(url, "empty port");
      authority = authority.substr(0, colon);
    }
    out.host = std::string(authority);
  }
  if (out.host.empty()) return Bad(url, "empty host");
  if (!port_text.empty()) {
    unsigned port = 0;
    auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
      return Bad(url, "bad port \"" + std::string(port_text) + "\"");
    }
    out.port = static_cast<uint16_t>(port);
  }
  out.host_is_ip = IsIpLiteral(out.host);
  return out;
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string EncodeQuery(const std::map<std::string, std::string>& query) {
  std::string out;
  for (const auto& [k, v] : query) {
    if (!out.empty()) out.push_back('&');
    out += PercentEncode(k);
    out.push_back('=');
    out += PercentEncode(v);
  }
  return out;
}

std::string BuildTarget(const ServerUrl& server, std::string_view path,
                        const std::map<std::string, std::string>& query) {
  std::string target = server.path_prefix;
  target += path.empty() ? std::string_view("/") : path;
  if (!query.empty()) target += "?" + EncodeQuery(query);
  return target;
}

}  // namespace berth::shim
