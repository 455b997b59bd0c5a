#include "e2e/kubesim/server/kubeconfig.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdio>

namespace berth::kubesim {
namespace {

// YamlQuote renders a double-quoted YAML scalar, escaping what YAML requires.
std::string YamlQuote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

std::unexpected<Error> ErrnoError(const std::string& step, const std::string& path, int err) {
  return MakeError(ErrorCode::kInternal,
                   "write kubeconfig: " + step + " " + path + ": " + std::strerror(err));
}

}  // namespace

std::string RenderKubeconfig(std::string_view server_url, std::string_view ca_pem,
                             std::string_view token, std::string_view cluster_name) {
  const std::string cluster = YamlQuote(cluster_name);
  std::string out;
  out += "apiVersion: v1\n";
  out += "kind: Config\n";
  out += "preferences: {}\n";
  out += "clusters:\n";
  out += "- name: " + cluster + "\n";
  out += "  cluster:\n";
  out += "    server: " + YamlQuote(server_url) + "\n";
  out += "    certificate-authority-data: " + Base64Encode(ca_pem) + "\n";
  out += "users:\n";
  out += "- name: " + cluster + "\n";
  out += "  user:\n";
  out += "    token: " + YamlQuote(token) + "\n";
  out += "contexts:\n";
  out += "- name: kubesim\n";
  out += "  context:\n";
  out += "    cluster: " + cluster + "\n";
  out += "    user: " + cluster + "\n";
  out += "    namespace: default\n";
  out += "current-context: kubesim\n";
  return out;
}

Status WriteKubeconfig(const std::string& path, std::string_view server_url,
                       std::string_view ca_pem, std::string_view token,
                       std::string_view cluster_name) {
  static std::atomic<unsigned> counter{0};
  const std::string text = RenderKubeconfig(server_url, ca_pem, token, cluster_name);
  // Same directory as the target so rename(2) stays on one filesystem and is atomic.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(counter.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("create", tmp, errno);
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return ErrnoError("write", tmp, err);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return ErrnoError("fsync", tmp, err);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("close", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("rename to", path, err);
  }
  return {};
}

}  // namespace berth::kubesim
