// reconcile/placement/types.h
//
// The scheduler's view of nodes, pods and Reservations: plain structs that the controller fills
// from its informer caches (no JSON, no I/O here). Field names follow core/v1 and
// scheduling.koordinator.sh/v1alpha1; resource amounts are milli-units (reconcile/common/resources.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clientgo-shim/api/label_selector.h"
#include "reconcile/placement/node_ports.h"
#include "reconcile/placement/priority.h"
#include "reconcile/common/resources.h"
#include "reconcile/reservation/types.h"

namespace berth::reconcile::placement {

struct ReservationAffinity;  // reservation_affinity.h

using LabelMap = shim::LabelMap;  // std::map<std::string, std::string, std::less<>>

// Resource names with a meaning of their own. "pods" is a count kept as count × 1000 milli.
inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";

// Taint effects as written on the wire.
inline constexpr std::string_view kEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kEffectNoExecute = "NoExecute";

// Taint: core/v1 Taint (timeAdded is irrelevant to scheduling).
struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // "NoSchedule" / "PreferNoSchedule" / "NoExecute"
  bool operator==(const Taint&) const = default;
};

// Toleration: core/v1 Toleration. operator "" means Equal; effect "" means every effect; key ""
// with Exists tolerates every taint. tolerationSeconds does not matter for scheduling.
struct Toleration {
  std::string key;
  std::string op;  // "Equal" / "Exists" / ""
  std::string value;
  std::string effect;
  bool operator==(const Toleration&) const = default;
};

// NodeSelectorOperator: core/v1 NodeSelectorOperator. kUnknown (an operator the controller could
// not map) never matches, so a term using it never matches, like upstream's lazy parse error.
enum class NodeSelectorOperator { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt, kUnknown };

// ParseNodeSelectorOperator maps "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"; anything
// else gives kUnknown.
NodeSelectorOperator ParseNodeSelectorOperator(std::string_view text);

struct NodeSelectorRequirement {
  std::string key;
  NodeSelectorOperator op = NodeSelectorOperator::kUnknown;
  std::vector<std::string> values;
};

// NodeSelectorTerm: matchExpressions on labels and matchFields (only metadata.name with In/NotIn
// is valid upstream; other fields never match). The requirements are ANDed; a term with neither
// list matches no node (upstream).
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
};

// PreferredSchedulingTerm: one entry of
// spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution.
struct PreferredSchedulingTerm {
  int32_t weight = 0;  // 1-100 upstream
  NodeSelectorTerm preference;
};

// AvoidedController: one entry of the node annotation scheduler.alpha.kubernetes.io/preferAvoidPods
// (prefer_avoid_pods.h): pods of this controller prefer other nodes until `until`.
struct AvoidedController {
  std::string kind;
  std::string name;
  std::string uid;
  Time until;
  bool operator==(const AvoidedController&) const = default;
};

// NodeView: what the scheduler reads from a Node object.
struct NodeView {
  std::string name;
  LabelMap labels;
  std::vector<Taint> taints;
  bool unschedulable = false;  // spec.unschedulable
  // status.allocatable, milli-units; "pods" = max pods × 1000. A resource missing here is 0.
  ResourceAmounts allocatable;
  // PreferAvoidPods entries not yet expired when read (the scheduler compares `until` with its
  // clock, so an entry also stops counting at its deadline between node events).
  std::vector<AvoidedController> avoided_controllers;
  // status.images: every name of each image → its sizeBytes (ImageLocality).
  std::map<std::string, int64_t, std::less<>> image_sizes;
};

// PodAffinityTerm: core/v1 PodAffinityTerm (or a WeightedPodAffinityTerm's term) as
// kube-scheduler's framework.AffinityTerm sees it: matchLabelKeys/mismatchLabelKeys are already
// merged into `selector` (key In/NotIn the pod's own value, as the API server merges them).
// A term applies to pods in `namespaces`, or in a namespace whose labels `namespace_selector`
// matches; with neither, to the pod's own namespace (the codec resolves that into `namespaces`).
struct PodAffinityTerm {
  shim::LabelSelector selector = shim::LabelSelector::Nothing();  // a nil labelSelector matches nothing
  std::vector<std::string> namespaces;
  std::optional<shim::LabelSelector> namespace_selector;  // nullopt: none ({} = every namespace)
  std::string topology_key;
  int32_t weight = 0;  // preferred terms only (1-100)
};

// PodAffinity: spec.affinity.podAffinity and podAntiAffinity.
struct PodAffinity {
  std::vector<PodAffinityTerm> required_affinity;
  std::vector<PodAffinityTerm> required_anti_affinity;
  std::vector<PodAffinityTerm> preferred_affinity;
  std::vector<PodAffinityTerm> preferred_anti_affinity;
  bool empty() const {
    return required_affinity.empty() && required_anti_affinity.empty() && preferred_affinity.empty() &&
           preferred_anti_affinity.empty();
  }
};

