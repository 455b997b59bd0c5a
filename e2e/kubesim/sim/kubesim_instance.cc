#include "e2e/kubesim/sim/kubesim_instance.h"

#include "e2e/kubesim/api/priority_admission.h"

#include <fstream>
#include <random>
#include <sstream>

#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/server/kubeconfig.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

std::string RandomToken() {
  std::random_device rd;
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string token;
  for (int i = 0; i < 32; ++i) token += kAlphabet[rd() % 36];
  return token;
}

std::string ErrorText(const HttpResponse& r) {
  auto doc = json::Parse(r.body);
  if (doc) return std::string(json::GetString(*doc, {"message"}, r.body));
  return r.body;
}

}  // namespace

KubesimInstance::KubesimInstance(KubesimOptions options) : options_(std::move(options)) {
  token_ = options_.token.empty() ? RandomToken() : options_.token;
  store_ = std::make_unique<ObjectStore>(options_.history_window);
  registry_ = std::make_unique<Registry>();
  faults_ = std::make_unique<FaultInjector>(options_.faults);
  ApiServerOptions api_options;
  api_options.bookmark_interval = options_.bookmark_interval;
  api_options.faults = faults_.get();
  api_options.graceful_pod_deletion = options_.cluster.kubelet;
  api_options.serve_protobuf = options_.serve_protobuf;
  if (!options_.audit_log.empty()) {
    // The constructor cannot fail; an unopenable log is reported by Start.
    if (auto log = AuditLog::Open(options_.audit_log)) {
      audit_log_ = std::move(*log);
      api_options.audit_log = audit_log_.get();
    } else {
      audit_error_ = log.error().message;
    }
  }
  api_ = std::make_unique<ApiServer>(api_options, *store_, *registry_);
  sim_ = std::make_unique<ClusterSim>(options_.cluster, *api_);
}

KubesimInstance::~KubesimInstance() { Stop(); }

Status KubesimInstance::CreateNode(const std::string& name) {
  static std::atomic<int> index{0};
  int i = index++;
  std::string ip = "10.0." + std::to_string((i >> 8) & 0xFF) + "." + std::to_string(i & 0xFF);
  std::string text = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                     R"(","labels":{)" +
                     (options_.node_zones > 0
                          ? R"("topology.kubernetes.io/zone":"zone-)" + std::to_string(i % options_.node_zones) + R"(",)"
                          : std::string()) +
                     R"("kubernetes.io/hostname":")" + name +
                     R"(","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","beta.kubernetes.io/arch":"amd64"}},)"
                     R"("spec":{"podCIDR":"10.244.)" + std::to_string(i & 0xFF) + R"(.0/24"},)"
                     R"("status":{"capacity":{"cpu":")" + options_.node_cpu + R"(","memory":")" +
                     options_.node_memory + R"(","pods":")" + options_.node_pods +
                     R"(","ephemeral-storage":")" + options_.node_ephemeral_storage + R"("},)"
                     R"("allocatable":{"cpu":")" + options_.node_cpu + R"(","memory":")" +
                     options_.node_memory + R"(","pods":")" + options_.node_pods +
                     R"(","ephemeral-storage":")" + options_.node_ephemeral_storage + R"("},)"
                     R"("conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"kubelet is posting ready status","lastHeartbeatTime":")" +
                     NowRfc3339() + R"(","lastTransitionTime":")" + NowRfc3339() + R"("}],)"
                     R"("addresses":[{"type":"InternalIP","address":")" + ip + R"("},{"type":"Hostname","address":")" + name + R"("}],)"
                     R"("nodeInfo":{"kubeletVersion":"v1.32.0","kubeProxyVersion":"v1.32.0","osImage":"kubesim","kernelVersion":"6.1.0","containerRuntimeVersion":"containerd://1.7.0","operatingSystem":"linux","architecture":"amd64","machineID":"","systemUUID":"","bootID":""}}})";
  auto doc = json::Parse(text);
  if (!doc) return std::unexpected(doc.error());
  auto type = api_->TypeOf("", "nodes");
  OpResult r = api_->DoCreate(*type, "", std::move(*doc), WriteOptions{"Ignore", false, ""});
  if (!r.ok()) return MakeError(ErrorCode::kInvalid, "node " + name + ": " + ErrorText(*r.error));
  return {};
}

