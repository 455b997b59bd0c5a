// fuzz/kubeconfig_fuzz.cc — ParseKubeconfig (clientgo-shim/config/kubeconfig): YAML or JSON
// kubeconfig text through libyaml into RestConfig. Exec plugins are not run (the input would
// choose the command); file references resolve under a directory that does not exist.
// Property: no crash; every rejection carries a message naming the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "clientgo-shim/config/kubeconfig.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string kPath = "/nonexistent-berth-fuzz/kubeconfig";
  berth::shim::KubeconfigOptions options;
  options.run_exec_plugins = false;
  auto config = berth::shim::ParseKubeconfig(berth::fuzz::AsText(data, size), kPath, options);
  if (!config) FUZZ_CHECK(config.error().message.find(kPath) != std::string::npos);
  return 0;
}