// TopologySpreadConstraint: core/v1 TopologySpreadConstraint, matchLabelKeys merged into
// `selector` (key In the pod's value; keys the pod lacks are ignored).
struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  bool do_not_schedule = true;  // whenUnsatisfiable: DoNotSchedule (false: ScheduleAnyway)
  shim::LabelSelector selector = shim::LabelSelector::Nothing();  // nil labelSelector: no pod matches
  std::optional<int32_t> min_domains;
  bool honor_node_affinity = true;  // nodeAffinityPolicy (default Honor)
  bool honor_node_taints = false;   // nodeTaintsPolicy (default Ignore)
};

// PodOwnerReference: one of metadata.ownerReferences of a pod.
struct PodOwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;  // ownerReferences[].controller (absent = false)
};

// PodSpecView: the scheduling-relevant part of a pod, or of a Reservation's spec.template (then
// namespace/name/uid are the Reservation's own, and node_name is template.spec.nodeName).
struct PodSpecView {
  std::string namespace_name;
  std::string name;
  std::string uid;
  LabelMap labels;
  std::vector<PodOwnerReference> owner_references;
  PodPriority priority;  // DefaultPreemption's view (priority.h)
  // spec.nodeName. For a pod being scheduled it pins the node (NodeName filter); for a pod given
  // to ClusterSnapshot::UpsertPod it is the node the pod is bound to.
  std::string node_name;
  LabelMap node_selector;  // spec.nodeSelector
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
  // (ORed); nullopt when there is no required node affinity.
  std::optional<std::vector<NodeSelectorTerm>> required_node_affinity;
  // ...preferredDuringSchedulingIgnoredDuringExecution: NodeAffinity scoring and the
  // rescheduler's preferred-affinity strategy.
  std::vector<PreferredSchedulingTerm> preferred_node_affinity;
  std::vector<Toleration> tolerations;
  // spec.affinity.podAffinity/podAntiAffinity (null when the pod has no such terms).
  std::shared_ptr<const PodAffinity> pod_affinity;
  std::vector<TopologySpreadConstraint> topology_spread;  // spec.topologySpreadConstraints
  // The images of spec.initContainers and spec.containers, normalised as ImageLocality does (a
  // name without a tag gets ":latest").
  std::vector<std::string> container_images;
  // The selector of the pod's workload (the Services selecting it, its ReplicaSet/StatefulSet/
  // ReplicationController: kube-scheduler's helper.DefaultSelector), set by the caller from its
  // caches when the pod has no topologySpreadConstraints. PodTopologySpread scores such a pod
  // with the system default constraints over it; null: no defaults.
  std::shared_ptr<const shim::LabelSelector> default_spread_selector;
  ResourceAmounts requests;  // EffectiveRequests(...) of the pod; without "pods"
  // Requests or limits that do not parse (or are negative), and affinity or spread selectors
  // that do not convert, each naming its field ("spec.containers[0].resources.requests.cpu:
  // invalid quantity \"abc\""): the pod or reservation is then unschedulable with these as the
  // message.
  std::vector<std::string> request_errors;
  // The uid in the annotation scheduling.koordinator.sh/reservation-allocated ("" when absent):
  // the Reservation this pod consumes.
  std::string reservation_uid;
  // The label scheduling.koordinator.sh/reservation-ignored="true": the pod never uses
  // reservations.
  bool reservation_ignored = false;
  // The annotation scheduling.koordinator.sh/reservation-affinity, parsed (null when absent): the
  // pod must then allocate a Reservation it matches. When the annotation does not parse,
  // reservation_affinity_error holds why and the pod is unschedulable.
  std::shared_ptr<const ReservationAffinity> reservation_affinity;
  std::string reservation_affinity_error;
  // The annotation scheduling.koordinator.sh/exact-match-reservation's resourceNames: the pod
  // allocates only reservations whose allocatable equals its requests for these. When the
  // annotation does not parse, exact_match_error holds why and the pod is unschedulable.
  std::vector<std::string> exact_match_resources;
  std::string exact_match_error;
  // Host ports of containers and restartable init containers (hostPort > 0), for NodePorts.
  std::vector<HostPort> host_ports;
  // "<namespace>/<name>" of the ProvisioningRequest the pod consumes (annotation
  // autoscaling.x-k8s.io/consume-provisioning-request or its deprecated cluster-autoscaler key);
  // "" when none. Such a pod may allocate that request's booking Reservations.
  std::string consumes_provisioning_request;
  // metadata.deletionTimestamp is set (ResourcePolicy's ignoreTerminatingPod skips such pods).
  bool terminating = false;
};

