// clientgo-shim/config/loader.h
//
// Where berth finds its API server, in client-go/controller-runtime order:
//   1. the --kubeconfig flag (that file must load),
//   2. $KUBECONFIG (a ':'-separated list; missing entries are skipped, the rest merge),
//   3. in-cluster (KUBERNETES_SERVICE_HOST/PORT + the service-account files),
//   4. ~/.kube/config.
// The first source that is present decides: a broken kubeconfig is an error, not a fallthrough,
// so a typo never silently connects somewhere else. Errors name the file and the field.
// Example:
//   auto config = LoadRestConfig({.kubeconfig_flag = flags.kubeconfig, .context = flags.context});
//   if (!config) { std::cerr << config.error().message << "\n"; return 1; }
//   auto client = MakeRestClient(*config);
#pragma once

#include <optional>
#include <string>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/config/in_cluster.h"
#include "clientgo-shim/config/kubeconfig.h"
#include "clientgo-shim/config/rest_config.h"

namespace berth::shim {

// LoaderOptions. Each field says its default.
struct LoaderOptions {
  std::string kubeconfig_flag;  // --kubeconfig. Default: "" = not given.
  std::string context;          // --context. Default: "" = current-context.
  // Test hooks; nullopt = the real environment ($KUBECONFIG, $HOME).
  std::optional<std::string> kubeconfig_env;
  std::optional<std::string> home;
  InClusterOptions in_cluster;   // paths, env overrides and token refresh period
  KubeconfigOptions kubeconfig;  // its `context` is overridden by `context` above
};

// LoadRestConfig applies the precedence above.
// Errors: kInvalidArgument from the chosen source; when nothing is found, one message listing
// what was tried ("no configuration found: --kubeconfig not set, $KUBECONFIG not set, not
// in a cluster (KUBERNETES_SERVICE_HOST unset), /home/u/.kube/config: No such file or directory").
Result<RestConfig> LoadRestConfig(const LoaderOptions& options = {});

}  // namespace berth::shim
