// e2e/kubesim/server/kubeconfig.h
//
// Writes the kubeconfig that points kubectl and the controller at a running kubesim: the server
// URL, the CA (inline, base64) and a bearer token. The file is replaced atomically so a test
// harness polling for it never reads half of it.
#pragma once

#include <string>
#include <string_view>

#include "clientgo-shim/base/encoding.h"  // Base64Encode for the *-data fields
#include "clientgo-shim/base/result.h"

namespace berth::kubesim {

// RenderKubeconfig returns the kubeconfig YAML text (cluster, user and context all named after
// cluster_name except the context, which is "kubesim"; current-context set).
std::string RenderKubeconfig(std::string_view server_url, std::string_view ca_pem,
                             std::string_view token, std::string_view cluster_name = "kubesim");

// WriteKubeconfig writes RenderKubeconfig(...) to `path` with mode 0600 via a temporary file in
// the same directory and rename(2). Errors: kInternal naming the failing step and errno text.
Status WriteKubeconfig(const std::string& path, std::string_view server_url,
                       std::string_view ca_pem, std::string_view token,
                       std::string_view cluster_name = "kubesim");

}  // namespace berth::kubesim