Status KubesimInstance::LoadObjects(std::string_view text) {
  auto docs = shim::YamlToJsonDocuments(text);
  if (!docs) return std::unexpected(docs.error());
  std::vector<Document> objects;
  for (auto& d : *docs) {
    if (!d.IsObject()) continue;
    std::string_view kind = json::GetString(d, {"kind"});
    if (kind.size() > 4 && kind.ends_with("List") && json::Member(d, "items")) {
      for (auto& item : (*json::FindMutable(d, {"items"})).GetArray()) {
        Document copy;
        copy.CopyFrom(item, copy.GetAllocator());
        objects.push_back(std::move(copy));
      }
    } else {
      objects.push_back(std::move(d));
    }
  }
  for (auto& obj : objects) {
    std::string api_version(json::GetString(obj, {"apiVersion"}));
    std::string kind(json::GetString(obj, {"kind"}));
    std::string group, version = api_version;
    if (auto slash = api_version.find('/'); slash != std::string::npos) {
      group = api_version.substr(0, slash);
      version = api_version.substr(slash + 1);
    }
    auto type = api_->registry().FindByKind(group, version, kind);
    if (!type) return MakeError(ErrorCode::kInvalidArgument, "seed: no resource for " + api_version + " " + kind);
    std::string ns = type->namespaced ? std::string(json::GetString(obj, {"metadata", "namespace"}, "default")) : "";
    std::string name(json::GetString(obj, {"metadata", "name"}));
    OpResult r = api_->DoCreate(*type, ns, std::move(obj), WriteOptions{"Ignore", false, ""});
    if (!r.ok()) return MakeError(ErrorCode::kInvalid, "seed " + kind + " " + name + ": " + ErrorText(*r.error));
  }
  return {};
}

Result<uint16_t> KubesimInstance::Start() {
  if (!audit_error_.empty()) return MakeError(ErrorCode::kInvalidArgument, audit_error_);
  auto tls = GenerateTlsMaterial();
  if (!tls) return std::unexpected(tls.error());
  tls_ = std::move(*tls);
  sim_->Start();
  auto ns_type = api_->TypeOf("", "namespaces");
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    auto doc = json::Parse(std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") + ns + "\"}}");
    api_->DoCreate(*ns_type, "", std::move(*doc), WriteOptions{"Ignore", false, ""});
  }
  // kube-apiserver creates the system PriorityClasses at start.
  auto pc_type = api_->TypeOf("scheduling.k8s.io", "priorityclasses");
  for (const char* const* pc = BuiltinPriorityClasses(); *pc != nullptr; ++pc) {
    api_->DoCreate(*pc_type, "", std::move(*json::Parse(*pc)), WriteOptions{"Ignore", false, ""});
  }
  for (int i = 0; i < options_.nodes; ++i) {
    if (auto s = CreateNode("node-" + std::to_string(i)); !s) return std::unexpected(s.error());
  }
  if (!options_.seed_file.empty()) {
    std::ifstream in(options_.seed_file);
    if (!in) return MakeError(ErrorCode::kInvalidArgument, "cannot read --seed-file " + options_.seed_file);
    std::stringstream buf;
    buf << in.rdbuf();
    if (auto s = LoadObjects(buf.str()); !s) return std::unexpected(s.error());
  }
  HttpsServer::Options server_options;
  server_options.bind_address = options_.bind_address;
  server_options.port = options_.port;
  server_options.token = token_;
  server_options.on_history_window = [this](size_t n) { store_->SetHistoryWindow(n); };
  server_options.history_window = [this] { return store_->HistoryWindow(); };
  server_options.on_connections_dropped = [this] { store_->CloseAllWatchers(); };
  server_ = std::make_unique<HttpsServer>(server_options, tls_,
                                          [this](const HttpRequest& req, ResponseSink& sink) { api_->Handle(req, sink); },
                                          faults_.get());
  auto port = server_->Start();
  if (!port) return std::unexpected(port.error());
  port_ = *port;
  // A real cluster's `default/kubernetes` Service: the first address of the service CIDR, port
  // 443 (https) onto the apiserver's secure port.
  {
    auto svc = json::Parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"kubernetes","namespace":"default",)"
                           R"("labels":{"component":"apiserver","provider":"kubernetes"}},"spec":{"type":"ClusterIP",)"
                           R"("clusterIP":"10.96.0.1","ports":[{"name":"https","port":443,"protocol":"TCP","targetPort":)" +
                           std::to_string(port_) + "}]}}");
    OpResult r = api_->DoCreate(*api_->TypeOf("", "services"), "default", std::move(*svc), WriteOptions{"Ignore", false, ""});
    if (!r.ok()) return MakeError(ErrorCode::kInternal, "default/kubernetes service: " + ErrorText(*r.error));
  }
  if (!options_.kubeconfig_out.empty()) {
    std::string url = "https://" + options_.bind_address + ":" + std::to_string(port_);
    if (auto s = WriteKubeconfig(options_.kubeconfig_out, url, tls_.ca_cert_pem, token_); !s) {
      return std::unexpected(s.error());
    }
  }
  return port_;
}

void KubesimInstance::Stop() {
  if (api_) api_->Shutdown();
  if (server_) server_->Stop();
  if (sim_) sim_->Stop();
}

}  // namespace berth::kubesim
