// reconcile/provisioning/check_capacity.cc
#include "reconcile/provisioning/check_capacity.h"

#include <algorithm>
#include <map>

#include "reconcile/provisioning/conditions.h"

namespace berth::reconcile::provisioning {
namespace {

constexpr std::string_view kTrue = "True";
constexpr std::string_view kFalse = "False";
constexpr std::string_view kNormal = "Normal";
constexpr std::string_view kWarning = "Warning";

// Deadlines keeps the earliest of the request's upcoming deadlines.
class Deadlines {
 public:
  void Add(Time t) {
    if (!earliest_ || t < *earliest_) earliest_ = t;
  }
  std::optional<Duration> After(Time now) const {
    if (!earliest_) return std::nullopt;
    return std::max(Duration::zero(), std::chrono::duration_cast<Duration>(*earliest_ - now));
  }

 private:
  std::optional<Time> earliest_;
};

struct Simulation {
  bool fits = false;
  std::vector<BookedSlice> slices;  // by node name
  std::vector<UnfitPodSet> unfit;
  std::vector<std::string> assumed;  // uids assumed in the snapshot
};

// Simulate places the request's pods one by one, assuming each placed pod, so the later pods
// (and later requests) see it; each pod first tries the node of the pod before it. With break_on_failure (check-capacity) it stops at the first
// podSet with a pod that does not fit, as upstream's TrySchedulePods(breakOnFailure=true).
// The remaining copies of that podSet are identical to the one that failed and the snapshot
// only filled up since, so they do not fit either: they are all counted as unfit.
Simulation Simulate(const ProvisioningRequestView& request, const BuiltPods& built,
                    placement::ClusterSnapshot& snapshot, bool break_on_failure) {
  Simulation sim;
  std::map<std::string, BookedSlice, std::less<>> by_node;
  std::string hint;
  for (const PodSetPods& set : built.pod_sets) {
    placement::PodSpecView pod = set.pod;
    const std::string prefix = request.name + "-" + std::to_string(set.index) + "-";
    int64_t placed = 0;
    std::string reason;
    const bool pinned = !pod.node_name.empty();
    for (int64_t j = 0; j < set.count; ++j) {
      pod.name = prefix + std::to_string(j);
      pod.uid = request.namespace_name + "/" + pod.name;
      // Hinting, as upstream's HintingSimulator: the node the previous pod went to is tried alone
      // first (one node's filters instead of all of them), so identical pods pack onto few nodes
      // and a request of N pods costs O(N + nodes) rather than O(N × nodes).
      placement::PodDecision decision;
      bool placed_by_hint = false;
      if (!pinned && !hint.empty()) {
        pod.node_name = hint;
        decision = snapshot.SchedulePod(pod);
        pod.node_name.clear();
        placed_by_hint = decision.has_value();
      }
      if (!placed_by_hint) decision = snapshot.SchedulePod(pod);
      if (!decision) {
        reason = decision.error().Message();
        break;
      }
      if (auto assumed = snapshot.AssumePod(pod, *decision); !assumed) {
        reason = assumed.error().message;
        break;
      }
      sim.assumed.push_back(pod.uid);
      hint = decision->node_name;
      BookedSlice& slice = by_node[decision->node_name];
      slice.node_name = decision->node_name;
      AddInto(slice.resources, pod.requests);
      ++slice.pods;
      ++placed;
    }
    if (placed < set.count) {
      sim.unfit.push_back({set.index, set.template_name, set.count - placed, set.count, reason, set.pod});
      if (break_on_failure) break;
    }
  }
  sim.fits = sim.unfit.empty();
  for (auto& [node, slice] : by_node) sim.slices.push_back(std::move(slice));
  return sim;
}

// UnfitDetail: "podSet 1 (podTemplate "big"): 3 of 5 pods did not fit: 0/3 nodes are available:
// 3 Insufficient cpu."
std::string UnfitDetail(const std::vector<UnfitPodSet>& unfit) {
  std::string out;
  for (const UnfitPodSet& u : unfit) {
    if (!out.empty()) out += " ";
    out += "podSet " + std::to_string(u.index) + " (podTemplate \"" + u.template_name + "\"): " +
           std::to_string(u.count) + " of " + std::to_string(u.of) + " pods did not fit: " + u.reason;
  }
  return out;
}

int64_t TotalPods(const ProvisioningRequestView& request) {
  int64_t total = 0;
  for (const PodSetRef& set : request.pod_sets) total += std::max<int64_t>(0, set.count);
  return total;
}

class RequestDecider {
 public:
  RequestDecider(const ProvisioningRequestView& request, const PassInput& input,
                 placement::ClusterSnapshot& snapshot, Time now, const ProvisioningOptions& options)
      : r_(request), input_(input), snapshot_(snapshot), now_(now), options_(options), conditions_(request.conditions) {
    d_.namespace_name = r_.namespace_name;
    d_.name = r_.name;
    d_.uid = r_.uid;
    if (auto it = input_.backoff.find(r_.uid); it != input_.backoff.end()) d_.backoff = it->second;
  }

