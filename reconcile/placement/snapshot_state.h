// reconcile/placement/snapshot_state.h
//
// Internal to ClusterSnapshot (not a public API): the dense, interned representation that keeps
// the per-node scheduling work to a few integer comparisons. Resource names are interned to
// small indexes (cpu, memory, ephemeral-storage, pods first); amounts live in vectors indexed by
// them, where a missing tail entry means 0.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "reconcile/placement/affinity_index.h"
#include "reconcile/placement/resource_policy.h"
#include "reconcile/placement/snapshot.h"
#include "reconcile/placement/topology_index.h"

namespace berth::reconcile::placement::internal {

inline constexpr int kCpu = 0;
inline constexpr int kMemory = 1;
inline constexpr int kEphemeral = 2;
inline constexpr int kPods = 3;
inline constexpr int64_t kOnePod = 1000;

using Dense = std::vector<int64_t>;
// Wide: exact sums over many pods or reservations. Each amount fits int64 (kUnboundedAmount at
// most), so 128 bits never wrap, and removing a pod restores the exact previous sum, which a
// saturating int64 sum could not.
using Wide = std::vector<__int128>;

inline int64_t At(const Dense& v, int i) { return i < static_cast<int>(v.size()) ? v[i] : 0; }
inline __int128 At(const Wide& v, int i) { return i < static_cast<int>(v.size()) ? v[i] : 0; }
template <class Vector>
typename Vector::value_type& Slot(Vector& v, int i) {
  if (i >= static_cast<int>(v.size())) v.resize(i + 1, 0);
  return v[i];
}
// ClampAmount brings a wide value back into [-kUnboundedAmount, kUnboundedAmount].
inline int64_t ClampAmount(__int128 v) {
  if (v > kUnboundedAmount) return kUnboundedAmount;
  if (v < -kUnboundedAmount) return -kUnboundedAmount;
  return static_cast<int64_t>(v);
}

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// ResourceTable interns resource names.
struct ResourceTable {
  StringMap<int> index;
  std::vector<std::string> names;
  ResourceTable();
  int Intern(std::string_view name);
  int Find(std::string_view name) const;  // -1 when unknown
  Dense ToDense(const ResourceAmounts& amounts);
  ResourceAmounts ToAmounts(const Dense& dense) const;  // zero entries dropped
  ResourceAmounts ToAmounts(const Wide& wide) const;    // clamped, zero entries dropped
};

// Request: one non-zero resource a pod asks for (index -1: a name no node has).
struct Request {
  int index;
  int64_t amount;
  std::string_view name;
};

// Resource indexes whose free amount NodeEntry keeps inline (cpu, memory, ephemeral-storage, pods).
inline constexpr int kHotResources = 4;

struct NodeEntry {
  // Hot copies, laid out first and refreshed by State::RecomputeFree (which runs after every
  // change of the node, of its pods' requests and of its reservations' holds): the per-node
  // filters and score read only these for a pod asking for the common resources, so a node costs
  // a cache line or two, not a walk through its views and vectors (the kube-scheduler extender
  // visits thousands of nodes per request).
  std::array<int64_t, kHotResources> hot_free{};  // free[0..3]
  int64_t hot_held_cpu = 0;                       // held, clamped
  int64_t hot_held_memory = 0;
  int64_t hot_allocatable_cpu = 0;
  int64_t hot_allocatable_memory = 0;
  int64_t hot_requested_cpu = 0;                  // requested, clamped (BalancedAllocation)
  int64_t hot_requested_memory = 0;
  __int128 nonzero_cpu = 0;     // scoring: requested cpu with the 100m default per pod
  __int128 nonzero_memory = 0;  // scoring: requested memory with the 200Mi default per pod
  bool present = false;
  bool hot_unschedulable = false;  // view.unschedulable
  bool hot_has_taints = false;     // !view.taints.empty()
  NodeView view;
  Dense allocatable;
  Wide requested;
  Wide held;
  Dense free;  // allocatable - requested - held (clamped), kept current
  int holding_reservations = 0;
  HostPortUsage host_ports;  // NodePorts: ports of the pods counted on this node
  HostPortUsage reserved_ports;  // template ports of the active reservations on this node
  int prefer_no_schedule_taints = 0;  // TaintToleration scoring applies while any node has one
  std::vector<const struct PodEntry*> pods;  // counted on this node (preemption's victims)
};

// NodeNameIndex: node name → index into State::nodes, open addressing over a power-of-two array
// of 8-byte (hash tag, index) slots, at most half full. A lookup reads one slot and the node's
// name, where std::unordered_map hops through a bucket and a separately allocated node: the
// kube-scheduler extender looks up every candidate's name (5,000 per request). Nodes are never
// removed from it (a removed node keeps its index, present = false).
class NodeNameIndex {
 public:
  static uint64_t Hash(std::string_view name) { return std::hash<std::string_view>{}(name); }
  // Find: the index of `name` (whose Hash is `hash`), or -1.
  int Find(std::string_view name, uint64_t hash, const std::vector<NodeEntry>& nodes) const;
  int Find(std::string_view name, const std::vector<NodeEntry>& nodes) const { return Find(name, Hash(name), nodes); }
  // For batched lookups (EvaluateOnNodes), which overlap the cache misses of many names:
  // PrefetchSlot starts loading the first slot of `hash`; Peek returns the index in that slot if
  // its tag matches (names not compared; -1 otherwise), to prefetch the node itself.
  void PrefetchSlot(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
  }
  int Peek(uint64_t hash) const {
    if (slots_.empty()) return -1;
    const Slot& slot = slots_[hash & (slots_.size() - 1)];
    return slot.tag == static_cast<uint32_t>(hash >> 32) ? slot.index : -1;
  }
  // Insert files nodes[index] under its view.name (not already filed).
  void Insert(int index, const std::vector<NodeEntry>& nodes);

