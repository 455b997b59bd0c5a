// clientgo-shim/config/file_util.cc
#include "clientgo-shim/config/file_util.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace berth::shim {
namespace {

constexpr size_t kMaxFileBytes = size_t{64} << 20;

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

std::string EnvOr(const std::optional<std::string>& override_value, const char* name) {
  if (override_value) return *override_value;
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
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

}  // namespace berth::shim
