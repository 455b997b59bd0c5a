// e2e/kubesim/sim/kubesim_instance.h
//
// One running kubesim: store, registry, REST layer, simulated cluster controllers and the HTTPS
// server, seeded with the default namespaces, N Ready nodes and an optional seed file. main.cc
// builds one from flags; tests and benchmarks build one in-process.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/audit_log.h"
#include "e2e/kubesim/server/faults.h"
#include "e2e/kubesim/server/https_server.h"
#include "e2e/kubesim/sim/cluster_sim.h"

namespace berth::kubesim {

// KubesimOptions: every flag of the kubesim binary. Each field says its default.
struct KubesimOptions {
  std::string bind_address = "127.0.0.1";
  uint16_t port = 0;                 // 0 picks a free port
  std::string kubeconfig_out;        // written once serving; "" = none
  std::string token;                 // "" = a random token
  int nodes = 0;                     // node-0 … node-(N-1), Ready
  std::string node_cpu = "8";
  std::string node_memory = "32Gi";
  std::string node_pods = "110";
  std::string node_ephemeral_storage = "100Gi";
  // > 0: node i gets topology.kubernetes.io/zone=zone-(i % node_zones). Default 0 (no zone).
  int node_zones = 0;
  std::string seed_file;             // YAML/JSON objects created at start, streamed (seed_stream.h)
  ClusterSimOptions cluster;         // kubelet, pod-ready-delay, pod-gc-delay
  size_t history_window = 50000;     // events kept for watch resume
  std::chrono::milliseconds bookmark_interval{60000};
  FaultConfig faults;
  std::string audit_log;             // --audit-log: append one JSON line per request; "" = off
  bool serve_protobuf = true;        // --disable-protobuf turns it off: JSON responses only
};

class KubesimInstance {
 public:
  explicit KubesimInstance(KubesimOptions options);
  ~KubesimInstance();

  // Start seeds the cluster, serves, and writes the kubeconfig. Returns the port.
  Result<uint16_t> Start();
  void Stop();

  ApiServer& api() { return *api_; }
  ObjectStore& store() { return *store_; }
  HttpsServer& server() { return *server_; }
  const std::string& token() const { return token_; }
  const std::string& ca_pem() const { return tls_.ca_cert_pem; }
  uint16_t port() const { return port_; }
  // faults: the injector of options.faults (InjectedCounts shows what a test provoked; SetConfig
  // changes the faults of a running server).
  FaultInjector& faults() { return *faults_; }

  // CreateNode adds one Ready node with the configured allocatable resources.
  Status CreateNode(const std::string& name);
  // LoadObjects creates every object in a YAML or JSON stream (List kinds are expanded), one at
  // a time (seed_stream.h); the first error stops it. LoadSeedFile does so for a file, streamed.
  Status LoadObjects(std::string_view text);
  Status LoadSeedFile(const std::string& path);
  // CreateSeedObject creates one object with the apiserver's full create path (admission,
  // validation, defaults), in its namespace or "default".
  Status CreateSeedObject(rapidjson::Document object);

 private:
  KubesimOptions options_;
  std::string token_;
  TlsMaterial tls_;
  std::unique_ptr<ObjectStore> store_;
  std::unique_ptr<Registry> registry_;
  std::unique_ptr<FaultInjector> faults_;
  std::unique_ptr<AuditLog> audit_log_;
  std::string audit_error_;  // why --audit-log could not be opened; Start reports it
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<ClusterSim> sim_;
  std::unique_ptr<HttpsServer> server_;
  uint16_t port_ = 0;
};

}  // namespace berth::kubesim
