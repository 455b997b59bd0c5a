// clientgo-shim/config/loader.cc
#include "clientgo-shim/config/loader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "clientgo-shim/config/file_util.h"

namespace berth::shim {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

Result<RestConfig> LoadRestConfig(const LoaderOptions& options) {
  KubeconfigOptions kc = options.kubeconfig;
  if (!options.context.empty()) kc.context = options.context;

  if (!options.kubeconfig_flag.empty()) return LoadKubeconfig({options.kubeconfig_flag}, kc);

  std::vector<std::string> tried;
  const std::string env = EnvOr(options.kubeconfig_env, "KUBECONFIG");
  if (!env.empty()) {
    std::vector<std::string> existing;
    size_t start = 0;
    while (start <= env.size()) {
      const size_t colon = env.find(':', start);
      const std::string path =
          env.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!path.empty() && Exists(path)) existing.push_back(path);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    if (!existing.empty()) return LoadKubeconfig(existing, kc);
    tried.push_back("$KUBECONFIG=" + env + ": no such file");
  } else {
    tried.push_back("$KUBECONFIG not set");
  }

  if (IsInCluster(options.in_cluster)) {
    auto config = LoadInClusterConfig(options.in_cluster);
    if (config && !options.context.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--context \"" + options.context + "\" needs a kubeconfig; in-cluster "
                       "config has no contexts");
    }
    return config;
  }
  tried.push_back("not in a cluster (KUBERNETES_SERVICE_HOST unset)");

  const std::string home = EnvOr(options.home, "HOME");
  if (!home.empty()) {
    const std::string path = home + "/.kube/config";
    if (Exists(path)) return LoadKubeconfig({path}, kc);
    tried.push_back(path + ": " + std::strerror(ENOENT));
  } else {
    tried.push_back("$HOME not set");
  }
  std::string message = "no configuration found: --kubeconfig not set";
  for (const std::string& t : tried) message += ", " + t;
  return MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

}  // namespace berth::shim