  RequestDecision Decide() {
    if (r_.deleting) {
      d_.release_booking = !r_.booking.empty();
      return Finish();
    }
    if (Terminal()) return Finish();
    if (!r_.spec_errors.empty()) {
      std::string message;
      for (const std::string& e : r_.spec_errors) message += (message.empty() ? "" : "; ") + e;
      return Fail(kReasonInvalidSpec, message);
    }
    auto valid_until = ParseValidUntilSeconds(r_);
    if (valid_until && !*valid_until) return Fail(kReasonInvalidParameter, valid_until->error());
    if (!IsTrue(conditions_, kConditionAccepted)) {
      Set(kConditionAccepted, kTrue, kReasonAccepted, kMessageAccepted, kNormal);
    }
    if (IsTrue(conditions_, kConditionProvisioned)) return DecideBooked();

    Time expiry = r_.creation_time + options_.pending_expiry;
    if (valid_until && *valid_until) expiry = std::min(expiry, r_.creation_time + std::chrono::seconds(**valid_until));
    if (now_ >= expiry) return Fail(kReasonExpired, kMessageExpired);
    deadlines_.Add(expiry);
    return DecideUnbooked();
  }

 private:
  // DecideBooked: a Provisioned request holds its booking until it is revoked, consumed or
  // expires.
  RequestDecision DecideBooked() {
    for (const BookedSlice& slice : r_.booking) {
      std::optional<bool> unschedulable = input_.node_unschedulable(slice.node_name);
      if (!unschedulable) {
        Set(kConditionCapacityRevoked, kTrue, kReasonNodeDeleted,
            "node \"" + slice.node_name + "\" holding booked capacity was deleted", kWarning);
        break;
      }
      if (*unschedulable) {
        Set(kConditionCapacityRevoked, kTrue, kReasonNodeUnschedulable,
            "node \"" + slice.node_name + "\" holding booked capacity was marked unschedulable", kWarning);
        break;
      }
    }
    if (!IsTrue(conditions_, kConditionCapacityRevoked)) {
      const int64_t total = TotalPods(r_);
      const Condition* provisioned = FindCondition(conditions_, kConditionProvisioned);
      const Time since = provisioned->last_transition_time.value_or(r_.creation_time);
      const Time booking_end = since + options_.booking_time;
      if (total > 0 && r_.bound_consumers >= total) {
        Set(kConditionBookingExpired, kTrue, kReasonCapacityBookingConsumed, kMessageCapacityBookingConsumed,
            kNormal);
      } else if (now_ >= booking_end) {
        Set(kConditionBookingExpired, kTrue, kReasonCapacityReservationTimeExpired,
            kMessageCapacityReservationTimeExpired, kNormal);
      } else if (std::string why = BookingPodsError(); !why.empty()) {
        // Cluster Autoscaler rebuilds a booked request's pods on every loop; when that fails (a
        // PodTemplate deleted) the request fails and its capacity is no longer held.
        return Fail(kReasonFailedToBookCapacity, "Couldn't create pods, err: " + why);
      } else {
        deadlines_.Add(booking_end);
      }
    }
    Terminal();
    return Finish();
  }

