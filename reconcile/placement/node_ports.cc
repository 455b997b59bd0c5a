// reconcile/placement/node_ports.cc — see node_ports.h.
#include "reconcile/placement/node_ports.h"

namespace berth::reconcile::placement {
namespace {
constexpr std::string_view kAnyIp = "0.0.0.0";
}  // namespace

void HostPortUsage::Add(const std::vector<HostPort>& ports, int sign) {
  for (const HostPort& p : ports) {
    auto key = std::make_pair(p.protocol, p.port);
    auto& ips = used_[key];
    int& count = ips[p.ip];
    count += sign;
    if (count <= 0) ips.erase(p.ip);
    if (ips.empty()) used_.erase(key);
  }
}

bool HostPortUsage::Conflicts(const std::vector<HostPort>& wanted) const {
  for (const HostPort& p : wanted) {
    auto it = used_.find(std::make_pair(p.protocol, p.port));
    if (it == used_.end()) continue;
    if (p.ip == kAnyIp) return true;  // 0.0.0.0 collides with every address
    if (it->second.contains(p.ip) || it->second.contains(std::string(kAnyIp))) return true;
  }
  return false;
}

}  // namespace berth::reconcile::placement
