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
