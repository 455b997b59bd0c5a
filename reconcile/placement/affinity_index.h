// reconcile/placement/affinity_index.h
//
// Internal to ClusterSnapshot: the pods InterPodAffinity and PodTopologySpread look at (bound
// and assumed pods, and each active Reservation as the pod its template describes), indexed so
// that a decision touches only the pods its terms can match instead of every pod:
//   - by node (a node's pods: per-node counts for kubernetes.io/hostname spreading);
//   - by label "key=value" (the pods a selector with an In/= requirement can match);
//   - the existing pods' own affinity terms, by the "key=value" their selector requires (the
//     terms that can match an incoming pod: the symmetry of required anti-affinity, and the
//     existing pods' terms InterPodAffinity scoring counts).
// Counts per topology domain are taken from these at decision time (node label of each matched
// pod), so node label changes need no re-indexing.
// Memory: the index owns no member (each lives in the snapshot's pod or reservation entry), and
// files members by label through groups of members sharing one interned label map
// (LabelInterner), so a label bucket lists a workload once, not each of its pods.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "reconcile/placement/types.h"

namespace berth::reconcile::placement::internal {

struct LabelGroup;

struct AffinityMember {
  // The reservation's uid (ConstraintContext::Visible), pointing into its entry's view and set
  // again each time that view may have changed; "" for a pod.
  std::string_view uid;
  // Interned by the snapshot (State::InternNamespace; a namespace's text lives as long as the
  // snapshot), so a pod entry does not carry its own copy.
  std::string_view namespace_name;
  // Interned (LabelInterner): members with equal labels share one map, and the index groups
  // them by its address. Never null.
  std::shared_ptr<const LabelMap> labels;
  std::shared_ptr<const PodAffinity> affinity;  // null when it has no terms
  // Kept by AffinityIndex while the member is filed.
  LabelGroup* group = nullptr;
  uint32_t group_slot = 0;
  int node = -1;
  bool terminating = false;
  bool reservation = false;  // a reservation's reserve pod
};

// LabelGroup: the filed members sharing one interned label map.
struct LabelGroup {
  std::shared_ptr<const LabelMap> labels;
  std::vector<AffinityMember*> members;
};

// LabelInterner: one shared copy of each distinct label map. Maps no member uses any more are
// dropped in a sweep each time the pool has doubled since the last one.
class LabelInterner {
 public:
  std::shared_ptr<const LabelMap> Intern(const LabelMap& labels);
  size_t size() const { return pool_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(const LabelMap& labels) const;
    size_t operator()(const std::shared_ptr<const LabelMap>& labels) const { return (*this)(*labels); }
  };
  struct Equal {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return Deref(a) == Deref(b);
    }
    static const LabelMap& Deref(const LabelMap& m) { return m; }
    static const LabelMap& Deref(const std::shared_ptr<const LabelMap>& m) { return *m; }
  };
  std::unordered_set<std::shared_ptr<const LabelMap>, Hash, Equal> pool_;
  size_t sweep_at_ = 1024;
};

enum class TermKind { kRequiredAffinity, kRequiredAntiAffinity, kPreferredAffinity, kPreferredAntiAffinity };

struct TermRef {
  const AffinityMember* member;
  const PodAffinityTerm* term;
  TermKind kind;
};

class AffinityIndex {
 public:
  AffinityIndex() = default;
  AffinityIndex(const AffinityIndex&) = delete;
  AffinityIndex& operator=(const AffinityIndex&) = delete;

  // Add files `member` (owned by the caller, which keeps it at this address and unchanged until
  // Remove). Remove unfiles it (no-op when not filed). A filed member is re-filed by Remove, a
  // change, then Add.
  void Add(AffinityMember* member);
  void Remove(AffinityMember* member);
  static bool Filed(const AffinityMember& member) { return member.group != nullptr; }

  // ForEachCandidate calls fn(const AffinityMember&) for each member `selector` may match: the
  // members of the smallest label bucket among its In/= requirements, or every member when it
  // has none. A superset: callers still check the selector.
  template <class Fn>
  void ForEachCandidate(const shim::LabelSelector& selector, Fn&& fn) const {
    if (selector.IsNothing()) return;
    const std::vector<std::string>* best = nullptr;
    size_t best_size = SIZE_MAX;
    best_key_.clear();
    for (const shim::LabelRequirement& req : selector.requirements()) {
      if (!IsPositive(req)) continue;
      size_t size = 0;
      for (const std::string& v : req.values) size += BucketSize(req.key, v);
      if (size < best_size) {
        best_size = size;
        best = &req.values;
        best_key_ = req.key;
      }
    }
    if (best == nullptr) {
      for (const auto& on_node : by_node_) {
        for (const AffinityMember* m : on_node) fn(*m);
      }
      return;
    }
    for (const std::string& v : *best) {
      auto it = by_label_.find(LabelKey(best_key_, v));
      if (it == by_label_.end()) continue;
      for (const LabelGroup* group : it->second) {
        for (const AffinityMember* m : group->members) fn(*m);
      }
    }
  }

  // ForEachTermFor calls fn(const TermRef&) for each existing term whose selector may match a
  // pod with `labels` (again a superset).
  template <class Fn>
  void ForEachTermFor(const LabelMap& labels, Fn&& fn) const {
    if (terms_.empty()) return;
    for (const auto& [k, v] : labels) {
      auto it = terms_.find(LabelKey(k, v));
      if (it == terms_.end()) continue;
      for (const TermRef& t : it->second) fn(t);
    }
    if (auto it = terms_.find(std::string_view("*")); it != terms_.end()) {
      for (const TermRef& t : it->second) fn(t);
    }
  }

  bool HasTerms() const { return !terms_.empty(); }
  // HasScoringTerms: some member has a term InterPodAffinity scoring counts (required affinity,
  // preferred affinity or anti-affinity; required anti-affinity only filters).
  bool HasScoringTerms() const { return scoring_terms_ > 0; }
  // OnNode: the members on node index `node` (empty for an unknown index).
  const std::vector<const AffinityMember*>& OnNode(int node) const;
  size_t size() const { return size_; }

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  static bool IsPositive(const shim::LabelRequirement& req) {
    using Op = shim::SelectorOperator;
    return req.op == Op::kIn || req.op == Op::kEquals || req.op == Op::kDoubleEquals;
  }
  std::string_view LabelKey(std::string_view key, std::string_view value) const {
    key_buffer_.assign(key).append("=").append(value);
    return key_buffer_;
  }
  size_t BucketSize(std::string_view key, std::string_view value) const {
    auto it = by_label_.find(LabelKey(key, value));
    if (it == by_label_.end()) return 0;
    size_t size = 0;
    for (const LabelGroup* group : it->second) size += group->members.size();
    return size;
  }
  void FileTerms(const AffinityMember& m, bool add);
  // TermKeys: the buckets a term is filed under ("key=value" of its first In/= requirement).
  static std::vector<std::string> TermKeys(const PodAffinityTerm& term);

  // Groups by the address of their interned label map; by_label_ lists each group under each of
  // its "key=value" pairs.
  std::unordered_map<const LabelMap*, std::unique_ptr<LabelGroup>> groups_;
  StringMap<std::vector<const LabelGroup*>> by_label_;
  std::vector<std::vector<const AffinityMember*>> by_node_;  // members with node >= 0
  size_t size_ = 0;
  StringMap<std::vector<TermRef>> terms_;
  mutable std::string key_buffer_;
  mutable std::string best_key_;
  int64_t scoring_terms_ = 0;
};

}  // namespace berth::reconcile::placement::internal
