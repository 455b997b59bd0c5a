// reconcile/placement/topology_index.h
//
// Internal to ClusterSnapshot: every present node's topology domain (the value of each of its
// labels) as a small integer per label key, so that InterPodAffinity and PodTopologySpread, once
// their per-domain counts are built for a decision, judge each node with two array reads instead
// of a label-map lookup and a string hash (a full scan visits every node of the cluster). Also
// counts the present nodes per domain (PodTopologySpread's eligible domains).
// A value keeps its id for the life of the index, so ids stay valid across node updates; a domain
// without present nodes has NodesIn() == 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "reconcile/placement/types.h"

namespace berth::reconcile::placement::internal {

class TopologyIndex {
 public:
  // Key: one label key's domains.
  class Key {
   public:
    // DomainOf: the domain id of node index `node`, -1 when the node is not present or lacks
    // the label.
    int32_t DomainOf(int node) const {
      return node >= 0 && static_cast<size_t>(node) < node_domain_.size() ? node_domain_[node] : -1;
    }
    // DomainId: the id of `value`, -1 when no node ever carried it.
    int32_t DomainId(std::string_view value) const;
    // Domains: how many ids exist (those with no present node included).
    int32_t Domains() const { return static_cast<int32_t>(values_.size()); }
    const std::string& Value(int32_t id) const { return values_[id]; }
    // NodesIn: the present nodes in domain `id`.
    int32_t NodesIn(int32_t id) const { return nodes_in_[id]; }

   private:
    friend class TopologyIndex;
    int32_t Intern(std::string_view value);
    struct Hash {
      using is_transparent = void;
      size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ids_;
    std::vector<std::string> values_;   // id → value
    std::vector<int32_t> nodes_in_;     // id → present nodes
    std::vector<int32_t> node_domain_;  // node index → id, -1 when absent
  };

  // SetNode records that present node `node` now carries `labels`, replacing what it carried
  // before (`before`, nullptr when it was not present).
  void SetNode(int node, const LabelMap* before, const LabelMap& labels);
  // RemoveNode: node `node`, which carried `labels`, is no longer present.
  void RemoveNode(int node, const LabelMap& labels);
  // Find: the index of label key `key`, nullptr when no node ever carried it.
  const Key* Find(std::string_view key) const;

 private:
  void Drop(int node, std::string_view key);
  std::unordered_map<std::string, Key, Key::Hash, std::equal_to<>> keys_;
};

}  // namespace berth::reconcile::placement::internal