 private:
  struct Slot {
    uint32_t tag = 0;
    int32_t index = -1;  // -1: empty
  };
  void Place(uint64_t hash, int index);
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// FreeAt: node.free[i] (i >= 0), from the hot copy when it has it.
inline int64_t FreeAt(const NodeEntry& n, int i) { return i < kHotResources ? n.hot_free[i] : At(n.free, i); }

// PodEntry: a counted pod (bound, assumed, or a nominated one for the length of a decision), kept
// compact: a cluster holds hundreds of thousands. Only what the filters, scores, ResourcePolicy
// counts and preemption read of a bound pod; labels interned (LabelInterner), requests interned
// (DenseInterner), the namespace interned (State::InternNamespace), uid and name in one heap
// block, the pod's own affinity terms shared with its view and null when it has none.
// PodExtras: what few pods have, kept out of line.
struct PodExtras {
  std::string reservation_uid;
  std::vector<HostPort> host_ports;
};

struct PodEntry {
  // uid() is its key in State::pods (detached_pods): the map's key views this block, so the
  // block moves with the entry and the entry is re-keyed when it is replaced (ReplacePod).
  std::string_view uid() const { return {ids.get(), uid_len}; }
  // Preemption (ClusterSnapshot::VictimsOn): name and priority of a pod the informer showed.
  std::string_view name() const { return {ids.get() + uid_len, name_len}; }
  void SetIds(std::string_view uid, std::string_view name);
  std::optional<Time> start_time() const { return has_start_time ? std::optional<Time>(start) : std::nullopt; }
  void SetStartTime(std::optional<Time> t) {
    has_start_time = t.has_value();
    start = t.value_or(Time{});
  }
  // Without pods; null: no requests. Shared by the pods asking for the same amounts.
  std::shared_ptr<const Dense> requests;
  const std::string& reservation_uid() const;
  std::unique_ptr<PodExtras> extras;  // null: no reservation, no host ports
  std::unique_ptr<char[]> ids;        // uid then name
  // InterPodAffinity / PodTopologySpread (filed in State::affinity_index while counted), and
  // ResourcePolicy counting (a policy created later recounts from its namespace and labels).
  AffinityMember member;
  Time start{};  // status.startTime when has_start_time
  int node = -1;
  int32_t priority = 0;
  uint32_t uid_len = 0;
  uint32_t name_len = 0;
  bool has_start_time = false;
  bool assumed = false;
  bool terminating_by_preemption = false;
  bool priority_readable = true;  // PodPriority::error empty: a pod that is never a victim
};

inline const std::string& PodEntry::reservation_uid() const {
  static const std::string kNone;
  return extras != nullptr ? extras->reservation_uid : kNone;
}

inline int64_t At(const std::shared_ptr<const Dense>& v, int i) { return v != nullptr ? At(*v, i) : 0; }

// DenseInterner: one shared copy of each distinct request vector (a workload's pods ask for the
// same amounts). Vectors no pod uses any more are dropped in a sweep each time the pool has
// doubled since the last one.
class DenseInterner {
 public:
  std::shared_ptr<const Dense> Intern(const Dense& amounts);
  size_t size() const { return pool_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(const Dense& v) const;
    size_t operator()(const std::shared_ptr<const Dense>& v) const { return (*this)(*v); }
  };
  struct Equal {
    using is_transparent = void;
    static const Dense& Deref(const Dense& v) { return v; }
    static const Dense& Deref(const std::shared_ptr<const Dense>& v) { return *v; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return Deref(a) == Deref(b);
    }
  };
  std::unordered_set<std::shared_ptr<const Dense>, Hash, Equal> pool_;
  size_t sweep_at_ = 1024;
};

// PodMap: uid → entry; the key views the entry's own ids block.
using PodMap = std::unordered_map<std::string_view, PodEntry, StringHash, std::equal_to<>>;

// PolicyEntry: one ResourcePolicy with its unit membership per node and its counts.
struct PolicyEntry {
  ResourcePolicyView view;
  std::vector<std::vector<int>> node_units;  // node index → indexes of the units selecting it
  StringMap<std::vector<int32_t>> counts;    // GroupKey → pods per unit
};

// Usage: what the pods naming one reservation uid add up to (exists before the reservation).
struct Usage {
  Wide sum;
  int pods = 0;
  std::map<int, int> pods_on_node;  // node index → pods (bound or assumed) naming the uid
};

struct ReservationEntry {
  ReservationView view;
  std::vector<HostPort> held_ports;  // what RefreshHold added to nodes[node].reserved_ports
  Dense allocatable;            // pods masked out
  std::vector<char> restricted;  // per index: Restricted enforces this resource
  int node = -1;                // node it holds capacity on, -1 when not holding
  Dense held;                   // what it currently adds to node.held
  bool assumed = false;
  bool expired = false;         // past view.expiry_deadline at State::now
  std::vector<std::string> index_keys;  // owner-index buckets it is filed under
  mutable uint64_t stamp = 0;   // dedup during candidate lookup
  int affinity_node = -1;       // node its reserve pod is filed under in State::affinity_index
  bool affinity_stale = true;   // the view changed since it was filed
  AffinityMember reserve_pod;   // what is filed there
};

}  // namespace berth::reconcile::placement::internal

namespace berth::reconcile::placement {

struct ClusterSnapshot::State {
  SchedulerOptions options;
  internal::ResourceTable resources;
  std::vector<internal::NodeEntry> nodes;
  internal::NodeNameIndex node_index;
  int present_nodes = 0;
  internal::PodMap pods;
  // Pods a preemption dry run took out (DetachPod), kept whole to be counted again.
  internal::PodMap detached_pods;
  internal::DenseInterner request_pool;  // the pods' request vectors, shared
  // Namespace names the pods' and reservations' AffinityMembers view. Never shrinks: a cluster's
  // namespaces are few, and a member must never outlive its text.
  std::unordered_set<std::string, internal::StringHash, std::equal_to<>> namespace_names;
  std::string_view InternNamespace(std::string_view name);
  internal::LabelInterner labels;  // the pods' label maps, shared
  internal::StringMap<internal::Usage> usage;  // by reservation uid
  internal::StringMap<std::unique_ptr<internal::ReservationEntry>> reservations;
  // Owner index: key → reservations whose owners may match pods having that key.
  internal::StringMap<std::vector<internal::ReservationEntry*>> owner_index;
  // Pre-allocation index: pod uid → uids of the reservations that record it as pre-allocated.
  internal::StringMap<std::vector<std::string>> pre_allocators;
  mutable uint64_t stamp = 0;
  mutable std::string key_buffer;
  // InterPodAffinity / PodTopologySpread: counted pods and active reservations' reserve pods.
  internal::AffinityIndex affinity_index;
  internal::StringMap<LabelMap> namespaces;  // namespace labels (namespaceSelector)
  int prefer_no_schedule_nodes = 0;          // present nodes with a PreferNoSchedule taint
  // Topology domains: each present node's domain per label key, and the present nodes per
  // domain (pod affinity and spreading judge a node by integer reads; spreading over the nodes a
  // pod does not restrict needs no scan of every node).
  internal::TopologyIndex topology;
  // ImageLocality: image name → present nodes listing it in status.images.
  internal::StringMap<int> image_nodes;
  void CountImages(const NodeView& node, int sign);
  // The snapshot's clock (AdvanceClock) and the deadlines of reservations not yet expired.
  Time now{};
  std::set<std::pair<Time, std::string>> deadlines;
  // ResourcePolicies by "namespace/name", and by namespace (in name order).
  internal::StringMap<std::unique_ptr<internal::PolicyEntry>> policies;
  internal::StringMap<std::vector<internal::PolicyEntry*>> policies_by_namespace;

