// reconcile/placement/snapshot.cc
//
// ClusterSnapshot: incremental cache updates and assumptions. The decisions are in schedule.cc.
#include "reconcile/placement/snapshot.h"

#include <algorithm>
#include <limits>

#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

using internal::At;
using internal::Dense;
using internal::NodeEntry;
using internal::PodEntry;
using internal::ReservationEntry;
using internal::Slot;


int ClusterSnapshot::State::NodeFor(std::string_view name, bool create) {
  if (int i = node_index.Find(name, nodes); i >= 0) return i;
  if (!create) return -1;
  int i = static_cast<int>(nodes.size());
  nodes.emplace_back();
  nodes.back().view.name = std::string(name);
  node_index.Insert(i, nodes);
  return i;
}

int ClusterSnapshot::State::NodeForConst(std::string_view name) const { return node_index.Find(name, nodes); }

void ClusterSnapshot::State::RecomputeFree(NodeEntry& node) {
  size_t n = std::max({node.allocatable.size(), node.requested.size(), node.held.size()});
  node.free.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    int k = static_cast<int>(i);
    node.free[i] = internal::ClampAmount(At(node.allocatable, k) - At(node.requested, k) - At(node.held, k));
  }
  for (int k = 0; k < internal::kHotResources; ++k) node.hot_free[k] = At(node.free, k);
  node.hot_held_cpu = internal::ClampAmount(At(node.held, internal::kCpu));
  node.hot_held_memory = internal::ClampAmount(At(node.held, internal::kMemory));
  node.hot_allocatable_cpu = At(node.allocatable, internal::kCpu);
  node.hot_allocatable_memory = At(node.allocatable, internal::kMemory);
  node.hot_requested_cpu = internal::ClampAmount(At(node.requested, internal::kCpu));
  node.hot_requested_memory = internal::ClampAmount(At(node.requested, internal::kMemory));
  node.hot_unschedulable = node.view.unschedulable;
  node.hot_has_taints = !node.view.taints.empty();
}

void ClusterSnapshot::State::CountPod(PodEntry& pod, int sign) {
  if (pod.node >= 0) {
    NodeEntry& node = nodes[pod.node];
    if (pod.requests != nullptr) {
      for (size_t i = 0; i < pod.requests->size(); ++i) {
        Slot(node.requested, static_cast<int>(i)) += sign * (*pod.requests)[i];
      }
    }
    Slot(node.requested, internal::kPods) += sign * internal::kOnePod;
    // Scoring's requests with kube-scheduler's defaults for a pod that asks for none.
    const int64_t cpu = At(pod.requests, internal::kCpu);
    const int64_t memory = At(pod.requests, internal::kMemory);
    node.nonzero_cpu += sign * (cpu != 0 ? cpu : kDefaultMilliCpuRequest);
    node.nonzero_memory += sign * (memory != 0 ? memory : kDefaultMemoryRequestMilli);
    if (pod.extras != nullptr && !pod.extras->host_ports.empty()) node.host_ports.Add(pod.extras->host_ports, sign);
    RecomputeFree(node);
    if (sign > 0) {
      pod.member.node = pod.node;
      affinity_index.Add(&pod.member);
      node.pods.push_back(&pod);
    } else {
      affinity_index.Remove(&pod.member);
      if (auto pos = std::find(node.pods.begin(), node.pods.end(), &pod); pos != node.pods.end()) {
        *pos = node.pods.back();
        node.pods.pop_back();
      }
    }
  }
  if (!policies.empty()) CountPolicies(pod, sign);
  if (const std::string& reservation_uid = pod.reservation_uid(); !reservation_uid.empty()) {
    auto& u = usage[reservation_uid];
    if (pod.requests != nullptr) {
      for (size_t i = 0; i < pod.requests->size(); ++i) {
        Slot(u.sum, static_cast<int>(i)) += sign * (*pod.requests)[i];
      }
    }
    u.pods += sign;
    if (pod.node >= 0 && (u.pods_on_node[pod.node] += sign) == 0) u.pods_on_node.erase(pod.node);
    auto it = reservations.find(reservation_uid);
    if (it != reservations.end()) RefreshHold(*it->second);
    if (u.pods == 0) usage.erase(reservation_uid);
  }
}

Dense ClusterSnapshot::State::Remainder(const ReservationEntry& r) const {
  Dense rem(r.allocatable.size(), 0);
  auto it = usage.find(r.view.uid);
  for (size_t i = 0; i < r.allocatable.size(); ++i) {
    __int128 used = it == usage.end() ? 0 : At(it->second.sum, static_cast<int>(i));
    rem[i] = internal::ClampAmount(std::max<__int128>(0, r.allocatable[i] - used));
  }
  return rem;
}

