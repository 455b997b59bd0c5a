#include "e2e/kubesim/sim/default_scheduler_fit.h"

#include <algorithm>

#include "clientgo-shim/api/quantity.h"
#include "clientgo-shim/base/json.h"

namespace berth::kubesim::scheduling {
namespace {

using rapidjson::Value;

constexpr int64_t kOnePod = 1000;

// AddQuantities adds (or max-merges) a resource list into `out`.
Status AddList(const Value* list, std::string_view field, bool take_max, Resources& out) {
  if (!list) return {};
  if (!list->IsObject()) return MakeError(ErrorCode::kInvalidArgument, std::string(field) + ": not an object");
  for (const auto& m : list->GetObject()) {
    std::string name = m.name.GetString();
    std::string text = m.value.IsString() ? m.value.GetString()
                       : m.value.IsNumber() ? json::Serialize(m.value) : "";
    auto q = shim::Quantity::Parse(text);
    if (!q) return MakeError(ErrorCode::kInvalidArgument, std::string(field) + "." + name + ": " + q.error().message);
    int64_t milli = q->MilliValue();
    int64_t& slot = out[name];
    slot = take_max ? std::max(slot, milli) : slot + milli;
  }
  return {};
}

bool Tolerates(const Value& pod, std::string_view key, std::string_view value, std::string_view effect) {
  const Value* tolerations = json::Find(pod, {"spec", "tolerations"});
  if (!tolerations || !tolerations->IsArray()) return false;
  for (const auto& t : tolerations->GetArray()) {
    std::string_view t_effect = json::GetString(t, {"effect"});
    std::string_view t_key = json::GetString(t, {"key"});
    std::string_view op = json::GetString(t, {"operator"});
    if (!t_effect.empty() && t_effect != effect) continue;
    if (!t_key.empty() && t_key != key) continue;
    if (t_key.empty() && op != "Exists") continue;  // an empty key needs Exists (matches every taint)
    if (op == "Exists" || json::GetString(t, {"value"}) == value) return true;
  }
  return false;
}

double Fraction(const NodeState& n, const Resources& requests, const std::string& resource) {
  auto alloc = n.allocatable.find(resource);
  if (alloc == n.allocatable.end() || alloc->second <= 0) return 0;
  auto req = requests.find(resource);
  auto used = n.requested.find(resource);
  double total = (req == requests.end() ? 0.0 : static_cast<double>(req->second)) +
                 (used == n.requested.end() ? 0.0 : static_cast<double>(used->second));
  return total / static_cast<double>(alloc->second);
}

}  // namespace

Result<Resources> PodRequests(const Value& pod) {
  Resources sum, init_max;
  if (const Value* containers = json::Find(pod, {"spec", "containers"}); containers && containers->IsArray()) {
    for (const auto& c : containers->GetArray()) {
      if (auto s = AddList(json::Find(c, {"resources", "requests"}), "spec.containers[" +
                           std::string(json::GetString(c, {"name"})) + "].resources.requests", false, sum); !s) {
        return std::unexpected(s.error());
      }
    }
  }
  if (const Value* inits = json::Find(pod, {"spec", "initContainers"}); inits && inits->IsArray()) {
    for (const auto& c : inits->GetArray()) {
      Resources one;
      if (auto s = AddList(json::Find(c, {"resources", "requests"}), "spec.initContainers[" +
                           std::string(json::GetString(c, {"name"})) + "].resources.requests", false, one); !s) {
        return std::unexpected(s.error());
      }
      for (const auto& [name, v] : one) init_max[name] = std::max(init_max[name], v);
    }
  }
  for (const auto& [name, v] : init_max) sum[name] = std::max(sum[name], v);
  if (auto s = AddList(json::Find(pod, {"spec", "overhead"}), "spec.overhead", false, sum); !s) {
    return std::unexpected(s.error());
  }
  sum["pods"] = kOnePod;
  return sum;
}

Result<NodeState> ParseNode(const Value& node) {
  NodeState out;
  out.node = &node;
  out.name = std::string(json::GetString(node, {"metadata", "name"}));
  if (auto s = AddList(json::Find(node, {"status", "allocatable"}), "status.allocatable", false, out.allocatable); !s) {
    return std::unexpected(s.error());
  }
  return out;
}

std::vector<std::string> FilterNode(const Value& pod, const Resources& requests, const NodeState& n) {
  const Value& node = *n.node;
  // NodeUnschedulable.
  if (const Value* u = json::Find(node, {"spec", "unschedulable"}); u && u->IsBool() && u->GetBool() &&
      !Tolerates(pod, "node.kubernetes.io/unschedulable", "", "NoSchedule")) {
    return {"node(s) were unschedulable"};
  }
  // TaintToleration: the first untolerated NoSchedule/NoExecute taint.
  if (const Value* taints = json::Find(node, {"spec", "taints"}); taints && taints->IsArray()) {
    for (const auto& t : taints->GetArray()) {
      std::string_view effect = json::GetString(t, {"effect"});
      if (effect != "NoSchedule" && effect != "NoExecute") continue;
      std::string_view key = json::GetString(t, {"key"}), value = json::GetString(t, {"value"});
      if (!Tolerates(pod, key, value, effect)) {
        return {"node(s) had untolerated taint {" + std::string(key) + ": " + std::string(value) + "}"};
      }
    }
  }
  // NodeAffinity, the nodeSelector part.
  if (const Value* selector = json::Find(pod, {"spec", "nodeSelector"}); selector && selector->IsObject()) {
    const Value* labels = json::Find(node, {"metadata", "labels"});
    for (const auto& m : selector->GetObject()) {
      const Value* have = labels && labels->IsObject() ? json::Member(*labels, m.name.GetString()) : nullptr;
      if (!have || !have->IsString() || !m.value.IsString() ||
          std::string_view(have->GetString()) != std::string_view(m.value.GetString())) {
        return {"node(s) didn't match Pod's node affinity/selector"};
      }
    }
  }
  // NodeResourcesFit: every short resource, "Too many pods" first as upstream lists it.
  std::vector<std::string> reasons;
  auto free_of = [&](const std::string& name) {
    auto a = n.allocatable.find(name);
    auto r = n.requested.find(name);
    return (a == n.allocatable.end() ? 0 : a->second) - (r == n.requested.end() ? 0 : r->second);
  };
  if (free_of("pods") < kOnePod) reasons.push_back("Too many pods");
  for (const std::string name : {"cpu", "memory", "ephemeral-storage"}) {
    auto want = requests.find(name);
    if (want != requests.end() && want->second > 0 && free_of(name) < want->second) reasons.push_back("Insufficient " + name);
  }
  for (const auto& [name, want] : requests) {
    if (name == "pods" || name == "cpu" || name == "memory" || name == "ephemeral-storage" || want <= 0) continue;
    if (free_of(name) < want) reasons.push_back("Insufficient " + name);
  }
  return reasons;
}

Decision Schedule(const Value& pod, const Resources& requests, const std::vector<NodeState>& nodes) {
  std::map<std::string, int> reasons;
  const NodeState* best = nullptr;
  double best_score = 0;
  for (const auto& n : nodes) {
    auto failed = FilterNode(pod, requests, n);
    if (!failed.empty()) {
      for (const auto& r : failed) ++reasons[r];
      continue;
    }
    double score = (Fraction(n, requests, "cpu") + Fraction(n, requests, "memory")) / 2;
    if (!best || score < best_score || (score == best_score && n.name < best->name)) {
      best = &n;
      best_score = score;
    }
  }
  if (best) return Decision{best->name, ""};
  return Decision{std::nullopt, FitErrorMessage(nodes.size(), reasons)};
}

std::string FitErrorMessage(size_t node_count, const std::map<std::string, int>& reason_counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reason_counts) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  // kube-scheduler answers ErrNoNodesAvailable before running any filter on an empty cluster.
  if (node_count == 0) return "no nodes available to schedule pods";
  std::string out = "0/" + std::to_string(node_count) + " nodes are available: ";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + ".";
}

}  // namespace berth::kubesim::scheduling
