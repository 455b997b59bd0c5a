#include "controllers/scheduler/scheduler_cache.h"

namespace berth::controllers {
namespace {

namespace placement = reconcile::placement;

bool SameNode(const placement::NodeView& a, const placement::NodeView& b) {
  return a.labels == b.labels && a.taints == b.taints && a.unschedulable == b.unschedulable &&
         a.avoided_controllers == b.avoided_controllers && a.image_sizes == b.image_sizes &&
         reconcile::EqualAmounts(a.allocatable, b.allocatable);
}

}  // namespace

SchedulerCache::SchedulerCache(placement::SchedulerOptions options, NowFunction now)
    : now_(now ? std::move(now) : NowFunction([] { return std::chrono::system_clock::now(); })),
      scoring_(options.scoring),
      snapshot_(options) {}

void SchedulerCache::AdvanceLocked() {
  for (std::string& uid : snapshot_.AdvanceClock(now_())) expired_.push_back(std::move(uid));
}

std::vector<std::string> SchedulerCache::TakeExpired() {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  std::vector<std::string> out;
  out.swap(expired_);
  return out;
}

bool SchedulerCache::IsReservationExpired(std::string_view uid) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  return snapshot_.IsExpired(uid);
}

std::optional<reconcile::Time> SchedulerCache::NextExpiry() const {
  std::lock_guard lock(mu_);
  return snapshot_.NextExpiry();
}

bool SchedulerCache::UpsertNode(const placement::NodeView& node) {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(node.name);
  if (it != nodes_.end() && SameNode(it->second, node)) return false;
  snapshot_.UpsertNode(node);
  nodes_[node.name] = node;
  return true;
}

bool SchedulerCache::UpsertNamespace(std::string_view name, const placement::LabelMap& labels) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = namespaces_.try_emplace(std::string(name), labels);
  if (!inserted && it->second == labels) return false;
  it->second = labels;
  snapshot_.UpsertNamespace(name, labels);
  return true;
}

void SchedulerCache::RemoveNamespace(std::string_view name) {
  std::lock_guard lock(mu_);
  namespaces_.erase(std::string(name));
  snapshot_.RemoveNamespace(name);
}

void SchedulerCache::RemoveNode(std::string_view name) {
  std::lock_guard lock(mu_);
  snapshot_.RemoveNode(name);
  nodes_.erase(std::string(name));
}

void SchedulerCache::UpsertPod(const placement::PodSpecView& pod) {
  std::lock_guard lock(mu_);
  if (pod.node_name.empty()) {
    if (snapshot_.IsAssumed(pod.uid)) snapshot_.UpsertPod(pod);
    return;
  }
  snapshot_.UpsertPod(pod);
  nominated_.erase(pod.uid);  // bound: its nomination is over
}

bool SchedulerCache::RemovePod(std::string_view uid) {
  std::lock_guard lock(mu_);
  bool counted = snapshot_.IsCounted(uid);
  snapshot_.RemovePod(uid);
  nominated_.erase(std::string(uid));
  return counted;
}

void SchedulerCache::UpsertReservation(const placement::ReservationView& reservation) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  snapshot_.UpsertReservation(reservation);
  if (!reservation.node_name.empty() || reconcile::IsTerminal(reservation.phase)) {
    assumed_reservations_.erase(reservation.uid);
    unwritten_reservations_.erase(reservation.uid);
  }
}

void SchedulerCache::RemoveReservation(std::string_view uid) {
  std::lock_guard lock(mu_);
  snapshot_.RemoveReservation(uid);
  assumed_reservations_.erase(std::string(uid));
  unwritten_reservations_.erase(std::string(uid));
}

placement::PodDecision SchedulerCache::ScheduleAndAssumePod(const placement::PodSpecView& pod) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  std::vector<std::string> nominated = AddNominatedLocked(pod);
  placement::PodDecision decision = snapshot_.SchedulePod(pod);
  RemoveNominatedLocked(nominated);
  if (!decision) return decision;
  if (auto assumed = snapshot_.AssumePod(pod, *decision); !assumed) {
    // Only an empty uid or a node that vanished can fail here; report it as unschedulable.
    placement::FitError error;
    error.num_all_nodes = snapshot_.NodeCount();
    error.reasons[assumed.error().message] = 1;
    return std::unexpected(std::move(error));
  }
  return decision;
}

std::vector<placement::ClusterSnapshot::NodeEvaluation> SchedulerCache::EvaluateOnNodes(
    const placement::PodSpecView& pod, const std::vector<std::string_view>& nodes) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  return snapshot_.EvaluateOnNodes(pod, nodes);
}

std::optional<placement::ReservationRef> SchedulerCache::AdoptBoundPod(const placement::PodSpecView& pod) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  if (pod.node_name.empty() || !pod.reservation_uid.empty() || !IsBoundLocked(pod.uid)) return std::nullopt;
  // Decided without the pod's own usage, pinned to its node (node_name is set).
  snapshot_.RemovePod(pod.uid);
  placement::PodDecision decision = snapshot_.SchedulePod(pod);
  if (!decision || !decision->reservation || decision->node_name != pod.node_name) {
    snapshot_.UpsertPod(pod);
    return std::nullopt;
  }
  placement::PodSpecView allocated = pod;
  allocated.reservation_uid = decision->reservation->uid;
  snapshot_.UpsertPod(allocated);
  return decision->reservation;
}