bool ClusterSnapshot::State::HasOwner(const ReservationEntry& r) const {
  if (r.view.has_current_owners) return true;
  auto it = usage.find(r.view.uid);
  return it != usage.end() && it->second.pods > 0;
}

void ClusterSnapshot::State::RefreshHold(ReservationEntry& r) {
  if (r.node >= 0) {
    NodeEntry& old = nodes[r.node];
    for (size_t i = 0; i < r.held.size(); ++i) Slot(old.held, static_cast<int>(i)) -= r.held[i];
    old.holding_reservations--;
    old.reserved_ports.Add(r.held_ports, -1);
    RecomputeFree(old);
  }
  r.node = -1;
  r.held.clear();
  r.held_ports.clear();
  bool active = (r.view.phase == Phase::kAvailable || r.view.phase == Phase::kWaiting || r.assumed) && !r.expired &&
                !r.view.invalid_spec;
  if (!active || r.view.node_name.empty()) {
    FileReservePod(r);
    return;
  }
  r.node = NodeFor(r.view.node_name, /*create=*/true);
  r.held = Remainder(r);
  if (PreAllocating(r)) {
    // The pre-allocated pods still on the node already count in `requested`: hold only what
    // they do not cover, so the node is never counted twice, and capacity they free is held
    // for the reservation at once.
    for (const PreAllocatedPod& p : r.view.pre_allocated) {
      auto pod = pods.find(p.uid);
      if (pod == pods.end() || pod->second.node != r.node) continue;
      for (size_t i = 0; i < r.held.size(); ++i) {
        r.held[i] = internal::ClampAmount(
            std::max<__int128>(0, __int128{r.held[i]} - At(pod->second.requests, static_cast<int>(i))));
      }
    }
  }
  NodeEntry& node = nodes[r.node];
  for (size_t i = 0; i < r.held.size(); ++i) Slot(node.held, static_cast<int>(i)) += r.held[i];
  node.holding_reservations++;
  r.held_ports = r.view.host_ports;
  node.reserved_ports.Add(r.held_ports, +1);
  RecomputeFree(node);
  FileReservePod(r);
}

void ClusterSnapshot::State::FileReservePod(ReservationEntry& r) {
  r.reserve_pod.uid = r.view.uid;  // the view may have been replaced
  // RefreshHold runs on every owner bind: re-file only when the node or the view changed.
  if (r.node == r.affinity_node && !r.affinity_stale) return;
  r.affinity_stale = false;
  r.affinity_node = r.node;
  affinity_index.Remove(&r.reserve_pod);
  if (r.node < 0) return;
  r.reserve_pod.node = r.node;
  r.reserve_pod.namespace_name = InternNamespace(r.view.template_namespace);
  r.reserve_pod.labels = labels.Intern(r.view.template_labels);
  r.reserve_pod.reservation = true;
  r.reserve_pod.affinity = r.view.template_affinity;
  affinity_index.Add(&r.reserve_pod);
}

bool ClusterSnapshot::State::PreAllocating(const ReservationEntry& r) {
  return r.view.phase == Phase::kWaiting && !r.view.pre_allocated.empty();
}

void ClusterSnapshot::State::IndexPreAllocated(const ReservationEntry& r, bool add) {
  for (const PreAllocatedPod& p : r.view.pre_allocated) {
    if (add) {
      pre_allocators[p.uid].push_back(r.view.uid);
      continue;
    }
    auto it = pre_allocators.find(p.uid);
    if (it == pre_allocators.end()) continue;
    std::erase(it->second, r.view.uid);
    if (it->second.empty()) pre_allocators.erase(it);
  }
}

void ClusterSnapshot::State::RefreshPreAllocators(std::string_view pod_uid) {
  if (pre_allocators.empty()) return;
  auto it = pre_allocators.find(pod_uid);
  if (it == pre_allocators.end()) return;
  for (const std::string& uid : it->second) {
    auto r = reservations.find(uid);
    if (r != reservations.end()) RefreshHold(*r->second);
  }
}