  // BookingPodsError: why the request's pods cannot be built now (upstream's wording), or "".
  std::string BookingPodsError() const {
    BuiltPods built = BuildPods(r_, [&](std::string_view name) {
      return input_.template_lookup(r_.namespace_name, name);
    });
    if (!built.missing.empty()) return MissingTemplatesMessage(built);
    return built.error;
  }

  // DecideUnbooked: templates, backoff, then the capacity check.
  RequestDecision DecideUnbooked() {
    // A booking of a request that is not Provisioned is stale (the status write was lost after
    // its Reservations were created): it must not count against the request's own check.
    for (const BookedSlice& slice : r_.booking) {
      if (!slice.reservation_uid.empty()) snapshot_.RemoveReservation(slice.reservation_uid);
    }
    d_.release_booking = !r_.booking.empty();
    BuiltPods built = BuildPods(r_, [&](std::string_view name) {
      return input_.template_lookup(r_.namespace_name, name);
    });
    if (!built.missing.empty()) {
      // Kueue and others may create the PodTemplate just after the request: wait a little.
      const Time grace_end = r_.creation_time + options_.template_grace;
      if (now_ < grace_end) {
        deadlines_.Add(grace_end);
        return Finish();
      }
      return Fail(kReasonFailedToCreatePods, MissingTemplatesMessage(built));
    }
    if (!built.error.empty()) return Fail(kReasonFailedToCreatePods, built.error);

    Provisioner* provisioner = nullptr;
    if (auto it = input_.provisioners.find(r_.class_name); it != input_.provisioners.end()) provisioner = it->second;
    // The backoff is the decider's own record of the last failed check. It holds even while the
    // cache does not show that check's Provisioned=False yet (a pass right after the status write,
    // e.g. on the Node a give-back deleted), or the check would run, and ask the cloud, again.
    const bool backing_off = d_.backoff.next_attempt && now_ < *d_.backoff.next_attempt;
    if (backing_off && !input_.capacity_freed) {
      deadlines_.Add(*d_.backoff.next_attempt);
      return Finish();
    }

    d_.checked = true;
    if (backing_off && provisioner != nullptr) {
      // Freed capacity can only make the pods fit on existing nodes; the backoff paces the
      // scale-ups. Without this, what a give-back itself removes or deletes (nodes, booking
      // Reservations) would count as freed and restart the scale-up before the backoff ends.
      Simulation existing = Simulate(r_, built, snapshot_, /*break_on_failure=*/true);
      if (existing.fits) return Book(std::move(existing), kReasonCapacityIsFound);
      for (const std::string& uid : existing.assumed) snapshot_.ForgetPod(uid);
      deadlines_.Add(*d_.backoff.next_attempt);
      return Finish();
    }
    Simulation sim = Simulate(r_, built, snapshot_, /*break_on_failure=*/provisioner == nullptr);
    if (sim.fits) {
      const bool scaled_up = provisioner != nullptr && provisioner->Settled(r_, now_);
      return Book(std::move(sim), scaled_up ? kReasonCapacityIsProvisioned : kReasonCapacityIsFound);
    }
    if (std::string never = NeverFits(built, provisioner); !never.empty()) {
      for (const std::string& uid : sim.assumed) snapshot_.ForgetPod(uid);
      return Fail(kReasonCapacityIsNotFound, std::string(kMessageCapacityIsNotFoundNoRetry) + ": " + never);
    }
    std::string scale_up_detail;
    bool provisioner_done = false;
    if (provisioner != nullptr) {
      ScaleUpOutcome outcome = provisioner->Provision(r_, sim.unfit, snapshot_, now_);
      scale_up_detail = outcome.message;
      provisioner_done = outcome.kind == ScaleUpOutcome::Kind::kProvisioned;
      if (outcome.kind == ScaleUpOutcome::Kind::kInProgress) {
        // While its nodes come, the pods that fit today stay assumed for the rest of the pass,
        // so a later request cannot take the capacity this scale-up counts on.
        if (outcome.requeue_after) deadlines_.Add(now_ + *outcome.requeue_after);
        return Finish();
      }
    }
    for (const std::string& uid : sim.assumed) snapshot_.ForgetPod(uid);
    if (provisioner_done) {
      // Provisioned only once the pods fit on the capacity the provisioner added.
      Simulation again = Simulate(r_, built, snapshot_, /*break_on_failure=*/true);
      if (again.fits) return Book(std::move(again), kReasonCapacityIsProvisioned);
      for (const std::string& uid : again.assumed) snapshot_.ForgetPod(uid);
      sim = std::move(again);
    }

    std::string detail = UnfitDetail(sim.unfit);
    if (!scale_up_detail.empty()) detail += " Scale-up: " + scale_up_detail;
    // Upstream reads noRetry in the check-capacity class only; best-effort-atomic always retries.
    auto no_retry = r_.class_name == kClassCheckCapacity ? r_.parameters.find(kParamNoRetry) : r_.parameters.end();
    if (no_retry != r_.parameters.end() && no_retry->second == "true") {
      return Fail(kReasonCapacityIsNotFound, std::string(kMessageCapacityIsNotFoundNoRetry) + ": " + detail);
    }
    if (no_retry != r_.parameters.end() && no_retry->second != "false") {
      // Upstream ignores any other value (and logs it); the user sees it here instead.
      detail += " parameters." + std::string(kParamNoRetry) + " \"" + no_retry->second +
                "\" is neither \"true\" nor \"false\": ignored, so the check is retried.";
    }
    Set(kConditionProvisioned, kFalse, kReasonCapacityIsNotFound,
        std::string(kMessageCapacityIsNotFound) + " " + detail, kWarning);
    const Duration wait = d_.backoff.backoff > Duration::zero() ? d_.backoff.backoff : options_.initial_backoff;
    d_.backoff.next_attempt = now_ + wait;
    d_.backoff.backoff = std::min(wait * 2, options_.max_backoff);
    deadlines_.Add(*d_.backoff.next_attempt);
    return Finish();
  }

