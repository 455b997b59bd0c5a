// bench/bench_support.h
//
// What every macro benchmark driver needs: flag reading ("--name value" or "--name=value"),
// reading a file, and an HTTPS RestClient for an in-process kubesim. Header-only, so each
// driver stays one source file.
#pragma once

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <thread>

#include "clientgo-shim/manager/manager.h"
#include "clientgo-shim/transport/https_client.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace berth::bench {

// DeploymentPodSpecJson: the spec of bench/peer/bench.mjs's pod (a Deployment's: two containers
// with ports, env, a probe, a mount, requests and limits; a volume; two tolerations), bound to
// `node`, as a JSON object's text.
inline std::string DeploymentPodSpecJson(const std::string& app, const std::string& node) {
  return R"({"nodeName":")" + node + R"(","serviceAccountName":"default","priorityClassName":"",)"
         R"("containers":[{"name":"app","image":"registry.example.com/)" + app + R"(:1.4.2",)"
         R"("ports":[{"name":"http","containerPort":8080,"protocol":"TCP"},{"name":"metrics","containerPort":9090,"protocol":"TCP"}],)"
         R"("env":[{"name":"LOG_LEVEL","value":"info"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},)"
         R"({"name":"GOMAXPROCS","value":"2"}],)"
         R"("resources":{"requests":{"cpu":"250m","memory":"256Mi"},"limits":{"cpu":"1","memory":"512Mi"}},)"
         R"("readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":10},)"
         R"("volumeMounts":[{"name":"config","mountPath":"/etc/app"}]},)"
         R"({"name":"sidecar","image":"registry.example.com/proxy:2.1.0","resources":{"requests":{"cpu":"50m","memory":"64Mi"}},)"
         R"("args":["--listen=:15001","--upstream=127.0.0.1:8080"]}],)"
         R"("volumes":[{"name":"config","configMap":{"name":")" + app + R"(-config"}}],)"
         R"("tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},)"
         R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]})";
}

// FlagString returns the value of `name`, or `fallback` when absent.
inline std::string FlagString(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == name && i + 1 < argc) return argv[i + 1];
    if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
  }
  return fallback;
}

inline int FlagInt(int argc, char** argv, const std::string& name, int fallback) {
  std::string v = FlagString(argc, argv, name, "");
  return v.empty() ? fallback : std::atoi(v.c_str());
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ClientFor connects to a started in-process kubesim over verified HTTPS with its token.
inline Result<std::shared_ptr<shim::HttpsRestClient>> ClientFor(kubesim::KubesimInstance& sim,
                                                                std::chrono::seconds timeout = std::chrono::seconds(120)) {
  shim::HttpsRestClientOptions options;
  options.server = "https://127.0.0.1:" + std::to_string(sim.port());
  options.ca_pem = sim.ca_pem();
  const std::string token = sim.token();
  options.token_source = [token] { return token; };
  options.request_timeout = timeout;
  return shim::HttpsRestClient::Create(options);
}

// MakeManager creates a Manager on `rest` with its metrics and probe servers off, as every
// driver runs it (the figures measure controllers, not HTTP endpoints).
inline auto MakeManager(shim::RestClientPtr rest) {
  shim::ManagerOptions options;
  options.rest = std::move(rest);
  options.metrics_bind_address = "0";
  options.health_probe_bind_address = "0";
  return shim::Manager::Create(options);
}

// StartManager starts `manager` and waits (polling, at startup only) until its controllers run.
inline Status StartManager(shim::Manager& manager, std::chrono::minutes timeout = std::chrono::minutes(5)) {
  if (auto s = manager.Start(); !s) return s;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!manager.ControllersStarted() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // startup only; not a measurement
  }
  if (!manager.ControllersStarted()) return MakeError(ErrorCode::kTimeout, "controllers did not start");
  return {};
}

}  // namespace berth::bench