namespace {

// OwnerKeys: the owner-index buckets one owner entry is filed under. Any one field of an entry
// is enough (its fields are ANDed), so the most selective present field is used.
void OwnerKeys(const ReservationOwner& owner, std::vector<std::string>& out) {
  if (owner.object && !owner.object->uid.empty()) {
    out.push_back("ou:" + owner.object->uid);
  } else if (owner.object && !owner.object->name.empty()) {
    out.push_back("on:" + owner.object->namespace_name + "/" + owner.object->name);
  } else if (owner.controller && !owner.controller->uid.empty()) {
    out.push_back("cu:" + owner.controller->uid);
  } else if (owner.controller && !owner.controller->name.empty()) {
    out.push_back("cn:" + owner.controller->name);
  } else {
    if (owner.label_selector && !owner.label_selector->IsNothing()) {
      for (const shim::LabelRequirement& req : owner.label_selector->requirements()) {
        using Op = shim::SelectorOperator;
        if (req.op == Op::kIn || req.op == Op::kEquals || req.op == Op::kDoubleEquals) {
          for (const std::string& v : req.values) out.push_back("l:" + req.key + "=" + v);
          return;
        }
      }
    }
    out.push_back("*");
  }
}

}  // namespace

void ClusterSnapshot::State::Index(ReservationEntry& r, bool add) {
  if (add) {
    r.index_keys.clear();
    if (!r.view.provisioning_request.empty()) {
      r.index_keys.push_back("pr:" + r.view.provisioning_request);
    } else {
      for (const ReservationOwner& owner : r.view.owners) OwnerKeys(owner, r.index_keys);
    }
    std::sort(r.index_keys.begin(), r.index_keys.end());
    r.index_keys.erase(std::unique(r.index_keys.begin(), r.index_keys.end()), r.index_keys.end());
    for (const std::string& key : r.index_keys) owner_index[key].push_back(&r);
    return;
  }
  for (const std::string& key : r.index_keys) {
    auto it = owner_index.find(key);
    if (it == owner_index.end()) continue;
    auto& bucket = it->second;
    bucket.erase(std::remove(bucket.begin(), bucket.end(), &r), bucket.end());
    if (bucket.empty()) owner_index.erase(it);
  }
  r.index_keys.clear();
}

ClusterSnapshot::ClusterSnapshot(SchedulerOptions options) : state_(std::make_unique<State>()) {
  state_->options = options;
}
ClusterSnapshot::~ClusterSnapshot() = default;
ClusterSnapshot::ClusterSnapshot(ClusterSnapshot&&) noexcept = default;
ClusterSnapshot& ClusterSnapshot::operator=(ClusterSnapshot&&) noexcept = default;

void ClusterSnapshot::UpsertNode(const NodeView& view) {
  State& s = *state_;
  NodeEntry& node = s.nodes[s.NodeFor(view.name, /*create=*/true)];
  if (!node.present) s.present_nodes++;
  const int index = static_cast<int>(&node - s.nodes.data());
  if (node.present) s.CountImages(node.view, -1);
  s.CountImages(view, +1);
  s.topology.SetNode(index, node.present ? &node.view.labels : nullptr, view.labels);
  if (node.present && node.prefer_no_schedule_taints > 0) s.prefer_no_schedule_nodes--;
  node.present = true;
  node.view = view;
  node.prefer_no_schedule_taints = static_cast<int>(std::count_if(
      view.taints.begin(), view.taints.end(), [](const Taint& t) { return t.effect == kEffectPreferNoSchedule; }));
  if (node.prefer_no_schedule_taints > 0) s.prefer_no_schedule_nodes++;
  ResourceAmounts alloc = view.allocatable;
  node.allocatable = s.resources.ToDense(alloc);
  s.RecomputeFree(node);
  if (!s.policies.empty()) s.RefreshPoliciesForNode(index);
}

void ClusterSnapshot::RemoveNode(std::string_view name) {
  State& s = *state_;
  int i = s.NodeFor(name, /*create=*/false);
  if (i < 0 || !s.nodes[i].present) return;
  NodeEntry& node = s.nodes[i];
  s.CountImages(node.view, -1);
  s.topology.RemoveNode(i, node.view.labels);
  node.present = false;
  if (node.prefer_no_schedule_taints > 0) s.prefer_no_schedule_nodes--;
  node.prefer_no_schedule_taints = 0;
  std::string kept = std::move(node.view.name);
  node.view = NodeView();
  node.view.name = std::move(kept);
  node.allocatable.clear();
  s.RecomputeFree(node);
  s.present_nodes--;
}


std::string_view ClusterSnapshot::State::InternNamespace(std::string_view name) {
  auto it = namespace_names.find(name);
  if (it == namespace_names.end()) it = namespace_names.emplace(name).first;
  return *it;
}