  int NodeFor(std::string_view name, bool create);
  int NodeForConst(std::string_view name) const;  // -1 when unknown
  internal::PodEntry MakePod(const PodSpecView& pod, std::string_view node);
  void RecomputeFree(internal::NodeEntry& node);
  void CountPod(internal::PodEntry& pod, int sign);
  // ResourcePolicy bookkeeping (snapshot_resource_policy.cc).
  void CountPolicies(const internal::PodEntry& pod, int sign);
  void CountPolicy(internal::PolicyEntry& policy, const internal::PodEntry& pod, int sign);
  void RefreshPolicyRow(internal::PolicyEntry& policy, int node);  // true row for one node
  void RebuildPolicy(internal::PolicyEntry& policy);                 // rows and counts from scratch
  void RefreshPoliciesForNode(int node);
  // SelectingPolicies: the policies of the pod's namespace that select it, in name order (the
  // ResourcePolicy PreFilter: more than one is a conflict).
  std::vector<const internal::PolicyEntry*> SelectingPolicies(const PodSpecView& pod) const;
  void RefreshHold(internal::ReservationEntry& r);
  // FileReservePod keeps the reservation's reserve pod in affinity_index while it holds a node.
  void FileReservePod(internal::ReservationEntry& r);
  void Index(internal::ReservationEntry& r, bool add);
  // IndexPreAllocated files (add) or unfiles the reservation under its pre-allocated pods.
  void IndexPreAllocated(const internal::ReservationEntry& r, bool add);
  // RefreshPreAllocators re-computes the hold of the reservations pre-allocating the pod.
  void RefreshPreAllocators(std::string_view pod_uid);
  // PreAllocating: the reservation is Waiting on pre-allocated pods.
  static bool PreAllocating(const internal::ReservationEntry& r);
  bool HasOwner(const internal::ReservationEntry& r) const;
  // Remainder: max(0, allocatable - allocated) per index of the reservation.
  internal::Dense Remainder(const internal::ReservationEntry& r) const;
};

}  // namespace berth::reconcile::placement
