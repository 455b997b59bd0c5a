// reconcile/placement/node_ports.h — kube-scheduler's NodePorts filter: a pod's host ports
// (containers[].ports[].hostPort, and restartable init containers') must not collide with those
// of the pods already on the node. Same protocol and port collide when either hostIP is
// 0.0.0.0 or both are equal; protocol defaults to TCP, hostIP to 0.0.0.0.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::reconcile::placement {

inline constexpr std::string_view kReasonNodePorts = "node(s) didn't have free ports for the requested pod ports";

struct HostPort {
  std::string protocol = "TCP";
  std::string ip = "0.0.0.0";
  int32_t port = 0;
  bool operator==(const HostPort&) const = default;
};

// HostPortUsage: the host ports in use on one node, counted per (protocol, port) and hostIP, so
// that a check is a few map lookups (no scan of the node's pods).
class HostPortUsage {
 public:
  void Add(const std::vector<HostPort>& ports, int sign);
  // Conflicts: whether any of `wanted` collides with a port in use.
  bool Conflicts(const std::vector<HostPort>& wanted) const;
  bool empty() const { return used_.empty(); }

 private:
  std::map<std::pair<std::string, int32_t>, std::map<std::string, int>> used_;
};

}  // namespace berth::reconcile::placement
