// e2e/grpc_provider/main.cc
//
// berth-e2e-grpc-provider: a Cluster Autoscaler externalgrpc cloud provider for tests. A real
// gRPC server (proto/externalgrpc.proto) whose node groups add Nodes to kubesim through its API
// (POST /api/v1/nodes with the group's template labels and allocatable, providerID
// berth-e2e://<group>/<node>) when their target size grows, and delete them on DeleteNodes.
//
//   berth-e2e-grpc-provider --kubeconfig K --listen 127.0.0.1:0 --state-file S [--control-file C]
//       --group id:min:max:cpu:memory:pods[:label=value,...]  (repeatable)
//
// Prints "listening on port N" once serving. After every change it writes S (JSON: each group's
// target size and nodes, and every size-changing call). C, read at each IncreaseSize, tells it to
// misbehave, one key=value a line:
//   refuse=true            IncreaseSize fails with RESOURCE_EXHAUSTED
//   grant-at-most=N        the target grows by at most N (the call still succeeds)
//   create-at-most=N       of the granted nodes, at most N are ever created (the rest never register)
//   node-delay-ms=N        nodes appear N ms after the call
//   call-delay-ms=N        the call itself answers after N ms (slow provider)
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "clientgo-shim/api/quantity.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/config/loader.h"
#include "controllers/provisioning/externalgrpc/node_template.h"
#include "proto/externalgrpc.grpc.pb.h"

namespace {

namespace pb = ::clusterautoscaler::cloudprovider::v1::externalgrpc;
using namespace berth;

constexpr char kProviderPrefix[] = "berth-e2e://";

struct Group {
  std::string id;
  int32_t min = 0, max = 0;
  reconcile::placement::NodeView tmpl;
  std::map<std::string, std::string> allocatable_text;  // resource -> quantity text
  int32_t target = 0;
  int32_t to_create = 0;             // granted nodes not created yet (cancellable)
  std::vector<std::string> nodes;    // created node names
  int next_index = 0;
};

struct Control {
  bool refuse = false;
  int grant_at_most = -1;
  int create_at_most = -1;
  int node_delay_ms = 0;
  int call_delay_ms = 0;
};

Control ReadControl(const std::string& path) {
  Control c;
  if (path.empty()) return c;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    try {
      if (key == "refuse") c.refuse = value == "true";
      if (key == "grant-at-most") c.grant_at_most = std::stoi(value);
      if (key == "create-at-most") c.create_at_most = std::stoi(value);
      if (key == "node-delay-ms") c.node_delay_ms = std::stoi(value);
      if (key == "call-delay-ms") c.call_delay_ms = std::stoi(value);
    } catch (...) {
      std::cerr << "control file: bad line \"" << line << "\"\n";
    }
  }
  return c;
}

// ParseGroup: id:min:max:cpu:memory:pods[:label=value,...]
std::optional<Group> ParseGroup(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ':')) parts.push_back(part);
  if (parts.size() < 6) return std::nullopt;
  Group g;
  g.id = parts[0];
  try {
    g.min = std::stoi(parts[1]);
    g.max = std::stoi(parts[2]);
  } catch (...) {
    return std::nullopt;
  }
  g.tmpl.name = g.id + "-template";
  g.allocatable_text = {{"cpu", parts[3]}, {"memory", parts[4]}, {"pods", parts[5]}};
  for (const auto& [name, q] : g.allocatable_text) {
    auto parsed = shim::Quantity::Parse(q);
    if (!parsed) return std::nullopt;
    g.tmpl.allocatable[name] = parsed->MilliValue();
  }
  if (parts.size() > 6) {
    std::stringstream labels(parts[6]);
    while (std::getline(labels, part, ',')) {
      const auto eq = part.find('=');
      if (eq == std::string::npos) return std::nullopt;
      g.tmpl.labels[part.substr(0, eq)] = part.substr(eq + 1);
    }
  }
  return g;
}

