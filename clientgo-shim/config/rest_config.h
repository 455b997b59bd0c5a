// clientgo-shim/config/rest_config.h
//
// RestConfig: how to reach and authenticate to one API server, whatever it came from (a
// kubeconfig context, the in-cluster service account). The loaders in this folder produce it;
// MakeRestClient turns it into the HttpsRestClient the runtime uses.
// Example:
//   auto config = LoadRestConfig({.kubeconfig_flag = flags.kubeconfig});
//   if (!config) { std::cerr << config.error().message; return 1; }
//   auto client = MakeRestClient(*config);
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/transport/rest_client.h"

namespace berth::shim {

// RestConfig: the resolved connection settings. Each field says its default.
struct RestConfig {
  std::string server;                     // "https://host:port[/prefix]"
  std::string ca_pem;                     // CA certificate(s), PEM. Default: "" = system store.
  bool insecure_skip_tls_verify = false;  // Default: false.
  std::string tls_server_name;            // Default: "" = the server's host.
  std::string client_cert_pem;            // Default: "" = no client certificate.
  std::string client_key_pem;             // Default: "".
  // Bearer token, asked on every request (re-reads rotated token files, caches exec
  // credentials). Default: none (no Authorization header).
  std::function<std::string()> token_source;
  // Called on a 401 before one retry (drops cached exec credentials). Default: none.
  std::function<void()> on_unauthorized;
  std::string default_namespace = "default";  // the context's or service account's namespace
  std::string source;                     // for logs: "kubeconfig /x/config, context \"kind\""
  double qps = 0;                         // client-side limit; <= 0 off. Default: 0.
  int burst = 10;                         // Default: 10.
  std::chrono::milliseconds timeout{30000};  // per-request timeout. Default: 30 s.
  std::string user_agent = "berth/0.1";
  // Per-attempt hook for rest_client_requests_total. Default: none.
  std::function<void(std::string_view method, int code, std::chrono::duration<double> latency)>
      on_request;
};

// MakeRestClient builds an HttpsRestClient from `config`.
// Errors: kInvalidArgument for a bad server URL, CA or client certificate (the message says
// which, prefixed by config.source when set).
Result<std::shared_ptr<RestClient>> MakeRestClient(const RestConfig& config);

}  // namespace berth::shim
