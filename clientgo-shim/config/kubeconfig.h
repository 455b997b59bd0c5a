// clientgo-shim/config/kubeconfig.h
//
// kubeconfig (clientcmd v1 YAML/JSON) → RestConfig: the chosen context (or current-context),
// its cluster (server, certificate-authority[-data], insecure-skip-tls-verify, tls-server-name)
// and user (token, tokenFile, client-certificate/key[-data], exec plugin). Relative paths resolve
// against the directory of the file that holds the entry. Several files (the $KUBECONFIG list)
// merge as clientcmd does: the first file to define a name or current-context wins.
// Every error names the file and the field:
//   kubeconfig /x/config: context "foo" not found
//   kubeconfig /x/config: users[0].user.client-certificate: cannot read /a/b: No such file or directory
// Not supported (rejected with a clear error): auth-provider. Ignored: username/password,
// impersonation (as, as-groups), proxy-url, extensions, preferences.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/config/rest_config.h"

namespace berth::shim {

// KubeconfigOptions: choices made by flags. Each field says its default.
struct KubeconfigOptions {
  std::string context;  // --context. Default: "" = current-context.
  std::chrono::milliseconds token_file_period{60000};  // tokenFile re-read period. Default: 1 min.
  // Run exec plugins now (their errors are load errors, and client certificates they return
  // are used). Default: true.
  bool run_exec_plugins = true;
};

// LoadKubeconfig reads and merges `paths` (in order) and resolves the context.
// Errors: kInvalidArgument naming the file and field (unreadable file, malformed YAML, a list
// that is not a list, missing names, unknown context/cluster/user, missing server, bad base64,
// unreadable certificate or token files, exec plugin failures).
Result<RestConfig> LoadKubeconfig(const std::vector<std::string>& paths,
                                  const KubeconfigOptions& options = {});

// ParseKubeconfig is LoadKubeconfig for text already in memory, as if read from `path` (which
// names it in errors and anchors relative paths).
Result<RestConfig> ParseKubeconfig(std::string_view text, const std::string& path,
                                   const KubeconfigOptions& options = {});

}  // namespace berth::shim