// ObjectOwner: owners[].object. Only non-empty fields count. api_version is compared with "v1"
// (every pod is v1; informers strip a pod's TypeMeta, so the pod's own field is not used).
struct ObjectOwner {
  std::string uid;
  std::string name;
  std::string namespace_name;
  std::string api_version;
};

// ControllerOwner: owners[].controller. Matches when any ownerReference of the pod agrees on
// every non-empty field (and `controller` when set); namespace_name, when set, must equal the
// pod's namespace.
struct ControllerOwner {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::string namespace_name;
};

// ReservationOwner: one entry of spec.owners. The entries are ORed; the fields present inside one
// entry are ANDed; an absent field does not restrict (so an empty entry matches every pod, as in
// koordinator).
struct ReservationOwner {
  std::optional<ObjectOwner> object;
  std::optional<ControllerOwner> controller;
  // owners[].labelSelector, converted with shim::LabelSelector::FromJson.
  std::optional<shim::LabelSelector> label_selector;
};

// AllocatePolicy: spec.allocatePolicy. "" (legacy Default) is treated as Aligned.
enum class AllocatePolicy { kAligned, kRestricted };

// ParseAllocatePolicy maps "Restricted" to kRestricted and anything else ("", "Aligned",
// "Default", unknown) to kAligned.
AllocatePolicy ParseAllocatePolicy(std::string_view text);

// PreAllocatedPod: a running pod a preAllocation Reservation is bound to (berth records the list
// in the Reservation's annotation berth.dev/pre-allocated-pods). The reservation stays Waiting
// until every one of them has terminated or been deleted.
struct PreAllocatedPod {
  std::string namespace_name;
  std::string name;
  std::string uid;
  bool operator==(const PreAllocatedPod&) const = default;
};

// ReservationView: a Reservation as the scheduler cache needs it.
struct ReservationView {
  std::string name;
  std::string uid;
  Phase phase = Phase::kPending;
  std::string node_name;         // status.nodeName ("" while unplaced)
  LabelMap labels;               // metadata.labels (reservation affinity, reservation-order)
  ResourceAmounts allocatable;   // status.allocatable ("pods" is ignored)
  std::vector<ReservationOwner> owners;
  bool allocate_once = true;     // spec.allocateOnce (default true)
  AllocatePolicy allocate_policy = AllocatePolicy::kAligned;
  // Resource names Restricted enforces (annotation reservation-restricted-options .resources);
  // empty = every resource in allocatable.
  std::vector<std::string> restricted_resources;
  bool unschedulable = false;    // spec.unschedulable
  std::vector<Taint> taints;     // spec.taints
  // True when status.currentOwners is non-empty (for allocateOnce: already taken).
  bool has_current_owners = false;
  // The pods this reservation pre-allocates (preAllocation). While it is Waiting, the capacity
  // they still hold is not held a second time by the reservation.
  std::vector<PreAllocatedPod> pre_allocated;
  // ExpiryDeadline (reservation/lifecycle.h) of the reservation; nullopt = never expires. From
  // this instant on the reservation is unusable and holds nothing, whatever its phase says
  // (the lifecycle controller may not have written Failed yet, e.g. right after a takeover).
  std::optional<Time> expiry_deadline;
  // "<namespace>/<name>" of the ProvisioningRequest this Reservation books capacity for
  // (annotation berth.dev/provisioning-request); "" for other reservations. When set, exactly
  // the request's consumer pods may allocate it, whatever `owners` says.
  std::string provisioning_request;
  // The spec has errors the lifecycle controller reports as InvalidSpec (an unparsable or
  // negative quantity, malformed containers, an unparsable ttl/expires). Such a reservation
  // is never placed, holds no capacity and is allocated by no pod, whatever its phase says:
  // berth cannot tell what it reserves or for how long.
  bool invalid_spec = false;
  // The template's host ports: while the reservation is active they are held on its node against
  // every pod that does not allocate it (koordinator reserves them like resources).
  std::vector<HostPort> host_ports;
  // The template pod as InterPodAffinity and PodTopologySpread see it: while the reservation is
  // active it counts on its node as a pod of this namespace and these labels, and its required
  // anti-affinity keeps other pods away (koordinator's reserve pod).
  std::string template_namespace = "default";
  LabelMap template_labels;
  std::shared_ptr<const PodAffinity> template_affinity;
};

// ReservationRef: the value of the reservation-allocated annotation.
struct ReservationRef {
  std::string name;
  std::string uid;
  bool operator==(const ReservationRef&) const = default;
};

}  // namespace berth::reconcile::placement
