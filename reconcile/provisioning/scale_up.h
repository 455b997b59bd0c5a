// reconcile/provisioning/scale_up.h
//
// best-effort-atomic-scale-up: for the pods of a request that existing nodes cannot hold, find
// how many nodes of which node group would hold them all (bin-packing onto each group's template
// node), ask for them all at once, and keep them only if every one of them registers.
//
// PlanScaleUp is the bin-packing (pure). AtomicScaleUpProvisioner is the all-or-nothing state
// machine behind the Provisioner seam of check_capacity.h; it reaches the cloud only through
// NodeGroupPort (controllers/provisioning/externalgrpc implements it with Cluster Autoscaler's
// externalgrpc protocol; unit tests with a fake), so every transition is testable without I/O:
//   no record:   plan -> IncreaseSize(group, n) -> target grew by n: record, wait for registration
//                                              -> refused or grew by less: give back, NotFound
//   recorded:    pods fit (all n registered)   -> Settled: CapacityIsProvisioned, record dropped
//                fewer than n registered       -> wait until the deadline (exact requeue)
//                deadline passed, or all n registered and the pods still do not fit
//                                              -> give back, NotFound (check_capacity backs off)
//   IncreaseSize timed out (outcome unknown)   -> NotFound; what the group gains until the
//                                                 registration deadline is given back
// One scale-up per node group at a time: a group with a record is busy for other requests, so
// what a give-back removes (nodes registered since the record began) is the record's own.
// "Give back": registered new nodes through DeleteNodes, the rest of the increase through
// DecreaseTargetSize (which must not delete instances), so the group's target returns to where
// it was before the request.
#pragma once

#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reconcile/placement/types.h"
#include "reconcile/provisioning/check_capacity.h"

namespace berth::reconcile::provisioning {

// NodeGroupInfo: one node group as the cloud provider reports it.
struct NodeGroupInfo {
  std::string id;
  int32_t min_size = 0;
  int32_t max_size = 0;
  int32_t target_size = 0;
  // The group's template node (NodeGroupTemplateNodeInfo), or nullopt with the reason why not
  // (unimplemented, undecodable bytes): such a group is never chosen.
  std::optional<placement::NodeView> template_node;
  std::string template_error;
};

struct ScaleUpPlan {
  std::string group;
  int32_t nodes = 0;
};

// PlanScaleUp bin-packs every unfit pod onto fresh copies of each group's template node (a new
// node only when no earlier one has room, MostAllocated so pods pack), within the group's
// headroom (max_size - target_size). Among the groups that hold them all, the one needing the
// fewest nodes wins, then the smallest id. Error: why no group can (one clause per group).
std::expected<ScaleUpPlan, std::string> PlanScaleUp(const std::vector<UnfitPodSet>& unfit,
                                                    const std::vector<NodeGroupInfo>& groups);

// RegisteredNode: a Node of the cluster that belongs to a group.
struct RegisteredNode {
  std::string name;
  std::string provider_id;
  bool operator<(const RegisteredNode& o) const { return name < o.name; }
};

// NodeGroupPort: the cloud-provider calls the state machine needs. Errors are messages.
class NodeGroupPort {
 public:
  virtual ~NodeGroupPort() = default;
  // Every group with its target size and template node.
  virtual std::expected<std::vector<NodeGroupInfo>, std::string> NodeGroups() = 0;
  virtual std::expected<int32_t, std::string> TargetSize(const std::string& group) = 0;
  // An error with maybe_applied (a deadline passed, the connection broke) may still have moved
  // the target: the scale-up is watched and given back if it shows up late.
  struct IncreaseError {
    std::string message;
    bool maybe_applied = false;
  };
  virtual std::expected<void, IncreaseError> IncreaseSize(const std::string& group, int32_t delta) = 0;
  // delta < 0.
  virtual std::expected<void, std::string> DecreaseTargetSize(const std::string& group, int32_t delta) = 0;
  virtual std::expected<void, std::string> DeleteNodes(const std::string& group,
                                                       const std::vector<RegisteredNode>& nodes) = 0;
  // The cluster's Nodes that belong to `group` now.
  virtual std::expected<std::vector<RegisteredNode>, std::string> RegisteredNodes(const std::string& group) = 0;
};

// ScaleUpResult: the label of berth_nodegroup_scaleup_total{group,result}.
enum class ScaleUpResult { kSuccess, kRefused, kPartial, kTimeout, kNotFit };
std::string_view ScaleUpResultName(ScaleUpResult result);

struct AtomicScaleUpOptions {
  // How long the requested nodes have to register before the scale-up is given back.
  Duration registration_timeout = std::chrono::minutes(15);
  // Recheck delay after a provider call failed while waiting (the registration deadline still
  // bounds the wait).
  Duration retry_after_error = std::chrono::seconds(10);
};

class AtomicScaleUpProvisioner : public Provisioner {
 public:
  using ResultObserver = std::function<void(const std::string& group, ScaleUpResult result)>;

