// reconcile/placement/filters.cc
#include "reconcile/placement/filters.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace berth::reconcile::placement {
namespace {

bool IsSchedulingEffect(std::string_view effect) {
  return effect == kEffectNoSchedule || effect == kEffectNoExecute;
}

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

bool Contains(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// MatchesLabelRequirement: upstream nodeaffinity semantics (NotIn and DoesNotExist match an
// absent label; Gt/Lt need one integer value and an integer label).
bool MatchesLabelRequirement(const NodeSelectorRequirement& req, const LabelMap& labels) {
  auto it = labels.find(req.key);
  const bool present = it != labels.end();
  switch (req.op) {
    case NodeSelectorOperator::kIn:
      return present && Contains(req.values, it->second);
    case NodeSelectorOperator::kNotIn:
      return !present || !Contains(req.values, it->second);
    case NodeSelectorOperator::kExists:
      return present;
    case NodeSelectorOperator::kDoesNotExist:
      return !present;
    case NodeSelectorOperator::kGt:
    case NodeSelectorOperator::kLt: {
      if (!present || req.values.size() != 1) return false;
      auto want = ParseInt(req.values[0]);
      auto have = ParseInt(it->second);
      if (!want || !have) return false;
      return req.op == NodeSelectorOperator::kGt ? *have > *want : *have < *want;
    }
    case NodeSelectorOperator::kUnknown:
      return false;
  }
  return false;
}

// MatchesFieldRequirement: only metadata.name with In/NotIn is defined upstream.
bool MatchesFieldRequirement(const NodeSelectorRequirement& req, std::string_view node_name) {
  if (req.key != "metadata.name") return false;
  if (req.op == NodeSelectorOperator::kIn) return Contains(req.values, node_name);
  if (req.op == NodeSelectorOperator::kNotIn) return !Contains(req.values, node_name);
  return false;
}

bool MatchesTerm(const NodeSelectorTerm& term, std::string_view node_name,
                 const LabelMap& labels) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& req : term.match_expressions) {
    if (!MatchesLabelRequirement(req, labels)) return false;
  }
  for (const auto& req : term.match_fields) {
    if (!MatchesFieldRequirement(req, node_name)) return false;
  }
  return true;
}

}  // namespace

bool ToleratesTaint(const Toleration& toleration, const Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) return false;
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  if (toleration.op == "Exists") return true;
  if (toleration.op.empty() || toleration.op == "Equal") return toleration.value == taint.value;
  return false;
}

const Taint* FirstUntoleratedTaint(const std::vector<Toleration>& tolerations,
                                   const std::vector<Taint>& taints) {
  for (const Taint& taint : taints) {
    if (!IsSchedulingEffect(taint.effect)) continue;
    bool tolerated = false;
    for (const Toleration& t : tolerations) {
      if (ToleratesTaint(t, taint)) {
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return &taint;
  }
  return nullptr;
}

bool ToleratesAll(const std::vector<Toleration>& tolerations, const std::vector<Taint>& taints) {
  return FirstUntoleratedTaint(tolerations, taints) == nullptr;
}

std::string UntoleratedTaintReason(const Taint& taint) {
  return "node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}";
}

bool PassesNodeUnschedulable(const PodSpecView& pod, const NodeView& node) {
  if (!node.unschedulable) return true;
  static const Taint kUnschedulable{std::string(kTaintUnschedulable), "",
                                    std::string(kEffectNoSchedule)};
  for (const Toleration& t : pod.tolerations) {
    if (ToleratesTaint(t, kUnschedulable)) return true;
  }
  return false;
}

bool PassesNodeName(const PodSpecView& pod, std::string_view node_name) {
  return pod.node_name.empty() || pod.node_name == node_name;
}

bool MatchesNodeSelectorTerms(const std::vector<NodeSelectorTerm>& terms,
                              std::string_view node_name, const LabelMap& node_labels) {
  for (const NodeSelectorTerm& term : terms) {
    if (MatchesTerm(term, node_name, node_labels)) return true;
  }
  return false;
}

bool PassesNodeAffinity(const PodSpecView& pod, std::string_view node_name,
                        const LabelMap& node_labels) {
  for (const auto& [key, value] : pod.node_selector) {
    auto it = node_labels.find(key);
    if (it == node_labels.end() || it->second != value) return false;
  }
  if (pod.required_node_affinity &&
      !MatchesNodeSelectorTerms(*pod.required_node_affinity, node_name, node_labels)) {
    return false;
  }
  return true;
}

std::string InsufficientReason(std::string_view resource) {
  if (resource == kResourcePods) return std::string(kReasonTooManyPods);
  return "Insufficient " + std::string(resource);
}

std::vector<std::string> NonResourceFilterReasons(const PodSpecView& pod, const NodeView& node) {
  if (!PassesNodeUnschedulable(pod, node)) return {std::string(kReasonUnschedulable)};
  if (!PassesNodeName(pod, node.name)) return {std::string(kReasonNodeName)};
  if (const Taint* taint = FirstUntoleratedTaint(pod.tolerations, node.taints)) {
    return {UntoleratedTaintReason(*taint)};
  }
  if (!PassesNodeAffinity(pod, node.name, node.labels)) {
    return {std::string(kReasonNodeAffinity)};
  }
  return {};
}

int64_t CopiesOnEmptyNode(const PodSpecView& pod, const NodeView& node) {
  if (!pod.request_errors.empty() || !NonResourceFilterReasons(pod, node).empty()) return 0;
  auto allocatable = [&](std::string_view resource) -> int64_t {
    auto it = node.allocatable.find(std::string(resource));
    return it == node.allocatable.end() ? 0 : std::max<int64_t>(0, it->second);
  };
  int64_t copies = allocatable("pods") / 1000;
  if (!pod.host_ports.empty()) copies = std::min<int64_t>(copies, 1);
  for (const auto& [resource, amount] : pod.requests) {
    if (amount <= 0 || resource == "pods") continue;
    copies = std::min(copies, allocatable(resource) / amount);  // kUnboundedAmount: 0
  }
  return copies;
}

std::string FitError::Message() const {
  // The pod's own error (a field that does not parse) holds whatever the cluster looks like.
  if (!error.empty()) return error;
  if (num_all_nodes == 0) return "no nodes available to schedule pods";
  std::vector<std::string> parts;
  parts.reserve(reasons.size());
  for (const auto& [reason, count] : reasons) {
    parts.push_back(std::to_string(count) + " " + reason);
  }
  std::sort(parts.begin(), parts.end());
  std::string out = "0/" + std::to_string(num_all_nodes) + " nodes are available:";
  if (!pre_filter_message.empty()) {
    out += " " + pre_filter_message + ".";
  } else if (!parts.empty()) {
    out += " ";
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out += ", ";
      out += parts[i];
    }
    out += ".";
  }
  if (!post_filter_reasons.empty()) {
    out += " ";
    for (size_t i = 0; i < post_filter_reasons.size(); ++i) {
      if (i > 0) out += ", ";
      out += post_filter_reasons[i];
    }
    out += ".";
  }
  return out;
}

}  // namespace berth::reconcile::placement
