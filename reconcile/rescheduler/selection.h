// reconcile/rescheduler/selection.h
//
// The rescheduler's decisions (the seed's two first objectives), pure: a snapshot of nodes, bound
// pods and PodMigrationJobs in, the pods to move out. The controller turns each Move into a
// ReservationFirst PodMigrationJob whose reservation may only land on the move's target nodes,
// so the replacement goes where the decision meant (the descheduler only evicts and hopes).
//
// LowNodeUtilization (kubernetes-sigs/descheduler's definition, usage = requests): a node is
// under-utilised when it is schedulable and every resource of `thresholds` is at or below its
// percent; over-utilised when any resource is above its `targetThresholds` percent. Nothing
// moves without both. Over nodes are visited from the most used (sum of percents); their pods
// from the lowest priority (absent = 0), then by name. A pod moves to the least used under node
// that passes its filters (reconcile/placement: unschedulable, taints, node affinity/selector,
// PreferAvoidPods) and stays within targetThresholds and allocatable with it; the accounting of
// both nodes is updated and the source stops once no resource is above target.
// Preferred node affinity: a pod whose node satisfies a smaller sum of its
// preferredDuringScheduling weights than another node that fits (filters and free allocatable)
// moves to the nodes with the highest sum.
// Usage counts pods being deleted and pods with an active job as gone from their node, and active
// reservations as used, so a pass does not plan again what running jobs already move.
// Both only when the improvement reaches minImprovement percentage points (LNU: the largest
// share of a thresholded resource of the source node the pod frees; affinity: the weight gained
// as a percent of the pod's total preferred weight), and only for pods that: run, are not being
// deleted, pass the migration code's evictability rules (reconcile/migration/evictability), are
// scheduled by berth (ReservationFirst needs it), have no active job and had no job created
// within the cooldown. Limits: per pass, per source node, per namespace, and the number of the
// rescheduler's jobs still running. And the pod's PodDisruptionBudget (the seed: a move must be
// "allowed by the pod's disruption budget"): a pod under a budget that allows no disruption now,
// or under several budgets (the Eviction API refuses those), is not moved; each move of a pass
// spends one of its budget's disruptionsAllowed, so one pass never plans more than it allows.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reconcile/migration/evictability.h"
#include "reconcile/placement/types.h"
#include "reconcile/rescheduler/config.h"

namespace berth::reconcile::rescheduler {

inline constexpr std::string_view kStrategyLowNodeUtilization = "LowNodeUtilization";
inline constexpr std::string_view kStrategyPreferredNodeAffinity = "PreferredNodeAffinity";

// PodInfo: one bound pod that has not terminated. spec.node_name is its node.
struct PodInfo {
  placement::PodSpecView spec;
  migration::PodFacts facts;
  std::vector<std::string> budgets;  // "namespace/name" of the PodDisruptionBudgets selecting it
};

// JobInfo: one PodMigrationJob as the cooldown and the limits see it.
struct JobInfo {
  std::string pod_namespace;
  std::string pod_name;
  Time created;
  bool active = false;         // phase Pending or Running
  bool by_rescheduler = false; // created by this controller (koordinator.sh/job-created-by)
};

struct ReschedulerInput {
  std::vector<placement::NodeView> nodes;
  std::vector<PodInfo> pods;
  std::vector<JobInfo> jobs;
  // Capacity active Reservations hold per node (their allocatable; a migration's reservation
  // counts on its target before the replacement binds).
  std::map<std::string, ResourceAmounts, std::less<>> reserved;
  // status.disruptionsAllowed of each PodDisruptionBudget, by "namespace/name".
  std::map<std::string, int64_t, std::less<>> disruptions_allowed;
};

struct PlanOptions {
  migration::EvictabilityOptions evictability;
  std::vector<std::string> scheduler_names = {"koord-scheduler"};
};

struct Move {
  std::string strategy;  // kStrategy*
  std::string pod_namespace;
  std::string pod_name;
  std::string pod_uid;
  std::string from_node;
  std::vector<std::string> to_nodes;  // the reservation may land only on these
  double improvement = 0;             // percentage points
  std::string reason;                 // one sentence for the job's annotation, Events and logs
};

struct Plan {
  std::vector<Move> moves;
  // Why nothing (more) was done, for the debug log: "no under-utilised node", "limit ...".
  std::vector<std::string> notes;
};

// PlanRescheduling runs the enabled strategies (LowNodeUtilization first), sharing the limits
// and never moving one pod twice.
Plan PlanRescheduling(const ReschedulerInput& input, const ReschedulerConfig& config, const PlanOptions& options,
                      Time now);

// Utilisation: requested (pods' effective requests; "pods" counts 1 each) as a percent of
// allocatable, per resource named in `resources`; a resource the node does not have counts 0%
// when nothing requests it and 100% otherwise.
ResourceAmounts NodeRequested(const std::string& node, const std::vector<PodInfo>& pods);
double Percent(int64_t requested, int64_t allocatable);

}  // namespace berth::reconcile::rescheduler
