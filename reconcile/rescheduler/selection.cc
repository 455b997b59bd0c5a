#include "reconcile/rescheduler/selection.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "reconcile/placement/filters.h"
#include "reconcile/placement/prefer_avoid_pods.h"

namespace berth::reconcile::rescheduler {
namespace {

using placement::NodeView;
constexpr int64_t kOnePod = 1000;  // "pods" in milli-units

int64_t At(const ResourceAmounts& a, const std::string& name) {
  auto it = a.find(name);
  return it == a.end() ? 0 : it->second;
}

std::string Pct(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", p);
  return buf;
}

// PodRequests: what the pod adds to a node, with "pods" = 1.
ResourceAmounts PodRequests(const PodInfo& pod) {
  ResourceAmounts r = pod.spec.requests;
  r[std::string(placement::kResourcePods)] = kOnePod;
  return r;
}

// NodeState: one node's running accounting during a pass.
struct NodeState {
  const NodeView* view = nullptr;
  ResourceAmounts requested;
  double PercentOf(const std::string& r) const { return Percent(At(requested, r), At(view->allocatable, r)); }
  double Sum(const ResourcePercents& rs) const {
    double s = 0;
    for (const auto& [r, _] : rs) s += PercentOf(r);
    return s;
  }
  bool Under(const ResourcePercents& thresholds) const {
    if (view->unschedulable) return false;
    for (const auto& [r, p] : thresholds) {
      if (PercentOf(r) > p) return false;
    }
    return true;
  }
  // OverResource: the first resource above its target, or "".
  std::string OverResource(const ResourcePercents& targets) const {
    for (const auto& [r, p] : targets) {
      if (PercentOf(r) > p) return r;
    }
    return "";
  }
  // FitsFree: the pod's requests fit in allocatable - requested.
  bool FitsFree(const ResourceAmounts& add) const {
    for (const auto& [r, amount] : add) {
      if (amount > 0 && At(requested, r) + amount > At(view->allocatable, r)) return false;
    }
    return true;
  }
  bool StaysWithin(const ResourceAmounts& add, const ResourcePercents& targets) const {
    for (const auto& [r, p] : targets) {
      if (Percent(At(requested, r) + At(add, r), At(view->allocatable, r)) > p) return false;
    }
    return true;
  }
  void Add(const ResourceAmounts& amounts, int sign) {
    for (const auto& [r, amount] : amounts) requested[r] += sign * amount;
  }
};

// PassesFilters: kube-scheduler's non-resource filters for the pod on another node (its own
// nodeName cleared: it is bound, not pinned) and PreferAvoidPods.
bool PassesFilters(const PodInfo& pod, const NodeView& node, Time now) {
  placement::PodSpecView unbound = pod.spec;
  unbound.node_name.clear();
  return placement::NonResourceFilterReasons(unbound, node).empty() && !placement::AvoidsPod(node, unbound, now);
}

// Pass: the state one planning pass shares between the strategies.
class Pass {
 public:
  Pass(const ReschedulerInput& input, const ReschedulerConfig& config, const PlanOptions& options, Time now)
      : input_(input), config_(config), options_(options), now_(now) {
    for (const auto& n : input.nodes) nodes_[n.name] = NodeState{&n, {}};
    for (const auto& j : input.jobs) {
      if (j.active) busy_.insert(j.pod_namespace + "/" + j.pod_name);
      if (j.active && j.by_rescheduler) ++active_jobs_;
      if (now - j.created < config.cooldown) recent_.insert(j.pod_namespace + "/" + j.pod_name);
    }
    for (const auto& p : input.pods) {
      auto it = nodes_.find(p.spec.node_name);
      if (it == nodes_.end() || p.facts.deleting || p.spec.terminating || busy_.contains(Key(p))) continue;
      it->second.Add(PodRequests(p), +1);
    }
    for (const auto& [node, amounts] : input.reserved) {
      if (auto it = nodes_.find(node); it != nodes_.end()) it->second.Add(amounts, +1);
    }
  }

