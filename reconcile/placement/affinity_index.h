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
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "reconcile/placement/types.h"

namespace berth::reconcile::placement::internal {

struct AffinityMember {
  std::string uid;  // the pod's uid, or the reservation's
  int node = -1;
  std::string namespace_name;
  LabelMap labels;
  bool terminating = false;
  bool reservation = false;  // a reservation's reserve pod
  std::shared_ptr<const PodAffinity> affinity;
};

enum class TermKind { kRequiredAffinity, kRequiredAntiAffinity, kPreferredAffinity, kPreferredAntiAffinity };

struct TermRef {
  const AffinityMember* member;
  const PodAffinityTerm* term;
  TermKind kind;
};

class AffinityIndex {
 public:
  // Add files `member` under `key` (the address of the snapshot entry it stands for), replacing
  // what was filed under it. Remove unfiles it (no-op when absent).
  void Add(const void* key, AffinityMember member);
  void Remove(const void* key);

  // ForEachCandidate calls fn(const AffinityMember&) for each member `selector` may match: the
  // members of the smallest label bucket among its In/= requirements, or every member when it
  // has none. A superset: callers still check the selector.
  template <class Fn>
  void ForEachCandidate(const shim::LabelSelector& selector, Fn&& fn) const {
    if (selector.IsNothing()) return;
    const std::vector<std::string>* best = nullptr;
    size_t best_size = SIZE_MAX;
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
      for (const auto& [key, member] : members_) fn(*member);
      return;
    }
    for (const std::string& v : *best) {
      auto it = by_label_.find(LabelKey(best_key_, v));
      if (it == by_label_.end()) continue;
      for (const AffinityMember* m : it->second) fn(*m);
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
  size_t size() const { return members_.size(); }

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
    return it == by_label_.end() ? 0 : it->second.size();
  }
  void FileTerms(const AffinityMember& m, bool add);
  // TermKeys: the buckets a term is filed under ("key=value" of its first In/= requirement).
  static std::vector<std::string> TermKeys(const PodAffinityTerm& term);

  std::unordered_map<const void*, std::unique_ptr<AffinityMember>> members_;
  StringMap<std::unordered_set<const AffinityMember*>> by_label_;
  std::vector<std::vector<const AffinityMember*>> by_node_;
  StringMap<std::vector<TermRef>> terms_;
  mutable std::string key_buffer_;
  mutable std::string best_key_;
  int64_t scoring_terms_ = 0;
};

}  // namespace berth::reconcile::placement::internal
