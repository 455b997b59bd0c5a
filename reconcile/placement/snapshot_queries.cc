// reconcile/placement/snapshot_queries.cc
//
// ClusterSnapshot's clock and its read-only questions: expiry, usage, a reservation's allocated
// amounts and the node its pods are on, slot counts (the updates are in snapshot.cc).
#include "reconcile/placement/snapshot.h"

#include <algorithm>
#include <limits>

#include "reconcile/placement/snapshot_state.h"

namespace berth::reconcile::placement {

using internal::At;
using internal::NodeEntry;
using internal::ReservationEntry;

std::vector<std::string> ClusterSnapshot::AdvanceClock(Time now) {
  State& s = *state_;
  std::vector<std::string> expired;
  if (now <= s.now) return expired;
  s.now = now;
  while (!s.deadlines.empty() && s.deadlines.begin()->first <= now) {
    std::string uid = std::move(s.deadlines.begin()->second);
    s.deadlines.erase(s.deadlines.begin());
    auto it = s.reservations.find(uid);
    if (it == s.reservations.end()) continue;
    ReservationEntry& r = *it->second;
    const bool mattered = r.node >= 0;  // held capacity, so owners could allocate it
    r.expired = true;
    s.RefreshHold(r);
    if (mattered) expired.push_back(std::move(uid));
  }
  return expired;
}

std::optional<Time> ClusterSnapshot::NextExpiry() const {
  const State& s = *state_;
  if (s.deadlines.empty()) return std::nullopt;
  return s.deadlines.begin()->first;
}

bool ClusterSnapshot::IsExpired(std::string_view uid) const {
  auto it = state_->reservations.find(uid);
  return it != state_->reservations.end() && it->second->expired;
}

bool ClusterSnapshot::ReservationFitsNow(std::string_view uid) const {
  const State& s = *state_;
  auto it = s.reservations.find(uid);
  if (it == s.reservations.end() || it->second->node < 0) return false;
  const ReservationEntry& r = *it->second;
  const NodeEntry& node = s.nodes[r.node];
  if (!node.present) return false;
  for (size_t i = 0; i < r.allocatable.size(); ++i) {
    if (r.allocatable[i] > 0 && At(node.free, static_cast<int>(i)) < 0) return false;
  }
  return true;
}

std::optional<NodeUsage> ClusterSnapshot::Usage(std::string_view node_name) const {
  const State& s = *state_;
  const int index = s.NodeForConst(node_name);
  if (index < 0 || !s.nodes[index].present) return std::nullopt;
  const NodeEntry& node = s.nodes[index];
  NodeUsage u;
  u.allocatable = s.resources.ToAmounts(node.allocatable);
  u.requested = s.resources.ToAmounts(node.requested);
  u.held = s.resources.ToAmounts(node.held);
  u.free = s.resources.ToAmounts(node.free);
  u.reservations = node.holding_reservations;
  return u;
}

ResourceAmounts ClusterSnapshot::Allocated(std::string_view reservation_uid) const {
  const State& s = *state_;
  auto u = s.usage.find(reservation_uid);
  if (u == s.usage.end()) return {};
  auto r = s.reservations.find(reservation_uid);
  ResourceAmounts all = s.resources.ToAmounts(u->second.sum);
  if (r == s.reservations.end()) return all;
  return MaskTo(all, r->second->view.allocatable);
}

void ClusterSnapshot::State::CountImages(const NodeView& node, int sign) {
  for (const auto& [image, size] : node.image_sizes) {
    auto it = image_nodes.find(image);
    if (it == image_nodes.end()) {
      if (sign < 0) continue;
      it = image_nodes.emplace(image, 0).first;
    }
    it->second += sign;
    if (it->second <= 0) image_nodes.erase(it);
  }
}

void ClusterSnapshot::UpsertNamespace(std::string_view name, const LabelMap& labels) {
  state_->namespaces.insert_or_assign(std::string(name), labels);
}

void ClusterSnapshot::RemoveNamespace(std::string_view name) {
  auto it = state_->namespaces.find(name);
  if (it != state_->namespaces.end()) state_->namespaces.erase(it);
}

std::optional<std::string> ClusterSnapshot::NodeOfAllocatedPods(std::string_view reservation_uid) const {
  const State& s = *state_;
  auto u = s.usage.find(reservation_uid);
  if (u == s.usage.end()) return std::nullopt;
  const std::string* best = nullptr;
  int most = 0;
  for (const auto& [node, pods] : u->second.pods_on_node) {
    const std::string& name = s.nodes[node].view.name;
    if (pods > most || (pods == most && best != nullptr && name < *best)) {
      best = &name;
      most = pods;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

ReservationDecision ClusterSnapshot::PlaceReservationAroundItsPods(const PodSpecView& template_pod,
                                                                   std::string_view reservation_uid,
                                                                   bool pre_allocation) const {
  std::optional<std::string> node = NodeOfAllocatedPods(reservation_uid);
  if (!node || (!template_pod.node_name.empty() && template_pod.node_name != *node)) {
    return PlaceReservation(template_pod, pre_allocation);
  }
  // The pods already count as requested on the node; the reservation adds only the rest of its
  // size there (once placed, it holds allocatable - allocated), so only the rest must be free.
  const State& s = *state_;
  const ResourceAmounts used = s.resources.ToAmounts(s.usage.find(reservation_uid)->second.sum);
  PodSpecView rest = template_pod;
  rest.node_name = *node;
  for (auto& [name, amount] : rest.requests) {
    auto it = used.find(name);
    if (it != used.end()) amount = std::max<int64_t>(0, amount - it->second);
  }
  ReservationDecision decision = PlaceReservation(rest, pre_allocation);
  if (!decision) return decision;
  decision->allocatable.clear();  // its size is the template's, not the rest
  for (const auto& [name, amount] : template_pod.requests) {
    if (amount > 0 && name != kResourcePods) decision->allocatable[name] = amount;
  }
  return decision;
}

int ClusterSnapshot::NodeCount() const { return state_->present_nodes; }

int64_t ClusterSnapshot::PodSlots() const {
  int64_t total = 0;
  for (const NodeEntry& node : state_->nodes) {
    if (!node.present) continue;
    const int64_t slots = std::max<int64_t>(0, At(node.allocatable, internal::kPods)) / internal::kOnePod;
    total += std::min(slots, std::numeric_limits<int64_t>::max() - total);
  }
  return total;
}

int64_t ClusterSnapshot::CopiesOnEmptyNodes(const PodSpecView& pod) const {
  int64_t total = 0;
  for (const NodeEntry& node : state_->nodes) {
    if (!node.present) continue;
    total += std::min(CopiesOnEmptyNode(pod, node.view), std::numeric_limits<int64_t>::max() - total);
  }
  return total;
}

bool ClusterSnapshot::IsAssumed(std::string_view pod_uid) const {
  auto it = state_->pods.find(pod_uid);
  return it != state_->pods.end() && it->second.assumed;
}

bool ClusterSnapshot::IsCounted(std::string_view pod_uid) const { return state_->pods.contains(pod_uid); }

}  // namespace berth::reconcile::placement
