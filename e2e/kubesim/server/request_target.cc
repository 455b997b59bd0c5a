#include "e2e/kubesim/server/request_target.h"

namespace berth::kubesim {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> PercentDecode(std::string_view in, bool plus_is_space) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

Result<DecodedTarget> DecodeTarget(std::string_view target) {
  if (target.empty() || target.front() != '/') {
    return MakeError(ErrorCode::kBadRequest, "request target must start with '/'");
  }
  DecodedTarget out;
  size_t q = target.find('?');
  std::string_view raw_path = target.substr(0, q);
  // A fragment never reaches a server, but strip one defensively.
  if (size_t hash = raw_path.find('#'); hash != std::string_view::npos) {
    raw_path = raw_path.substr(0, hash);
  }
  auto path = PercentDecode(raw_path, /*plus_is_space=*/false);
  if (!path) return MakeError(ErrorCode::kBadRequest, "invalid URL escape in path");
  if (path->find('\0') != std::string::npos) {
    return MakeError(ErrorCode::kBadRequest, "NUL byte in path");
  }
  out.path = std::move(*path);
  if (q == std::string_view::npos) return out;
  std::string_view rest = target.substr(q + 1);
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    // Go rejects pairs containing ';' since 1.17 and skips them.
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    size_t eq = pair.find('=');
    auto key = PercentDecode(pair.substr(0, eq), true);
    auto value = PercentDecode(
        eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1), true);
    if (!key || !value) continue;
    out.query[std::move(*key)] = std::move(*value);
  }
  return out;
}

}  // namespace berth::kubesim