PodEntry ClusterSnapshot::State::MakePod(const PodSpecView& pod, std::string_view node) {
  State& s = *this;
  PodEntry e;
  e.node = s.NodeFor(node, /*create=*/true);
  Dense requests = s.resources.ToDense(pod.requests);
  if (requests.size() > internal::kPods) requests[internal::kPods] = 0;
  while (!requests.empty() && requests.back() == 0) requests.pop_back();  // a missing tail is 0
  if (!requests.empty()) e.requests = s.request_pool.Intern(requests);
  if (!pod.reservation_uid.empty() || !pod.host_ports.empty()) {
    e.extras = std::make_unique<internal::PodExtras>(internal::PodExtras{pod.reservation_uid, pod.host_ports});
  }
  e.SetIds(pod.uid, pod.name);
  e.member.namespace_name = s.InternNamespace(pod.namespace_name);
  e.member.labels = s.labels.Intern(pod.labels);
  e.member.terminating = pod.terminating;
  // Terms the pod has none of cost nothing: a pod with no affinity keeps a null pointer.
  if (pod.pod_affinity != nullptr && !pod.pod_affinity->empty()) e.member.affinity = pod.pod_affinity;
  e.priority = pod.priority.value;
  e.SetStartTime(pod.priority.start_time);
  e.terminating_by_preemption = pod.priority.terminating_by_preemption;
  e.priority_readable = pod.priority.error.empty();
  return e;
}

void ClusterSnapshot::UpsertPod(const PodSpecView& pod) {
  State& s = *state_;
  auto it = s.pods.find(pod.uid);
  if (pod.node_name.empty()) {
    // Not bound: only an assumption keeps it counted.
    if (it != s.pods.end() && !it->second.assumed) {
      s.CountPod(it->second, -1);
      s.pods.erase(it);
      s.RefreshPreAllocators(pod.uid);
    }
    return;
  }
  PodEntry entry = s.MakePod(pod, pod.node_name);
  if (it != s.pods.end()) {
    s.CountPod(it->second, -1);
    // The key views the old entry's ids: re-key the node with the new entry's (the node, and so
    // the entry's address, stays).
    auto node = s.pods.extract(it);
    node.mapped() = std::move(entry);
    node.key() = node.mapped().uid();
    it = s.pods.insert(std::move(node)).position;
  } else {
    const std::string_view key = entry.uid();
    it = s.pods.emplace(key, std::move(entry)).first;
  }
  s.CountPod(it->second, +1);
  s.RefreshPreAllocators(pod.uid);
}

void ClusterSnapshot::RemovePod(std::string_view uid) {
  State& s = *state_;
  auto it = s.pods.find(uid);
  if (it == s.pods.end()) return;
  s.CountPod(it->second, -1);
  s.pods.erase(it);
  s.RefreshPreAllocators(uid);
}

void ClusterSnapshot::UpsertReservation(const ReservationView& view) {
  State& s = *state_;
  auto it = s.reservations.find(view.uid);
  if (it == s.reservations.end()) {
    it = s.reservations.emplace(view.uid, std::make_unique<ReservationEntry>()).first;
  } else {
    s.Index(*it->second, /*add=*/false);
    s.IndexPreAllocated(*it->second, /*add=*/false);
    if (const auto& old = it->second->view.expiry_deadline) s.deadlines.erase({*old, view.uid});
  }
  ReservationEntry& r = *it->second;
  r.affinity_stale = true;
  if (r.assumed && view.node_name.empty() && !IsTerminal(view.phase)) {
    // Keep the assumed placement (and its pre-allocated pods); take the rest from the view.
    std::string node = r.view.node_name;
    Phase phase = r.view.phase;
    ResourceAmounts allocatable = r.view.allocatable;
    std::vector<PreAllocatedPod> pre_allocated = std::move(r.view.pre_allocated);
    r.view = view;
    r.view.node_name = node;
    r.view.phase = phase;
    r.view.allocatable = allocatable;
    if (r.view.pre_allocated.empty()) r.view.pre_allocated = std::move(pre_allocated);
  } else {
    r.assumed = false;
    r.view = view;
  }
  r.allocatable = s.resources.ToDense(r.view.allocatable);
  if (r.allocatable.size() > internal::kPods) r.allocatable[internal::kPods] = 0;
  r.restricted.assign(r.allocatable.size(), 0);
  if (r.view.allocate_policy == AllocatePolicy::kRestricted) {
    for (size_t i = 0; i < r.allocatable.size(); ++i) {
      bool listed = r.view.restricted_resources.empty() ||
                    std::find(r.view.restricted_resources.begin(),
                              r.view.restricted_resources.end(),
                              s.resources.names[i]) != r.view.restricted_resources.end();
      r.restricted[i] = listed && r.view.allocatable.count(s.resources.names[i]) > 0;
    }
  }
  r.expired = r.view.expiry_deadline && *r.view.expiry_deadline <= s.now;
  if (r.view.expiry_deadline && !r.expired) s.deadlines.insert({*r.view.expiry_deadline, view.uid});
  s.Index(r, /*add=*/true);
  s.IndexPreAllocated(r, /*add=*/true);
  s.RefreshHold(r);
}