  AtomicScaleUpProvisioner(NodeGroupPort& port, AtomicScaleUpOptions options, ResultObserver observer = {});

  ScaleUpOutcome Provision(const ProvisioningRequestView& request, const std::vector<UnfitPodSet>& unfit,
                           const placement::ClusterSnapshot& snapshot, Time now) override;
  bool Settled(const ProvisioningRequestView& request, Time now) override;

  // Retain gives back the scale-up of a request that no longer waits for one (deleted, failed,
  // expired) and forgets settled ones once they are Provisioned.
  void Retain(const std::set<std::string>& pending_uids, Time now) override;

  // PersistedState: the request's in-flight record, encoded (EncodeScaleUpRecord). A process
  // that never had a record for a request adopts the one in its view (the annotation) on first
  // sight, in Provision or Settled; later the memory is authoritative, as the cache may still
  // show an annotation already superseded.
  std::string PersistedState(const std::string& uid) const override;

  // MostPodsAdded: every node group at its maxSize, each node empty (copies of the pod per
  // template node × maxSize, summed); nullopt when the cloud provider cannot be asked.
  std::optional<int64_t> MostPodsAdded(const placement::PodSpecView& pod) override;

  // For tests and logs: the in-flight scale-up of a request.
  struct Record {
    std::string group;
    int32_t delta = 0;
    int32_t target_before = 0;
    std::set<RegisteredNode> nodes_before;
    Time deadline;
    // The pods fit on the new nodes; kept until the request shows Provisioned, so a pass
    // retried after a failed status write still says CapacityIsProvisioned.
    bool settled = false;
    // Giving back failed: retried after every pass (Retain) and before any new scale-up.
    bool give_back_pending = false;
    // After an IncreaseSize whose outcome is unknown: whatever the group gains until then is
    // given back (the record is kept, and the group busy, until this time).
    std::optional<Time> watch_until;
  };
  const Record* Find(const std::string& uid) const;

 private:
  ScaleUpOutcome Start(const ProvisioningRequestView& request, const std::vector<UnfitPodSet>& unfit, Time now);
  ScaleUpOutcome Wait(const std::string& uid, const placement::ClusterSnapshot& snapshot, Time now);
  // GiveBack returns what the record obtained; the message says what was given back (or what
  // failed: a failed give-back is retried on the next pass, the record is kept).
  std::expected<std::string, std::string> GiveBack(const Record& record);
  void Observe(const std::string& group, ScaleUpResult result);
  // Adopt restores a persisted record on first sight of the request; the error names what in
  // the annotation does not parse (the annotation is then ignored and overwritten).
  std::string Adopt(const ProvisioningRequestView& request);

  NodeGroupPort& port_;
  AtomicScaleUpOptions options_;
  ResultObserver observer_;
  std::map<std::string, Record> records_;  // by request uid
  std::set<std::string> seen_;              // uids whose annotation was considered (Adopt)
};

// EncodeScaleUpRecord: compact JSON {"group","delta","targetBefore","nodesBefore":[names],
// "deadline" (RFC 3339, µs), "settled"?, "giveBackPending"?, "watchUntil"?}.
std::string EncodeScaleUpRecord(const AtomicScaleUpProvisioner::Record& record);
// DecodeScaleUpRecord: the inverse; an error names the annotation and the field.
std::expected<AtomicScaleUpProvisioner::Record, std::string> DecodeScaleUpRecord(std::string_view text);

}  // namespace berth::reconcile::provisioning
