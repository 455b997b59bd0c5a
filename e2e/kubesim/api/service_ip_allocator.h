// e2e/kubesim/api/service_ip_allocator.h
//
// The Service address allocators of kube-apiserver's service REST storage: ClusterIPs from the
// service CIDR (default 10.96.0.0/12) and NodePorts from 30000-32767. Create reserves the
// addresses a Service needs (requested or picked at random, as upstream does), update keeps the
// ones the old object held, delete releases them. Errors carry the apiserver's field wording.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {

// ParseIpv4 parses dotted-quad text ("10.96.0.1"). Returns nullopt for anything else.
std::optional<uint32_t> ParseIpv4(std::string_view text);
// FormatIpv4 renders an address as dotted-quad text.
std::string FormatIpv4(uint32_t ip);

// ServiceAllocation: the addresses one Assign call newly reserved (to undo a failed write).
struct ServiceAllocation {
  std::vector<uint32_t> ips;
  std::vector<int64_t> node_ports;
};

// ServiceAddressAllocator: see the file comment. Thread-safe.
class ServiceAddressAllocator {
 public:
  // `cidr` like "10.96.0.0/12"; node ports are [port_min, port_max].
  explicit ServiceAddressAllocator(std::string_view cidr = "10.96.0.0/12", int64_t port_min = 30000,
                                   int64_t port_max = 32767);

  // Assign completes spec.clusterIP/clusterIPs and spec.ports[].nodePort of `service` (a
  // defaulted v1 Service) and reserves them. `old` is the stored object on update (null on
  // create): its addresses are kept when the new object leaves them unset, and stay reserved.
  // With `dry_run` nothing is reserved. Returns the field errors (nothing reserved then);
  // `reserved` receives what this call reserved.
  std::vector<StatusCause> Assign(rapidjson::Value& service, const rapidjson::Value* old,
                                  rapidjson::Document::AllocatorType& a, bool dry_run,
                                  ServiceAllocation* reserved);
  // Release frees what an Assign reserved (the write it was for failed).
  void Release(const ServiceAllocation& allocation);
  // ReleaseDropped frees the addresses `service` holds that `kept` (may be null: all) does not.
  void ReleaseDropped(const rapidjson::Value& service, const rapidjson::Value* kept);

  // IsAllocated reports whether an address or node port is reserved (for tests and checks).
  bool IsIpAllocated(uint32_t ip) const;
  bool IsNodePortAllocated(int64_t port) const;
  const std::string& cidr() const { return cidr_; }

 private:
  std::optional<uint32_t> PickIp();
  std::optional<int64_t> PickNodePort();

  std::string cidr_;
  uint32_t first_ = 0, last_ = 0;  // usable range: network+1 .. broadcast-1
  int64_t port_min_, port_max_;
  mutable std::mutex mu_;
  std::set<uint32_t> ips_;
  std::set<int64_t> ports_;
  std::mt19937_64 rng_;
};

}  // namespace berth::kubesim
