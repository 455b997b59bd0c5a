// controllers/provisioning/externalgrpc/scale_up.cc
#include "controllers/provisioning/externalgrpc/scale_up.h"

#include <set>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/provisioning/externalgrpc/node_template.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers::externalgrpc {
namespace {

namespace prov = reconcile::provisioning;
constexpr char kLogger[] = "externalgrpc";

std::string NodeKey(std::string_view name, std::string_view provider_id) {
  return std::string(name) + "\n" + std::string(provider_id);
}

// GoodTemplateCandidate: a Node upstream prefers as its group's template: Ready and schedulable
// (upstream also waits a minute after the Ready transition; berth does not).
bool GoodTemplateCandidate(const shim::CachedObject& node) {
  auto unschedulable = node.FindJson({"spec", "unschedulable"});
  if (unschedulable && unschedulable->IsBool() && unschedulable->GetBool()) return false;
  auto conditions = node.FindJson({"status", "conditions"});
  if (!conditions || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray()) {
    if (json::GetString(c, {"type"}) == "Ready") return json::GetString(c, {"status"}) == "True";
  }
  return false;
}

}  // namespace

GrpcNodeGroupPort::GrpcNodeGroupPort(std::unique_ptr<ExternalGrpcClient> client,
                                     std::shared_ptr<shim::SharedInformer> nodes)
    : client_(std::move(client)), nodes_(std::move(nodes)) {}