void ClusterSnapshot::RemoveReservation(std::string_view uid) {
  State& s = *state_;
  auto it = s.reservations.find(uid);
  if (it == s.reservations.end()) return;
  ReservationEntry& r = *it->second;
  s.Index(r, /*add=*/false);
  s.IndexPreAllocated(r, /*add=*/false);
  if (r.view.expiry_deadline) s.deadlines.erase({*r.view.expiry_deadline, r.view.uid});
  r.view.phase = Phase::kFailed;
  r.assumed = false;
  s.RefreshHold(r);
  s.affinity_index.Remove(&r.reserve_pod);
  s.reservations.erase(it);
}

Status ClusterSnapshot::AssumePod(const PodSpecView& pod, const PodPlacement& placement) {
  State& s = *state_;
  if (pod.uid.empty()) return MakeError(ErrorCode::kInvalidArgument, "assume pod: empty uid");
  int node = s.NodeFor(placement.node_name, /*create=*/false);
  if (node < 0 || !s.nodes[node].present) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "assume pod " + pod.uid + ": unknown node \"" + placement.node_name + "\"");
  }
  PodSpecView bound = pod;
  bound.node_name = placement.node_name;
  bound.reservation_uid = placement.reservation ? placement.reservation->uid : "";
  UpsertPod(bound);
  s.pods.find(pod.uid)->second.assumed = true;  // bound.node_name is set: UpsertPod counted it
  return {};
}

void ClusterSnapshot::ForgetPod(std::string_view uid) {
  State& s = *state_;
  auto it = s.pods.find(uid);
  if (it == s.pods.end() || !it->second.assumed) return;
  s.CountPod(it->second, -1);
  s.pods.erase(it);
}

Status ClusterSnapshot::AssumeReservation(const ReservationView& reservation,
                                          const ReservationPlacement& placement) {
  State& s = *state_;
  if (reservation.uid.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "assume reservation: empty uid");
  }
  if (reservation.expiry_deadline && *reservation.expiry_deadline <= s.now) {
    return MakeError(ErrorCode::kInvalidArgument, "assume reservation " + reservation.name + ": expired");
  }
  if (reservation.invalid_spec) {
    return MakeError(ErrorCode::kInvalidArgument, "assume reservation " + reservation.name + ": invalid spec");
  }
  int node = s.NodeFor(placement.node_name, /*create=*/false);
  if (node < 0 || !s.nodes[node].present) {
    return MakeError(ErrorCode::kInvalidArgument, "assume reservation " + reservation.name +
                                                      ": unknown node \"" +
                                                      placement.node_name + "\"");
  }
  ReservationView view = reservation;
  view.node_name = placement.node_name;
  view.allocatable = placement.allocatable;
  view.phase = placement.phase;
  view.pre_allocated = placement.pre_allocated;
  auto it = s.reservations.find(view.uid);
  if (it != s.reservations.end()) it->second->assumed = false;  // the view below replaces it
  UpsertReservation(view);
  ReservationEntry& r = *s.reservations[view.uid];
  r.assumed = true;
  s.RefreshHold(r);
  return {};
}

std::optional<ReservationPlacement> ClusterSnapshot::AssumedPlacement(std::string_view uid) const {
  auto it = state_->reservations.find(uid);
  if (it == state_->reservations.end() || !it->second->assumed) return std::nullopt;
  const ReservationView& v = it->second->view;
  return ReservationPlacement{v.node_name, v.allocatable, v.phase, v.pre_allocated};
}

void ClusterSnapshot::ForgetReservation(std::string_view uid) {
  State& s = *state_;
  auto it = s.reservations.find(uid);
  if (it == s.reservations.end() || !it->second->assumed) return;
  ReservationEntry& r = *it->second;
  r.assumed = false;
  s.IndexPreAllocated(r, /*add=*/false);
  r.view.pre_allocated.clear();
  r.view.node_name.clear();
  r.view.phase = Phase::kPending;
  r.view.allocatable.clear();
  r.allocatable.clear();
  s.RefreshHold(r);
}

}  // namespace berth::reconcile::placement