void SchedulerCache::ForgetPod(std::string_view uid) {
  std::lock_guard lock(mu_);
  snapshot_.ForgetPod(uid);
}

placement::ReservationDecision SchedulerCache::AssumeLocked(const placement::ReservationView& reservation,
                                                            placement::ReservationDecision decision) {
  if (!decision) return decision;
  if (auto assumed = snapshot_.AssumeReservation(reservation, *decision); !assumed) {
    placement::FitError error;
    error.num_all_nodes = snapshot_.NodeCount();
    error.reasons[assumed.error().message] = 1;
    return std::unexpected(std::move(error));
  }
  assumed_reservations_.insert(reservation.uid);
  unwritten_reservations_.erase(reservation.uid);
  return decision;
}

placement::ReservationDecision SchedulerCache::PlaceAndAssumeReservation(
    const placement::PodSpecView& template_pod, const placement::ReservationView& reservation,
    bool pre_allocation) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  placement::ReservationDecision decision =
      snapshot_.PlaceReservationAroundItsPods(template_pod, reservation.uid, pre_allocation);
  return AssumeLocked(reservation, std::move(decision));
}

placement::ReservationDecision SchedulerCache::PlacePreAllocationAndAssume(
    const placement::PodSpecView& template_pod, const placement::ReservationView& reservation,
    const std::vector<placement::PreAllocatablePod>& pods, const placement::PreAllocationPolicy& policy,
    const placement::PreAllocationOptions& options) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  placement::ReservationDecision decision = std::unexpected(placement::FitError{});
  bool decided = false;
  if (options.prefer_no_pre_allocated_pods) {
    decision = snapshot_.PlaceReservation(template_pod, /*pre_allocation=*/false);
    decided = decision.has_value();
  }
  if (!decided) {
    if (auto pre = snapshot_.PlacePreAllocation(template_pod, reservation, pods, policy, options)) {
      decision = std::move(*pre);
      decided = true;
    }
  }
  if (!decided) decision = snapshot_.PlaceReservation(template_pod, /*pre_allocation=*/true);
  return AssumeLocked(reservation, std::move(decision));
}

void SchedulerCache::ForgetReservation(std::string_view uid) {
  std::lock_guard lock(mu_);
  snapshot_.ForgetReservation(uid);
  assumed_reservations_.erase(std::string(uid));
  unwritten_reservations_.erase(std::string(uid));
}

void SchedulerCache::MarkPlacementUnwritten(std::string_view uid) {
  std::lock_guard lock(mu_);
  if (assumed_reservations_.contains(std::string(uid))) unwritten_reservations_.insert(std::string(uid));
}

std::optional<placement::ReservationPlacement> SchedulerCache::UnwrittenPlacement(std::string_view uid) const {
  std::lock_guard lock(mu_);
  if (!unwritten_reservations_.contains(std::string(uid))) return std::nullopt;
  return snapshot_.AssumedPlacement(uid);
}

bool SchedulerCache::IsBoundLocked(std::string_view uid) const {
  return snapshot_.IsCounted(uid) && !snapshot_.IsAssumed(uid);
}

bool SchedulerCache::IsPodAssumed(std::string_view uid) const {
  std::lock_guard lock(mu_);
  return snapshot_.IsAssumed(uid);
}

bool SchedulerCache::IsReservationAssumed(std::string_view uid) const {
  std::lock_guard lock(mu_);
  return assumed_reservations_.contains(std::string(uid));
}

bool SchedulerCache::ReservationFitsNow(std::string_view uid) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  return snapshot_.ReservationFitsNow(uid);
}

placement::WaitingDecision SchedulerCache::DecideWaiting(std::string_view uid) {
  std::lock_guard lock(mu_);
  AdvanceLocked();
  return snapshot_.DecideWaiting(uid);
}

std::optional<placement::NodeUsage> SchedulerCache::Usage(std::string_view node) const {
  std::lock_guard lock(mu_);
  return snapshot_.Usage(node);
}

reconcile::ResourceAmounts SchedulerCache::Allocated(std::string_view reservation_uid) const {
  std::lock_guard lock(mu_);
  return snapshot_.Allocated(reservation_uid);
}

int SchedulerCache::NodeCount() const {
  std::lock_guard lock(mu_);
  return snapshot_.NodeCount();
}

}  // namespace berth::controllers

namespace berth::controllers {

void SchedulerCache::UpsertResourcePolicy(const reconcile::placement::ResourcePolicyView& policy) {
  std::lock_guard lock(mu_);
  snapshot_.UpsertResourcePolicy(policy);
  policy_keys_.insert(policy.namespace_name + "/" + policy.name);
  policies_.store(static_cast<int>(policy_keys_.size()));
}

void SchedulerCache::RemoveResourcePolicy(std::string_view namespace_name, std::string_view name) {
  std::lock_guard lock(mu_);
  snapshot_.RemoveResourcePolicy(namespace_name, name);
  policy_keys_.erase(std::string(namespace_name) + "/" + std::string(name));
  policies_.store(static_cast<int>(policy_keys_.size()));
}

}  // namespace berth::controllers