  void LowNodeUtilization() {
    const auto& cfg = config_.low_node_utilization;
    std::vector<NodeState*> under, over;
    for (auto& [name, n] : nodes_) {
      if (n.Under(cfg.thresholds)) {
        under.push_back(&n);
      } else if (!n.OverResource(cfg.target_thresholds).empty()) {
        over.push_back(&n);
      }
    }
    if (under.empty()) return Note("LowNodeUtilization: no node is under its thresholds");
    if (over.empty()) return Note("LowNodeUtilization: no node is over its targetThresholds");
    std::stable_sort(over.begin(), over.end(), [&](const NodeState* a, const NodeState* b) {
      return a->Sum(cfg.target_thresholds) > b->Sum(cfg.target_thresholds);
    });
    for (NodeState* source : over) {
      std::vector<const PodInfo*> pods = Movable(source->view->name);
      std::stable_sort(pods.begin(), pods.end(), [](const PodInfo* a, const PodInfo* b) {
        int64_t pa = a->facts.priority.value_or(0), pb = b->facts.priority.value_or(0);
        if (pa != pb) return pa < pb;
        return std::tie(a->spec.namespace_name, a->spec.name) < std::tie(b->spec.namespace_name, b->spec.name);
      });
      for (const PodInfo* pod : pods) {
        const std::string hot = source->OverResource(cfg.target_thresholds);
        if (hot.empty()) break;
        const ResourceAmounts add = PodRequests(*pod);
        double improvement = 0;
        std::string freed;
        for (const auto& [r, _] : cfg.target_thresholds) {
          double share = Percent(At(add, r), At(source->view->allocatable, r));
          if (share > improvement) {
            improvement = share;
            freed = r;
          }
        }
        if (improvement < config_.min_improvement) {
          Note("LowNodeUtilization: " + Key(*pod) + " frees only " + Pct(improvement) + " of " + source->view->name +
               " (minImprovement " + Pct(config_.min_improvement) + ")");
          continue;
        }
        NodeState* target = nullptr;
        for (NodeState* u : under) {
          if (!u->FitsFree(add) || !u->StaysWithin(add, cfg.target_thresholds)) continue;
          if (!PassesFilters(*pod, *u->view, now_)) continue;
          if (!target || u->Sum(cfg.target_thresholds) < target->Sum(cfg.target_thresholds)) target = u;
        }
        if (!target) {
          Note("LowNodeUtilization: no under-utilised node takes " + Key(*pod));
          continue;
        }
        if (Gate g = CheckLimits(*pod); g != Gate::kTake) {
          if (g == Gate::kStop) return;
          continue;
        }
        Move m;
        m.strategy = std::string(kStrategyLowNodeUtilization);
        m.from_node = source->view->name;
        m.to_nodes = {target->view->name};
        m.improvement = improvement;
        m.reason = "node " + source->view->name + " is over its targetThresholds (" + hot + " " +
                   Pct(source->PercentOf(hot)) + " > " + Pct(cfg.target_thresholds.at(hot)) + "); moving " +
                   Key(*pod) + " to under-utilised " + target->view->name + " frees " + Pct(improvement) + " of " +
                   freed;
        Take(*pod, std::move(m));
        source->Add(add, -1);
        target->Add(add, +1);
      }
    }
  }

  void PreferredNodeAffinity() {
    for (const PodInfo& pod : input_.pods) {
      if (pod.spec.preferred_node_affinity.empty()) continue;
      auto self = nodes_.find(pod.spec.node_name);
      if (self == nodes_.end() || !Eligible(pod)) continue;
      int64_t total = 0;
      for (const auto& t : pod.spec.preferred_node_affinity) total += std::max(0, t.weight);
      if (total <= 0) continue;
      const int64_t current = Weight(pod, *self->second.view);
      int64_t best = current;
      std::vector<NodeState*> targets;
      const ResourceAmounts add = PodRequests(pod);
      for (auto& [name, n] : nodes_) {
        if (name == pod.spec.node_name || !n.FitsFree(add) || !PassesFilters(pod, *n.view, now_)) continue;
        const int64_t w = Weight(pod, *n.view);
        if (w <= current || w < best) continue;
        if (w > best) targets.clear();
        best = w;
        targets.push_back(&n);
      }
      if (targets.empty()) continue;
      const double improvement = 100.0 * static_cast<double>(best - current) / static_cast<double>(total);
      if (improvement < config_.min_improvement) {
        Note("PreferredNodeAffinity: " + Key(pod) + " would gain only " + Pct(improvement) + " of its weight");
        continue;
      }
      if (Gate g = CheckLimits(pod); g != Gate::kTake) {
        if (g == Gate::kStop) return;
        continue;
      }
      Move m;
      m.strategy = std::string(kStrategyPreferredNodeAffinity);
      m.from_node = pod.spec.node_name;
      for (NodeState* t : targets) m.to_nodes.push_back(t->view->name);
      m.improvement = improvement;
      m.reason = "node " + pod.spec.node_name + " satisfies preferred node affinity weight " + std::to_string(current) +
                 " of " + std::to_string(total) + " for " + Key(pod) + "; " + m.to_nodes.front() +
                 (targets.size() > 1 ? " and " + std::to_string(targets.size() - 1) + " more" : "") + " satisfy " +
                 std::to_string(best);
      Take(pod, std::move(m));
      self->second.Add(add, -1);
      targets.front()->Add(add, +1);
    }
  }

  Plan Finish() { return std::move(plan_); }
  bool stopped() const { return stopped_; }

 private:
  static std::string Key(const PodInfo& p) { return p.spec.namespace_name + "/" + p.spec.name; }

  static int64_t Weight(const PodInfo& pod, const NodeView& node) {
    int64_t w = 0;
    for (const auto& t : pod.spec.preferred_node_affinity) {
      if (placement::MatchesNodeSelectorTerms({t.preference}, node.name, node.labels)) w += t.weight;
    }
    return w;
  }

  void Note(std::string text) { plan_.notes.push_back(std::move(text)); }