std::expected<std::vector<prov::NodeGroupInfo>, std::string> GrpcNodeGroupPort::NodeGroups() {
  // As CA's loop: Refresh first (an error ends the attempt), then the groups. Like upstream's
  // client, Refresh drops the NodeGroupForNode answers: the provider may have regrouped nodes.
  group_of_.clear();
  if (auto r = client_->Refresh(); !r) return std::unexpected(r.error().message);
  auto groups = client_->NodeGroups();
  if (!groups) return std::unexpected(groups.error().message);
  // As CA's MixedTemplateNodeInfoProvider: a group's template is a copy of one of its ready,
  // schedulable Nodes; else NodeGroupTemplateNodeInfo (optional for a provider: scale from
  // zero); else, as a last resort, any of its Nodes.
  std::map<std::string, reconcile::placement::NodeView> good, any;
  for (const shim::ObjectPtr& node : nodes_->store().List()) {
    if (node->FindString({"metadata", "deletionTimestamp"})) continue;
    auto group = GroupOf(std::string(node->Name()), node->FindString({"spec", "providerID"}).value_or(""));
    if (!group) return std::unexpected(group.error());
    auto& into = GoodTemplateCandidate(*node) ? good : any;
    if (group->empty() || into.contains(*group)) continue;
    auto doc = scheduler_support::ToJson(node);
    if (!doc) continue;
    reconcile::placement::NodeView view = ReadNodeView(*doc);
    view.avoided_controllers.clear();  // a new node has no history nor images
    view.image_sizes.clear();
    into.emplace(*group, std::move(view));
  }
  std::vector<prov::NodeGroupInfo> out;
  for (const pb::NodeGroup& g : *groups) {
    prov::NodeGroupInfo info;
    info.id = g.id();
    info.min_size = g.minsize();
    info.max_size = g.maxsize();
    auto target = client_->NodeGroupTargetSize(g.id());
    if (!target) return std::unexpected(target.error().message);
    info.target_size = *target;
    if (auto real = good.find(g.id()); real != good.end()) {
      info.template_node = std::move(real->second);
      out.push_back(std::move(info));
      continue;
    }
    auto bytes = client_->NodeGroupTemplateNodeInfo(g.id());
    if (!bytes) {
      info.template_error = bytes.error().Unimplemented() ? "NodeGroupTemplateNodeInfo is not implemented"
                                                          : bytes.error().message;
    } else if (bytes->empty()) {
      info.template_error = "NodeGroupTemplateNodeInfo returned no node";
    } else if (auto node = DecodeTemplateNode(*bytes); !node) {
      info.template_error = node.error().message;
    } else {
      info.template_node = std::move(*node);
    }
    if (auto last = any.find(g.id()); !info.template_node && last != any.end()) {
      log::Warn(kLogger, "template node copied from an unready or unschedulable node",
                {{"group", info.id}, {"node", last->second.name}, {"error", info.template_error}});
      info.template_node = std::move(last->second);
      info.template_error.clear();
    }
    if (!info.template_error.empty()) {
      log::Warn(kLogger, "node group without a usable template node", {{"group", info.id}, {"error", info.template_error}});
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::expected<int32_t, std::string> GrpcNodeGroupPort::TargetSize(const std::string& group) {
  auto r = client_->NodeGroupTargetSize(group);
  if (!r) return std::unexpected(r.error().message);
  return *r;
}

std::expected<void, prov::NodeGroupPort::IncreaseError> GrpcNodeGroupPort::IncreaseSize(const std::string& group,
                                                                                    int32_t delta) {
  log::Info(kLogger, "asking for nodes", {{"group", group}, {"delta", std::to_string(delta)}});
  auto r = client_->NodeGroupIncreaseSize(group, delta);
  if (!r) return std::unexpected(IncreaseError{r.error().message, r.error().MaybeApplied()});
  return {};
}

std::expected<void, std::string> GrpcNodeGroupPort::DecreaseTargetSize(const std::string& group, int32_t delta) {
  log::Info(kLogger, "giving back requested nodes", {{"group", group}, {"delta", std::to_string(delta)}});
  auto r = client_->NodeGroupDecreaseTargetSize(group, delta);
  if (!r) return std::unexpected(r.error().message);
  return {};
}

pb::ExternalGrpcNode GrpcNodeGroupPort::NodeMessage(const std::string& name) const {
  pb::ExternalGrpcNode msg;
  msg.set_name(name);
  if (shim::ObjectPtr node = nodes_->store().Get(name)) {
    msg.set_providerid(node->FindString({"spec", "providerID"}).value_or(""));
    for (const char* field : {"labels", "annotations"}) {
      auto map = node->FindJson({"metadata", field});
      if (!map || !map->IsObject()) continue;
      auto* out = std::string_view(field) == "labels" ? msg.mutable_labels() : msg.mutable_annotations();
      for (const auto& m : map->GetObject()) {
        if (m.value.IsString()) (*out)[m.name.GetString()] = m.value.GetString();
      }
    }
  }
  return msg;
}

std::expected<void, std::string> GrpcNodeGroupPort::DeleteNodes(const std::string& group,
                                                                 const std::vector<prov::RegisteredNode>& nodes) {
  std::vector<pb::ExternalGrpcNode> msgs;
  std::string names;
  for (const prov::RegisteredNode& n : nodes) {
    pb::ExternalGrpcNode msg = NodeMessage(n.name);
    if (msg.providerid().empty()) msg.set_providerid(n.provider_id);
    msgs.push_back(std::move(msg));
    names += (names.empty() ? "" : ",") + n.name;
  }
  log::Info(kLogger, "giving back registered nodes", {{"group", group}, {"nodes", names}});
  auto r = client_->NodeGroupDeleteNodes(group, msgs);
  if (!r) return std::unexpected(r.error().message);
  return {};
}

std::expected<std::string, std::string> GrpcNodeGroupPort::GroupOf(const std::string& name,
                                                                   const std::string& provider_id) {
  const std::string key = NodeKey(name, provider_id);
  if (auto it = group_of_.find(key); it != group_of_.end()) return it->second;
  auto answer = client_->NodeGroupForNode(NodeMessage(name));
  if (!answer) return std::unexpected(answer.error().message);
  // "" (not managed) is not cached, as upstream: a Node can register before the provider knows
  // its instance, and must count once it does.
  if (!answer->id().empty()) group_of_.emplace(key, answer->id());
  return answer->id();
}

std::expected<std::vector<prov::RegisteredNode>, std::string> GrpcNodeGroupPort::RegisteredNodes(
    const std::string& group) {
  std::vector<prov::RegisteredNode> out;
  std::set<std::string> live;
  for (const shim::ObjectPtr& node : nodes_->store().List()) {
    const std::string name(node->Name());
    const std::string provider_id = node->FindString({"spec", "providerID"}).value_or("");
    const std::string key = NodeKey(name, provider_id);
    live.insert(key);
    auto group_id = GroupOf(name, provider_id);
    if (!group_id) return std::unexpected(group_id.error());
    if (*group_id == group) out.push_back({name, provider_id});
  }
  std::erase_if(group_of_, [&](const auto& entry) { return !live.contains(entry.first); });
  return out;
}

Result<std::unique_ptr<ExternalGrpcScaleUp>> SetupExternalGrpcScaleUp(shim::Manager& manager,
                                                                      ProvisioningRequestController& controller,
                                                                      const ExternalGrpcScaleUpOptions& options) {
  auto client = ExternalGrpcClient::Create(options.cloud);
  if (!client) return std::unexpected(client.error());
  auto counter = manager.registry().AddCounter(
      "berth_nodegroup_scaleup_total",
      "best-effort-atomic-scale-up attempts through the externalgrpc cloud provider, by node group and result "
      "(success, refused, partial, timeout, not_fit).",
      {"group", "result"});
  if (!counter) return MakeError(ErrorCode::kInternal, "registering berth_nodegroup_scaleup_total failed");
  auto nodes = manager.informers().InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});
  auto out = std::make_unique<ExternalGrpcScaleUp>();
  out->port = std::make_unique<GrpcNodeGroupPort>(std::move(*client), nodes);
  shim::CounterFamily* family = *counter;
  out->provisioner = std::make_unique<prov::AtomicScaleUpProvisioner>(
      *out->port, options.scale_up, [family](const std::string& group, prov::ScaleUpResult result) {
        family->WithLabelValues({group, std::string(prov::ScaleUpResultName(result))}).Inc();
        log::Info(kLogger, "scale-up finished",
                  {{"group", group}, {"result", std::string(prov::ScaleUpResultName(result))}});
      });
  controller.SetProvisioner(std::string(prov::kClassBestEffortAtomicScaleUp), out->provisioner.get());
  return out;
}

}  // namespace berth::controllers::externalgrpc
