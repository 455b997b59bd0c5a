// clientgo-shim/config/file_util.cc
#include "clientgo-shim/config/file_util.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace berth::shim {
namespace {

constexpr size_t kMaxFileBytes = size_t{64} << 20;

int Base64Value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

Result<std::string> ReadFileToString(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot read " + path + ": " + std::strerror(errno));
  }
  std::string out;
  char buf[16384];
  while (true) {
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    out.append(buf, n);
    if (out.size() > kMaxFileBytes) {
      std::fclose(f);
      return MakeError(ErrorCode::kInvalidArgument, "cannot read " + path + ": larger than 64 MiB");
    }
    if (n < sizeof buf) {
      const bool failed = std::ferror(f) != 0;
      const int err = errno;
      std::fclose(f);
      if (failed) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "cannot read " + path + ": " + std::strerror(err));
      }
      return out;
    }
  }
}

std::string DirName(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string ResolvePath(std::string_view dir, std::string_view path) {
  if (path.empty() || path.front() == '/') return std::string(path);
  if (path.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home != nullptr && *home != '\0') return std::string(home) + std::string(path.substr(1));
  }
  if (dir.empty()) return std::string(path);
  std::string out(dir);
  if (out.back() != '/') out.push_back('/');
  out.append(path);
  return out;
}

Result<std::string> DecodeBase64(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  int quad = 0;      // symbols in the current 4-symbol group, padding included
  int padding = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r' || c == '\n' || c == ' ' || c == '\t') continue;
    auto bad = [&] {
      return MakeError(ErrorCode::kInvalidArgument,
                       "illegal base64 data at input byte " + std::to_string(i));
    };
    if (c == '=') {
      if (quad < 2) return bad();
      ++padding;
      ++quad;
      if (quad == 4) quad = 0;
      continue;
    }
    if (padding > 0) return bad();  // data after padding
    const int v = Base64Value(c);
    if (v < 0) return bad();
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    ++quad;
    if (quad == 4) quad = 0;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if (quad != 0) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "illegal base64 data at input byte " + std::to_string(text.size()));
  }
  return out;
}

}  // namespace berth::shim