  bool Eligible(const PodInfo& pod) const {
    const std::string key = Key(pod);
    if (pod.facts.phase != "Running" || pod.facts.deleting || pod.spec.terminating) return false;
    if (moved_.contains(key) || busy_.contains(key) || recent_.contains(key)) return false;
    if (std::find(options_.scheduler_names.begin(), options_.scheduler_names.end(), pod.facts.scheduler_name) ==
        options_.scheduler_names.end()) {
      return false;
    }
    return !migration::NotEvictableReason(pod.facts, options_.evictability).has_value();
  }

  std::vector<const PodInfo*> Movable(const std::string& node) const {
    std::vector<const PodInfo*> out;
    for (const auto& p : input_.pods) {
      if (p.spec.node_name == node && Eligible(p)) out.push_back(&p);
    }
    return out;
  }

  enum class Gate { kTake, kSkip, kStop };
  // CheckLimits: kStop ends the pass (maxPodsPerCycle, maxActiveJobs); kSkip leaves this pod
  // (maxPodsPerNode, maxPodsPerNamespace).
  Gate CheckLimits(const PodInfo& pod) {
    const Limits& l = config_.limits;
    const int planned = static_cast<int>(plan_.moves.size());
    if (planned >= l.max_pods_per_cycle) {
      Note("limit maxPodsPerCycle (" + std::to_string(l.max_pods_per_cycle) + ") reached");
      stopped_ = true;
    } else if (l.max_active_jobs > 0 && active_jobs_ + planned >= l.max_active_jobs) {
      Note("limit maxActiveJobs (" + std::to_string(l.max_active_jobs) + ") reached");
      stopped_ = true;
    }
    if (stopped_) return Gate::kStop;
    if (pod.budgets.size() > 1) {
      Note(Key(pod) + " is selected by " + std::to_string(pod.budgets.size()) +
           " PodDisruptionBudgets; the Eviction API refuses such a pod");
      return Gate::kSkip;
    }
    if (pod.budgets.size() == 1 && Allowed(pod.budgets.front()) <= 0) {
      Note(Key(pod) + ": PodDisruptionBudget " + pod.budgets.front() + " allows no disruption now");
      return Gate::kSkip;
    }
    if (l.max_pods_per_node > 0 && per_node_[pod.spec.node_name] >= l.max_pods_per_node) {
      Note("limit maxPodsPerNode (" + std::to_string(l.max_pods_per_node) + ") reached on " + pod.spec.node_name);
      return Gate::kSkip;
    }
    if (l.max_pods_per_namespace > 0 && per_namespace_[pod.spec.namespace_name] >= l.max_pods_per_namespace) {
      Note("limit maxPodsPerNamespace (" + std::to_string(l.max_pods_per_namespace) + ") reached in " +
           pod.spec.namespace_name);
      return Gate::kSkip;
    }
    return Gate::kTake;
  }

  // Allowed: the budget's disruptionsAllowed less the moves this pass already planned under it (a
  // budget not in the input, e.g. not yet observed by its controller, allows none).
  int64_t Allowed(const std::string& budget) const {
    auto it = input_.disruptions_allowed.find(budget);
    const int64_t allowed = it == input_.disruptions_allowed.end() ? 0 : it->second;
    auto spent = spent_.find(budget);
    return allowed - (spent == spent_.end() ? 0 : spent->second);
  }

  void Take(const PodInfo& pod, Move m) {
    m.pod_namespace = pod.spec.namespace_name;
    m.pod_name = pod.spec.name;
    m.pod_uid = pod.spec.uid;
    moved_.insert(Key(pod));
    for (const std::string& budget : pod.budgets) spent_[budget]++;
    ++per_node_[pod.spec.node_name];
    ++per_namespace_[pod.spec.namespace_name];
    plan_.moves.push_back(std::move(m));
  }

  const ReschedulerInput& input_;
  const ReschedulerConfig& config_;
  const PlanOptions& options_;
  Time now_;
  std::map<std::string, NodeState> nodes_;
  std::set<std::string> busy_, recent_, moved_;
  std::map<std::string, int> per_node_, per_namespace_, spent_;
  int active_jobs_ = 0;
  bool stopped_ = false;
  Plan plan_;
};

}  // namespace

double Percent(int64_t requested, int64_t allocatable) {
  if (allocatable <= 0) return requested > 0 ? 100.0 : 0.0;
  return 100.0 * static_cast<double>(requested) / static_cast<double>(allocatable);
}

ResourceAmounts NodeRequested(const std::string& node, const std::vector<PodInfo>& pods) {
  ResourceAmounts out;
  for (const auto& p : pods) {
    if (p.spec.node_name != node) continue;
    for (const auto& [r, amount] : PodRequests(p)) out[r] += amount;
  }
  return out;
}

Plan PlanRescheduling(const ReschedulerInput& input, const ReschedulerConfig& config, const PlanOptions& options,
                      Time now) {
  Pass pass(input, config, options, now);
  if (config.low_node_utilization.enabled) pass.LowNodeUtilization();
  if (config.preferred_node_affinity.enabled && !pass.stopped()) pass.PreferredNodeAffinity();
  return pass.Finish();
}

}  // namespace berth::reconcile::rescheduler