  // NeverFits: the podSets no retry can help, each naming the field; empty when none.
  //   check-capacity: more pods than the nodes' pod slots in all (status.allocatable.pods);
  //   a scale-up class: more than the nodes hold even when empty (requests, filters) plus what
  //   the provisioner could ever add (every node group at its maxSize); not decided when the
  //   provisioner cannot tell.
  // Below these a request stays CapacityIsNotFound and is retried, as nodes may be added.
  std::string NeverFits(const BuiltPods& built, Provisioner* provisioner) {
    std::string out;
    const std::string nodes = "the cluster's " + std::to_string(snapshot_.NodeCount()) + " node(s)";
    for (const PodSetPods& set : built.pod_sets) {
      const std::string field = "spec.podSets[" + std::to_string(set.index) + "].count: " +
                                std::to_string(set.count) + " pods of podTemplate \"" + set.template_name +
                                "\" can never fit: ";
      std::string why;
      if (provisioner == nullptr) {
        const int64_t slots = snapshot_.PodSlots();
        if (set.count > slots) why = nodes + " have " + std::to_string(slots) + " pod slots in all";
      } else {
        const int64_t on_nodes = snapshot_.CopiesOnEmptyNodes(set.pod);
        if (set.count <= on_nodes) continue;
        std::optional<int64_t> added = provisioner->MostPodsAdded(set.pod);
        if (!added || set.count - on_nodes <= *added) continue;
        why = nodes + " hold at most " + std::to_string(on_nodes) +
              " of them even when empty, and every node group at its maxSize at most " + std::to_string(*added) +
              " more";
      }
      if (!why.empty()) out += (out.empty() ? "" : "; ") + field + why;
    }
    return out;
  }