class Provider final : public pb::CloudProvider::Service {
 public:
  Provider(std::map<std::string, Group> groups, shim::ObjectClient client, std::string state_file,
           std::string control_file)
      : groups_(std::move(groups)), client_(std::move(client)), state_file_(std::move(state_file)),
        control_file_(std::move(control_file)) {
    std::lock_guard lock(mu_);
    WriteState();
  }
  ~Provider() override {
    for (auto& t : creators_) t.join();
  }

  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*, pb::NodeGroupsResponse* out) override {
    std::lock_guard lock(mu_);
    for (const auto& [id, g] : groups_) Fill(g, out->add_nodegroups());
    return grpc::Status::OK;
  }

  grpc::Status NodeGroupForNode(grpc::ServerContext*, const pb::NodeGroupForNodeRequest* req,
                                pb::NodeGroupForNodeResponse* out) override {
    std::lock_guard lock(mu_);
    const std::string& pid = req->node().providerid();
    for (const auto& [id, g] : groups_) {
      if (pid.rfind(kProviderPrefix + id + "/", 0) == 0) {
        Fill(g, out->mutable_nodegroup());
        break;
      }
    }
    return grpc::Status::OK;  // unset nodeGroup: not managed
  }

  grpc::Status NodeGroupTargetSize(grpc::ServerContext*, const pb::NodeGroupTargetSizeRequest* req,
                                   pb::NodeGroupTargetSizeResponse* out) override {
    std::lock_guard lock(mu_);
    Group* g = Find(req->id());
    if (!g) return NotFound(req->id());
    out->set_targetsize(g->target);
    return grpc::Status::OK;
  }

  grpc::Status NodeGroupIncreaseSize(grpc::ServerContext*, const pb::NodeGroupIncreaseSizeRequest* req,
                                     pb::NodeGroupIncreaseSizeResponse*) override {
    const Control control = ReadControl(control_file_);
    if (control.call_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(control.call_delay_ms));
    std::lock_guard lock(mu_);
    Group* g = Find(req->id());
    if (!g) return NotFound(req->id());
    Record("IncreaseSize " + g->id + " " + std::to_string(req->delta()));
    if (req->delta() <= 0) return {grpc::StatusCode::INVALID_ARGUMENT, "delta must be positive"};
    if (control.refuse) return {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of capacity in node group " + g->id};
    if (g->target + req->delta() > g->max) {
      return {grpc::StatusCode::FAILED_PRECONDITION, "size increase too large: target " + std::to_string(g->target) +
                                                         " + " + std::to_string(req->delta()) + " > max " +
                                                         std::to_string(g->max)};
    }
    const int32_t granted = control.grant_at_most >= 0 ? std::min(req->delta(), control.grant_at_most) : req->delta();
    const int32_t create = control.create_at_most >= 0 ? std::min(granted, control.create_at_most) : granted;
    g->target += granted;
    g->to_create += create;
    WriteState();
    // Nodes appear later, as a cloud's would (the call only moves the target).
    const std::string id = g->id;
    creators_.emplace_back([this, id, create, delay = control.node_delay_ms] {
      if (delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      for (int i = 0; i < create; ++i) CreateNode(id);
    });
    return grpc::Status::OK;
  }

  grpc::Status NodeGroupDecreaseTargetSize(grpc::ServerContext*, const pb::NodeGroupDecreaseTargetSizeRequest* req,
                                           pb::NodeGroupDecreaseTargetSizeResponse*) override {
    std::lock_guard lock(mu_);
    Group* g = Find(req->id());
    if (!g) return NotFound(req->id());
    Record("DecreaseTargetSize " + g->id + " " + std::to_string(req->delta()));
    if (req->delta() >= 0) return {grpc::StatusCode::INVALID_ARGUMENT, "delta must be negative"};
    const int32_t unregistered = g->target - static_cast<int32_t>(g->nodes.size());
    if (-req->delta() > unregistered) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "attempt to delete existing nodes: target " + std::to_string(g->target) + ", registered " +
                  std::to_string(g->nodes.size()) + ", delta " + std::to_string(req->delta())};
    }
    g->target += req->delta();
    g->to_create = std::max(0, std::min(g->to_create, g->target - static_cast<int32_t>(g->nodes.size())));
    WriteState();
    return grpc::Status::OK;
  }

  grpc::Status NodeGroupDeleteNodes(grpc::ServerContext*, const pb::NodeGroupDeleteNodesRequest* req,
                                    pb::NodeGroupDeleteNodesResponse*) override {
    std::lock_guard lock(mu_);
    Group* g = Find(req->id());
    if (!g) return NotFound(req->id());
    std::string names;
    for (const auto& n : req->nodes()) names += " " + n.name();
    Record("DeleteNodes " + g->id + names);
    for (const auto& n : req->nodes()) {
      if (std::find(g->nodes.begin(), g->nodes.end(), n.name()) == g->nodes.end()) {
        return {grpc::StatusCode::INVALID_ARGUMENT, "node " + n.name() + " does not belong to node group " + g->id};
      }
    }
    for (const auto& n : req->nodes()) {
      Status deleted;
      for (int attempt = 0; attempt < 5; ++attempt) {  // through API faults (bounded)
        deleted = client_.Delete(shim::ResourceRef{"", "v1", "nodes", "", n.name()});
        if (deleted || deleted.error().code == ErrorCode::kNotFound) break;
      }
      if (!deleted && deleted.error().code != ErrorCode::kNotFound) {
        return {grpc::StatusCode::UNAVAILABLE, "deleting node " + n.name() + ": " + deleted.error().message};
      }
      std::erase(g->nodes, n.name());
      --g->target;
    }
    WriteState();
    return grpc::Status::OK;
  }

  grpc::Status NodeGroupNodes(grpc::ServerContext*, const pb::NodeGroupNodesRequest* req,
                              pb::NodeGroupNodesResponse* out) override {
    std::lock_guard lock(mu_);
    Group* g = Find(req->id());
    if (!g) return NotFound(req->id());
    for (const auto& name : g->nodes) {
      auto* inst = out->add_instances();
      inst->set_id(ProviderId(g->id, name));
      inst->mutable_status()->set_instancestate(pb::InstanceStatus::instanceRunning);
    }
    return grpc::Status::OK;
  }

  grpc::Status NodeGroupTemplateNodeInfo(grpc::ServerContext*, const pb::NodeGroupTemplateNodeInfoRequest* req,
                                         pb::NodeGroupTemplateNodeInfoResponse* out) override {
    std::lock_guard lock(mu_);
    Group* g = Find(req->id());
    if (!g) return NotFound(req->id());
    out->set_nodebytes(controllers::externalgrpc::EncodeTemplateNode(g->tmpl));
    return grpc::Status::OK;
  }

  grpc::Status Refresh(grpc::ServerContext*, const pb::RefreshRequest*, pb::RefreshResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status Cleanup(grpc::ServerContext*, const pb::CleanupRequest*, pb::CleanupResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status GPULabel(grpc::ServerContext*, const pb::GPULabelRequest*, pb::GPULabelResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status GetAvailableGPUTypes(grpc::ServerContext*, const pb::GetAvailableGPUTypesRequest*,
                                    pb::GetAvailableGPUTypesResponse*) override {
    return grpc::Status::OK;
  }

 private:
  static std::string ProviderId(const std::string& group, const std::string& node) {
    return kProviderPrefix + group + "/" + node;
  }
  static grpc::Status NotFound(const std::string& id) {
    return {grpc::StatusCode::NOT_FOUND, "node group \"" + id + "\" not found"};
  }
  static void Fill(const Group& g, pb::NodeGroup* out) {
    out->set_id(g.id);
    out->set_minsize(g.min);
    out->set_maxsize(g.max);
    out->set_debug("berth-e2e group " + g.id);
  }
  Group* Find(const std::string& id) {
    auto it = groups_.find(id);
    return it == groups_.end() ? nullptr : &it->second;
  }
  void Record(std::string call) {
    std::cout << "call: " << call << std::endl;
    calls_.push_back(std::move(call));
  }

  // CreateNode POSTs one node of the group to kubesim (unless the request was given back).
  void CreateNode(const std::string& id) {
    std::string name;
    json::Document node;
    {
      std::lock_guard lock(mu_);
      Group& g = groups_.at(id);
      if (g.to_create <= 0) return;
      --g.to_create;
      name = g.id + "-" + std::to_string(g.next_index++);
      auto& a = node.GetAllocator();
      node.SetObject();
      std::string text = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                         R"(","labels":{}},"spec":{"providerID":")" + ProviderId(g.id, name) +
                         R"("},"status":{"capacity":{},"allocatable":{},"conditions":[{"type":"Ready","status":"True"}]}})";
      node.Parse(text.c_str());
      auto& meta_labels = node["metadata"]["labels"];
      for (const auto& [k, v] : g.tmpl.labels) meta_labels.AddMember(json::Value(k.c_str(), a), json::Value(v.c_str(), a), a);
      meta_labels.AddMember("kubernetes.io/hostname", json::Value(name.c_str(), a), a);
      for (const char* field : {"capacity", "allocatable"}) {
        for (const auto& [r, q] : g.allocatable_text) {
          node["status"][field].AddMember(json::Value(r.c_str(), a), json::Value(q.c_str(), a), a);
        }
      }
      g.nodes.push_back(name);
      WriteState();
    }
    // A cloud keeps trying to register its instance: retried through API faults (bounded).
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto created = client_.Create(shim::ResourceRef{"", "v1", "nodes", "", ""}, node);
      if (created || created.error().code == ErrorCode::kAlreadyExists) {
        std::cout << "created node " << name << std::endl;
        return;
      }
      std::cerr << "creating node " << name << ": " << created.error().message << std::endl;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // WriteState: the JSON state file, written whole and renamed into place (callers hold mu_).
  void WriteState() {
    if (state_file_.empty()) return;
    std::string out = "{\"groups\":{";
    bool first = true;
    for (const auto& [id, g] : groups_) {
      out += std::string(first ? "" : ",") + "\"" + id + "\":{\"target\":" + std::to_string(g.target) + ",\"nodes\":[";
      for (size_t i = 0; i < g.nodes.size(); ++i) out += std::string(i ? "," : "") + "\"" + g.nodes[i] + "\"";
      out += "]}";
      first = false;
    }
    out += "},\"calls\":[";
    for (size_t i = 0; i < calls_.size(); ++i) out += std::string(i ? "," : "") + "\"" + calls_[i] + "\"";
    out += "]}\n";
    const std::string tmp = state_file_ + ".tmp";
    {
      std::ofstream f(tmp, std::ios::trunc);
      f << out;
    }
    std::rename(tmp.c_str(), state_file_.c_str());
  }

  std::mutex mu_;
  std::map<std::string, Group> groups_;
  shim::ObjectClient client_;
  std::string state_file_, control_file_;
  std::vector<std::string> calls_;
  std::vector<std::thread> creators_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string kubeconfig, listen = "127.0.0.1:0", state_file, control_file;
  std::map<std::string, Group> groups;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--kubeconfig") {
      kubeconfig = value();
    } else if (a == "--listen") {
      listen = value();
    } else if (a == "--state-file") {
      state_file = value();
    } else if (a == "--control-file") {
      control_file = value();
    } else if (a == "--group") {
      const std::string text = value();
      auto g = ParseGroup(text);
      if (!g) {
        std::cerr << "invalid --group \"" << text << "\" (id:min:max:cpu:memory:pods[:label=value,...])\n";
        return 2;
      }
      groups[g->id] = std::move(*g);
    } else {
      std::cerr << "unknown flag " << a << "\n";
      return 2;
    }
  }
  shim::LoaderOptions loader;
  loader.kubeconfig_flag = kubeconfig;
  auto config = shim::LoadRestConfig(loader);
  if (!config) {
    std::cerr << config.error().message << "\n";
    return 2;
  }
  auto rest = shim::MakeRestClient(*config);
  if (!rest) {
    std::cerr << rest.error().message << "\n";
    return 2;
  }
  Provider provider(std::move(groups), shim::ObjectClient(*rest, std::chrono::milliseconds(5000)), state_file,
                    control_file);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&provider);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::cerr << "cannot listen on " << listen << "\n";
    return 1;
  }
  std::cout << "listening on port " << port << std::endl;
  server->Wait();
  return 0;
}
