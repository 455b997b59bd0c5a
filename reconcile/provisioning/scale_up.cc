// reconcile/provisioning/scale_up.cc
#include "reconcile/provisioning/scale_up.h"

#include <algorithm>
#include <limits>

#include "reconcile/placement/pod_constraints.h"
#include "reconcile/placement/snapshot.h"

namespace berth::reconcile::provisioning {
namespace {

// NodesFor: how many template nodes of `group` hold every unfit pod, or why they cannot.
std::expected<int32_t, std::string> NodesFor(const std::vector<UnfitPodSet>& unfit, const NodeGroupInfo& group) {
  if (!group.template_node) {
    return std::unexpected("no template node" + (group.template_error.empty() ? "" : " (" + group.template_error + ")"));
  }
  const int32_t headroom = std::max(0, group.max_size - group.target_size);
  placement::ClusterSnapshot snapshot(placement::SchedulerOptions{placement::ScoringStrategy::kMostAllocated});
  int32_t nodes = 0;
  auto add_node = [&] {
    placement::NodeView node = *group.template_node;
    node.name = group.id + "-template-" + std::to_string(nodes++);
    node.unschedulable = false;  // a new node registers schedulable
    // Each new node is its own host (Cluster Autoscaler sanitizes a template copy's hostname
    // label to the new node's name): pods kept apart by hostname anti-affinity or spreading
    // land on separate planned nodes instead of all facing the copied Node's one domain.
    if (auto hostname = node.labels.find(placement::kLabelHostname); hostname != node.labels.end()) {
      hostname->second = node.name;
    }
    snapshot.UpsertNode(node);
  };
  for (const UnfitPodSet& set : unfit) {
    placement::PodSpecView pod = set.pod;
    pod.node_name.clear();
    for (int64_t j = 0; j < set.count; ++j) {
      pod.name = "scale-up-" + std::to_string(set.index) + "-" + std::to_string(j);
      pod.uid = pod.name;
      placement::PodDecision decision = snapshot.SchedulePod(pod);
      if (!decision) {
        if (nodes >= headroom) {
          return std::unexpected("needs more than its " + std::to_string(headroom) + " node(s) of headroom (maxSize " +
                                 std::to_string(group.max_size) + ", targetSize " +
                                 std::to_string(group.target_size) + ")");
        }
        add_node();
        decision = snapshot.SchedulePod(pod);
        if (!decision) {
          return std::unexpected("podSet " + std::to_string(set.index) + " does not fit its template node: " +
                                 decision.error().Message());
        }
      }
      if (auto assumed = snapshot.AssumePod(pod, *decision); !assumed) {
        return std::unexpected("podSet " + std::to_string(set.index) + ": " + assumed.error().message);
      }
    }
  }
  return nodes;
}

}  // namespace

std::expected<ScaleUpPlan, std::string> PlanScaleUp(const std::vector<UnfitPodSet>& unfit,
                                                    const std::vector<NodeGroupInfo>& groups) {
  std::optional<ScaleUpPlan> best;
  std::string why_not;
  std::vector<const NodeGroupInfo*> order;
  for (const NodeGroupInfo& g : groups) order.push_back(&g);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
  for (const NodeGroupInfo* group : order) {
    auto nodes = NodesFor(unfit, *group);
    if (!nodes) {
      why_not += (why_not.empty() ? "" : "; ") + std::string("node group \"") + group->id + "\": " + nodes.error();
      continue;
    }
    if (*nodes == 0) continue;  // nothing to add (nothing was unfit)
    if (!best || *nodes < best->nodes) best = ScaleUpPlan{group->id, *nodes};
  }
  if (best) return *best;
  if (groups.empty()) return std::unexpected("the cloud provider has no node groups");
  if (why_not.empty()) return std::unexpected("no pods need new nodes");
  return std::unexpected(why_not);
}

std::string_view ScaleUpResultName(ScaleUpResult result) {
  switch (result) {
    case ScaleUpResult::kSuccess: return "success";
    case ScaleUpResult::kRefused: return "refused";
    case ScaleUpResult::kPartial: return "partial";
    case ScaleUpResult::kTimeout: return "timeout";
    case ScaleUpResult::kNotFit: return "not_fit";
  }
  return "unknown";
}

AtomicScaleUpProvisioner::AtomicScaleUpProvisioner(NodeGroupPort& port, AtomicScaleUpOptions options,
                                                   ResultObserver observer)
    : port_(port), options_(options), observer_(std::move(observer)) {}

const AtomicScaleUpProvisioner::Record* AtomicScaleUpProvisioner::Find(const std::string& uid) const {
  auto it = records_.find(uid);
  return it == records_.end() ? nullptr : &it->second;
}

void AtomicScaleUpProvisioner::Observe(const std::string& group, ScaleUpResult result) {
  if (observer_) observer_(group, result);
}

ScaleUpOutcome AtomicScaleUpProvisioner::Provision(const ProvisioningRequestView& request,
                                                   const std::vector<UnfitPodSet>& unfit,
                                                   const placement::ClusterSnapshot& snapshot, Time now) {
  const std::string adopt_error = Adopt(request);
  if (auto it = records_.find(request.uid); it != records_.end()) {
    if (it->second.give_back_pending) {
      ScaleUpOutcome out;
      if (auto given = GiveBack(it->second); !given) {
        out.message = "giving back an earlier scale-up failed (retried): " + given.error();
        return out;
      }
      if (it->second.watch_until && now < *it->second.watch_until) {
        out.message = "an earlier request to node group \"" + it->second.group +
                      "\" timed out; what it may still add is given back until the registration deadline";
        return out;
      }
    } else if (!it->second.settled) {
      return Wait(request.uid, snapshot, now);
    }
    records_.erase(it);  // given back, or settled and then lost its fit: start over
  }
  ScaleUpOutcome out = Start(request, unfit, now);
  if (!adopt_error.empty()) out.message = adopt_error + " (ignored); " + out.message;
  return out;
}

std::string AtomicScaleUpProvisioner::Adopt(const ProvisioningRequestView& request) {
  if (!seen_.insert(request.uid).second || records_.contains(request.uid) || request.scale_up_state.empty()) {
    return {};
  }
  auto record = DecodeScaleUpRecord(request.scale_up_state);
  if (!record) return record.error();
  records_[request.uid] = std::move(*record);
  return {};
}

std::string AtomicScaleUpProvisioner::PersistedState(const std::string& uid) const {
  auto it = records_.find(uid);
  return it == records_.end() ? std::string() : EncodeScaleUpRecord(it->second);
}

ScaleUpOutcome AtomicScaleUpProvisioner::Start(const ProvisioningRequestView& request,
                                               const std::vector<UnfitPodSet>& unfit, Time now) {
  ScaleUpOutcome out;  // kNotFound unless the increase is granted in full
  auto groups = port_.NodeGroups();
  if (!groups) {
    out.message = "cloud provider: " + groups.error();
    return out;
  }
  // A group another request is scaling is busy: what registers there belongs to that request.
  std::vector<NodeGroupInfo> free_groups;
  std::string busy;
  for (NodeGroupInfo& g : *groups) {
    const bool in_use = std::any_of(records_.begin(), records_.end(), [&](const auto& r) {
      return r.second.group == g.id && !r.second.settled;
    });
    if (in_use) {
      busy += (busy.empty() ? "" : ", ") + std::string("\"") + g.id + "\"";
    } else {
      free_groups.push_back(std::move(g));
    }
  }
  auto plan = PlanScaleUp(unfit, free_groups);
  if (!plan && !busy.empty()) plan = std::unexpected(plan.error() + "; busy with another request's scale-up: " + busy);
  if (!plan) {
    out.message = plan.error();
    return out;
  }
  const NodeGroupInfo& group = *std::find_if(free_groups.begin(), free_groups.end(),
                                             [&](const NodeGroupInfo& g) { return g.id == plan->group; });
  Record record{plan->group, plan->nodes, group.target_size, {}, now + options_.registration_timeout};
  auto before = port_.RegisteredNodes(plan->group);
  if (!before) {
    out.message = "cloud provider: " + before.error();
    return out;
  }
  record.nodes_before.insert(before->begin(), before->end());
  const std::string asked = std::to_string(plan->nodes) + " node(s) of node group \"" + plan->group + "\"";
  if (auto increased = port_.IncreaseSize(plan->group, plan->nodes); !increased) {
    Observe(plan->group, ScaleUpResult::kRefused);
    out.message = "asked for " + asked + ": refused: " + increased.error().message;
    if (increased.error().maybe_applied) {
      // It may still take effect: watch the group until the registration deadline.
      record.give_back_pending = true;
      record.watch_until = record.deadline;
    }
    // A refusal may still have moved the target: give back whatever it did.
    if (auto given = GiveBack(record); !given) {
      out.message += "; giving back failed (retried): " + given.error();
      record.give_back_pending = true;
      records_[request.uid] = std::move(record);
    } else {
      if (!given->empty()) out.message += "; " + *given;
      if (record.watch_until) records_[request.uid] = std::move(record);
    }
    return out;
  }
  auto target = port_.TargetSize(plan->group);
  if (target && *target - record.target_before < plan->nodes) {
    Observe(plan->group, ScaleUpResult::kPartial);
    out.message = "asked for " + asked + ": the target size grew by " +
                  std::to_string(*target - record.target_before) + " only (all or nothing)";
    if (auto given = GiveBack(record); !given) {
      out.message += "; giving back failed (retried): " + given.error();
      record.give_back_pending = true;
      records_[request.uid] = std::move(record);
    } else if (!given->empty()) {
      out.message += "; " + *given;
    }
    return out;
  }
  out.kind = ScaleUpOutcome::Kind::kInProgress;
  out.message = "asked for " + asked;
  out.requeue_after = options_.registration_timeout;
  records_[request.uid] = std::move(record);
  return out;
}

ScaleUpOutcome AtomicScaleUpProvisioner::Wait(const std::string& uid, const placement::ClusterSnapshot& snapshot,
                                              Time now) {
  Record& record = records_.at(uid);
  ScaleUpOutcome out;
  auto registered = port_.RegisteredNodes(record.group);
  int64_t arrived = 0;
  if (registered) {
    // A node counts once the pass's snapshot has it: one the cloud already reports but the
    // informer has not delivered yet was not tried, so the pods not fitting proves nothing.
    for (const RegisteredNode& n : *registered) {
      arrived += !record.nodes_before.contains(n) && snapshot.Usage(n.name).has_value() ? 1 : 0;
    }
  }
  const bool all_arrived = registered && arrived >= record.delta;
  if (!all_arrived && now < record.deadline) {
    out.kind = ScaleUpOutcome::Kind::kInProgress;
    const Duration left = std::chrono::duration_cast<Duration>(record.deadline - now);
    out.requeue_after = registered ? left : std::min(left, options_.retry_after_error);
    return out;
  }
  // Deadline passed with nodes missing, or every node arrived and the pods still do not fit on
  // them (the template lied): all or nothing, so give it all back.
  const ScaleUpResult result = all_arrived ? ScaleUpResult::kNotFit : ScaleUpResult::kTimeout;
  out.message = all_arrived
                    ? "all " + std::to_string(record.delta) + " new node(s) of node group \"" + record.group +
                          "\" registered but the pods do not fit on them"
                    : "only " + std::to_string(arrived) + " of " + std::to_string(record.delta) +
                          " new node(s) of node group \"" + record.group + "\" registered in time";
  if (auto given = GiveBack(record); !given) {
    out.message += "; giving back failed (retried): " + given.error();
    record.give_back_pending = true;  // the record stays: given back after the next pass
    Observe(record.group, result);
    return out;
  } else if (!given->empty()) {
    out.message += "; " + *given;
  }
  if (record.delta > 0) Observe(record.group, result);
  records_.erase(uid);
  return out;
}

bool AtomicScaleUpProvisioner::Settled(const ProvisioningRequestView& request, Time now) {
  Adopt(request);  // an annotation that does not parse: no record, so CapacityIsFound
  auto it = records_.find(request.uid);
  if (it == records_.end()) return false;
  if (!it->second.settled) Observe(it->second.group, ScaleUpResult::kSuccess);
  it->second.settled = true;
  return true;
}

void AtomicScaleUpProvisioner::Retain(const std::set<std::string>& pending_uids, Time now) {
  std::erase_if(seen_, [&](const std::string& uid) { return !pending_uids.contains(uid) && !records_.contains(uid); });
  for (auto it = records_.begin(); it != records_.end();) {
    Record& r = it->second;
    if (r.settled) {
      // Provisioned (or gone): the nodes are the request's now.
      it = pending_uids.contains(it->first) ? std::next(it) : records_.erase(it);
      continue;
    }
    if (pending_uids.contains(it->first) && !r.give_back_pending) {
      ++it;  // still waiting for its nodes
      continue;
    }
    const bool given = GiveBack(r).has_value();
    const bool watching = r.watch_until && now < *r.watch_until;
    if (given && !watching) {
      it = records_.erase(it);
    } else {
      r.give_back_pending = true;  // failed, or still watching: again after the next pass
      ++it;
    }
  }
}

std::optional<int64_t> AtomicScaleUpProvisioner::MostPodsAdded(const placement::PodSpecView& pod) {
  auto groups = port_.NodeGroups();
  if (!groups) return std::nullopt;
  int64_t total = 0;
  for (const NodeGroupInfo& g : *groups) {
    if (!g.template_node || g.max_size <= 0) continue;
    placement::NodeView node = *g.template_node;
    node.unschedulable = false;  // a new node registers schedulable
    const int64_t per_node = placement::CopiesOnEmptyNode(pod, node);
    const int64_t room = std::numeric_limits<int64_t>::max() - total;  // saturate: a bound only
    total += per_node > room / g.max_size ? room : per_node * g.max_size;
  }
  return total;
}

std::expected<std::string, std::string> AtomicScaleUpProvisioner::GiveBack(const Record& record) {
  auto registered = port_.RegisteredNodes(record.group);
  if (!registered) return std::unexpected(registered.error());
  std::vector<RegisteredNode> added;
  for (const RegisteredNode& n : *registered) {
    if (!record.nodes_before.contains(n)) added.push_back(n);
  }
  std::string done;
  if (!added.empty()) {
    if (auto deleted = port_.DeleteNodes(record.group, added); !deleted) {
      return std::unexpected("deleting " + std::to_string(added.size()) + " registered node(s): " + deleted.error());
    }
    done = "deleted " + std::to_string(added.size()) + " registered node(s)";
  }
  auto target = port_.TargetSize(record.group);
  if (!target) return std::unexpected(target.error());
  const int32_t excess = std::min(*target - record.target_before, record.delta - static_cast<int32_t>(added.size()));
  if (excess > 0) {
    if (auto decreased = port_.DecreaseTargetSize(record.group, -excess); !decreased) {
      return std::unexpected("decreasing the target size by " + std::to_string(excess) + ": " + decreased.error());
    }
    done += (done.empty() ? "" : ", ") + std::string("lowered the target size by ") + std::to_string(excess);
  }
  if (done.empty()) return std::string();
  return "gave back node group \"" + record.group + "\": " + done;
}

}  // namespace berth::reconcile::provisioning