  RequestDecision Book(Simulation sim, std::string_view reason) {
    Set(kConditionProvisioned, kTrue, reason, kMessageCapacityIsFound, kNormal);
    d_.book = std::move(sim.slices);
    d_.release_booking = false;  // the controller replaces any stale slices with `book`
    d_.backoff = {};
    deadlines_.Add(now_ + options_.booking_time);
    return Finish();
  }

  RequestDecision Fail(std::string_view reason, std::string_view message) {
    Set(kConditionFailed, kTrue, reason, message, kWarning);
    Terminal();
    return Finish();
  }

  // Terminal: when the request is terminal, its booking is released and it is deleted
  // terminal_ttl later. Returns whether it is terminal.
  bool Terminal() {
    std::optional<Time> since = TerminalSince(conditions_);
    if (!since) return false;
    d_.release_booking = !r_.booking.empty();
    d_.book.clear();
    d_.backoff = {};
    const Time gc = *since + options_.terminal_ttl;
    if (now_ >= gc) {
      d_.delete_request = true;
    } else {
      deadlines_.Add(gc);
    }
    return true;
  }

  void Set(std::string_view type, std::string_view status, std::string_view reason, const std::string& message,
           std::string_view event_type) {
    if (SetCondition(conditions_, type, status, reason, message, r_.generation, now_)) {
      d_.events.push_back({std::string(event_type), std::string(reason), message});
    }
  }
  void Set(std::string_view type, std::string_view status, std::string_view reason, std::string_view message,
           std::string_view event_type) {
    Set(type, status, reason, std::string(message), event_type);
  }

  RequestDecision Finish() {
    if (conditions_ != r_.conditions) d_.conditions = conditions_;
    d_.state = StateOf(conditions_);
    d_.requeue_after = deadlines_.After(now_);
    return std::move(d_);
  }

  const ProvisioningRequestView& r_;
  const PassInput& input_;
  placement::ClusterSnapshot& snapshot_;
  const Time now_;
  const ProvisioningOptions& options_;
  std::vector<Condition> conditions_;
  Deadlines deadlines_;
  RequestDecision d_;
};

}  // namespace

bool RequestOrder(const ProvisioningRequestView& a, const ProvisioningRequestView& b) {
  if (a.creation_time != b.creation_time) return a.creation_time < b.creation_time;
  return a.uid < b.uid;
}

std::optional<std::expected<int64_t, std::string>> ParseValidUntilSeconds(const ProvisioningRequestView& request) {
  auto it = request.parameters.find(kParamValidUntilSeconds);
  if (it == request.parameters.end()) return std::nullopt;
  const std::string& text = it->second;
  // At most 12 digits (over 31,000 years) keeps creation + N inside the clock's range.
  bool digits = !text.empty() && text.size() <= 12 &&
                std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) {
    return std::unexpected("parameters." + std::string(kParamValidUntilSeconds) + ": \"" + text +
                           "\" is not a whole number of seconds");
  }
  return std::stoll(text);
}

std::vector<RequestDecision> DecidePass(const PassInput& input, placement::ClusterSnapshot& snapshot,
                                        Time now, const ProvisioningOptions& options) {
  std::vector<const ProvisioningRequestView*> order;
  order.reserve(input.requests.size());
  for (const ProvisioningRequestView& r : input.requests) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return RequestOrder(*a, *b); });
  std::vector<RequestDecision> out;
  out.reserve(order.size());
  for (const ProvisioningRequestView* r : order) {
    out.push_back(RequestDecider(*r, input, snapshot, now, options).Decide());
  }
  return out;
}

}  // namespace berth::reconcile::provisioning
