// e2e/kubesim/api/service_ip_allocator.cc
#include "e2e/kubesim/api/service_ip_allocator.h"

#include <algorithm>
#include <charconv>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using rapidjson::Value;

const Value kEmptyObject(rapidjson::kObjectType);

const Value& SpecOf(const Value& service) {
  const Value* spec = service.IsObject() ? json::Member(service, "spec") : nullptr;
  return spec && spec->IsObject() ? *spec : kEmptyObject;
}

std::string_view TypeOf(const Value& spec) { return json::GetString(spec, {"type"}, "ClusterIP"); }

bool NeedsClusterIp(const Value& spec) { return TypeOf(spec) != "ExternalName"; }

bool NeedsNodePorts(const Value& spec) {
  std::string_view type = TypeOf(spec);
  if (type == "NodePort") return true;
  if (type != "LoadBalancer") return false;
  const Value* allocate = json::Member(spec, "allocateLoadBalancerNodePorts");
  return !allocate || !allocate->IsBool() || allocate->GetBool();
}

int64_t NodePortOf(const Value& port) {
  const Value* np = port.IsObject() ? json::Member(port, "nodePort") : nullptr;
  return np && np->IsInt64() ? np->GetInt64() : 0;
}

// HeldIps / HeldNodePorts: what a stored Service occupies.
std::vector<uint32_t> HeldIps(const Value& spec) {
  std::vector<uint32_t> out;
  if (!NeedsClusterIp(spec)) return out;
  if (const Value* ips = json::Member(spec, "clusterIPs"); ips && ips->IsArray()) {
    for (const auto& ip : ips->GetArray()) {
      if (!ip.IsString()) continue;
      if (auto parsed = ParseIpv4(ip.GetString())) out.push_back(*parsed);
    }
  }
  if (out.empty()) {
    if (auto parsed = ParseIpv4(json::GetString(spec, {"clusterIP"}))) out.push_back(*parsed);
  }
  return out;
}

std::vector<int64_t> HeldNodePorts(const Value& spec) {
  std::vector<int64_t> out;
  if (!NeedsNodePorts(spec)) return out;
  if (const Value* ports = json::Member(spec, "ports"); ports && ports->IsArray()) {
    for (const auto& p : ports->GetArray()) {
      if (int64_t np = NodePortOf(p); np > 0) out.push_back(np);
    }
  }
  return out;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

void SetStringList(Value& spec, std::string_view key, std::string_view value, rapidjson::Document::AllocatorType& a) {
  Value list(rapidjson::kArrayType);
  list.PushBack(Value(value.data(), static_cast<rapidjson::SizeType>(value.size()), a), a);
  json::SetMember(spec, key, std::move(list), a);
}

// DropTypeDependentFields: a type change that leaves the old addresses in place (an edited or
// patched object still carries them) drops them, as the service strategy's PrepareForUpdate does.
void DropTypeDependentFields(Value& spec, const Value& old_spec) {
  if (NeedsClusterIp(old_spec) && !NeedsClusterIp(spec)) {
    for (std::string_view key : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
      const Value* now = json::Member(spec, key);
      const Value* before = json::Member(old_spec, key);
      if (now && before && *now == *before) json::RemoveMember(spec, key);
    }
  }
  if (NeedsNodePorts(old_spec) && !NeedsNodePorts(spec)) {
    const Value* old_ports = json::Member(old_spec, "ports");
    Value* ports = json::FindMutable(spec, {"ports"});
    if (!ports || !ports->IsArray() || !old_ports || !old_ports->IsArray()) return;
    bool same = true;
    for (rapidjson::SizeType i = 0; i < ports->Size(); ++i) {
      int64_t np = NodePortOf((*ports)[i]);
      if (np != 0 && (i >= old_ports->Size() || NodePortOf((*old_ports)[i]) != np)) same = false;
    }
    if (!same) return;
    for (auto& p : ports->GetArray()) {
      if (p.IsObject()) json::RemoveMember(p, "nodePort");
    }
  }
}

}  // namespace

std::optional<uint32_t> ParseIpv4(std::string_view text) {
  uint32_t ip = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (text.empty() || text.front() != '.') return std::nullopt;
      text.remove_prefix(1);
    }
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    // Go's net.ParseIP refuses leading zeros ("010.0.0.1") since 1.17.
    if (digits == 0 || digits > 3 || (digits > 1 && text.front() == '0')) return std::nullopt;
    unsigned value = 0;
    std::from_chars(text.data(), text.data() + digits, value);
    if (value > 255) return std::nullopt;
    ip = (ip << 8) | value;
    text.remove_prefix(digits);
  }
  if (!text.empty()) return std::nullopt;
  return ip;
}

std::string FormatIpv4(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 0xFF) + "." + std::to_string((ip >> 8) & 0xFF) +
         "." + std::to_string(ip & 0xFF);
}

ServiceAddressAllocator::ServiceAddressAllocator(std::string_view cidr, int64_t port_min, int64_t port_max)
    : cidr_(cidr), port_min_(port_min), port_max_(port_max), rng_(std::random_device{}()) {
  auto slash = cidr.find('/');
  auto base = ParseIpv4(cidr.substr(0, slash));
  int bits = 24;
  if (slash != std::string_view::npos) {
    std::from_chars(cidr.data() + slash + 1, cidr.data() + cidr.size(), bits);
  }
  bits = std::clamp(bits, 8, 30);
  uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
  uint32_t network = base.value_or(0x0A600000) & mask;
  first_ = network + 1;
  last_ = (network | ~mask) - 1;
}

bool ServiceAddressAllocator::IsIpAllocated(uint32_t ip) const {
  std::lock_guard lock(mu_);
  return ips_.contains(ip);
}

bool ServiceAddressAllocator::IsNodePortAllocated(int64_t port) const {
  std::lock_guard lock(mu_);
  return ports_.contains(port);
}

// PickIp: upstream prefers the upper part of the range for dynamic addresses and keeps a
// static band at the start (min(max(16, size/16), 256) addresses) for requested ones.
std::optional<uint32_t> ServiceAddressAllocator::PickIp() {
  uint64_t size = uint64_t{last_} - first_ + 1;
  uint64_t band = std::min<uint64_t>(std::max<uint64_t>(16, size / 16), 256);
  if (band >= size) band = 0;
  for (auto [from, count] : {std::pair{band, size - band}, std::pair{uint64_t{0}, size}}) {
    uint64_t start = rng_() % count;
    for (uint64_t i = 0; i < count; ++i) {
      uint32_t ip = static_cast<uint32_t>(first_ + from + (start + i) % count);
      if (!ips_.contains(ip)) return ip;
    }
  }
  return std::nullopt;
}

std::optional<int64_t> ServiceAddressAllocator::PickNodePort() {
  int64_t size = port_max_ - port_min_ + 1;
  int64_t band = std::min<int64_t>(std::max<int64_t>(16, size / 32), 128);
  if (band >= size) band = 0;
  for (auto [from, count] : {std::pair{band, size - band}, std::pair{int64_t{0}, size}}) {
    int64_t start = static_cast<int64_t>(rng_() % static_cast<uint64_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      int64_t port = port_min_ + from + (start + i) % count;
      if (!ports_.contains(port)) return port;
    }
  }
  return std::nullopt;
}

std::vector<StatusCause> ServiceAddressAllocator::Assign(Value& service, const Value* old,
                                                         rapidjson::Document::AllocatorType& a, bool dry_run,
                                                         ServiceAllocation* reserved) {
  std::vector<StatusCause> causes;
  ServiceAllocation mine;
  if (!service.IsObject()) return causes;
  Value& spec = json::EnsureObject(service, "spec", a);
  const Value& old_spec = old ? SpecOf(*old) : kEmptyObject;
  bool old_needs_ip = old && NeedsClusterIp(old_spec);
  std::vector<int64_t> old_ports = old ? HeldNodePorts(old_spec) : std::vector<int64_t>{};

  if (old) DropTypeDependentFields(spec, old_spec);
  std::lock_guard lock(mu_);
  if (NeedsClusterIp(spec)) {
    std::string ip(json::GetString(spec, {"clusterIP"}));
    const Value* ips = json::Member(spec, "clusterIPs");
    bool has_ips = ips && ips->IsArray() && !ips->Empty() && (*ips)[0].IsString();
    const Value* old_list = old ? json::Member(old_spec, "clusterIPs") : nullptr;
    std::string old_ip(old ? json::GetString(old_spec, {"clusterIP"}) : std::string_view());
    bool same_list = old_list && ips && *old_list == *ips;
    if (old_needs_ip) {
      // patchAllocatedValues: an update that leaves the addresses unset keeps the old ones.
      if (ip.empty()) ip = old_ip;
      if (!has_ips && old_list && old_list->IsArray() && !old_list->Empty()) {
        json::SetMember(spec, "clusterIPs", Value(*old_list, a), a);
        same_list = true;
      }
    }
    if (old && ip != old_ip && same_list) {
      // normalizeClusterIPs: a client that changed only the singular field means the plural too.
      json::RemoveMember(spec, "clusterIPs");
    }
    ips = json::Member(spec, "clusterIPs");
    has_ips = ips && ips->IsArray() && !ips->Empty() && (*ips)[0].IsString();
    if (ip.empty() && has_ips) ip = (*ips)[0].GetString();
    if (!ip.empty() && has_ips && ip != (*ips)[0].GetString()) {
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: " + Quoted((*ips)[0].GetString()) + ": must match `clusterIP` when provided",
                        "spec.clusterIPs[0]"});
    } else if (ip == "None") {
      json::SetString(spec, "clusterIP", "None", a);
      if (!has_ips) SetStringList(spec, "clusterIPs", "None", a);
    } else if (ip.empty()) {
      auto picked = PickIp();
      if (!picked) {
        causes.push_back({"FieldValueInvalid", "failed to allocate a serviceIP: range is full", "spec.clusterIPs"});
      } else {
        ips_.insert(*picked);
        mine.ips.push_back(*picked);
        std::string text = FormatIpv4(*picked);
        json::SetString(spec, "clusterIP", text, a);
        SetStringList(spec, "clusterIPs", text, a);
      }
    } else {
      auto parsed = ParseIpv4(ip);
      std::string go_list = "[]string{" + Quoted(ip) + "}";
      if (!old_needs_ip) old_ip.clear();
      if (!parsed) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + Quoted(ip) + ": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
                          "spec.clusterIPs[0]"});
      } else if (!old_ip.empty() && old_ip == ip) {
        // Unchanged: the old object holds it.
      } else if (!old_ip.empty()) {
        causes.push_back({"FieldValueInvalid", "Invalid value: " + Quoted(ip) + ": may not change once set",
                          "spec.clusterIPs[0]"});
      } else if (*parsed < first_ || *parsed > last_) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + go_list + ": failed to allocate IP " + ip + ": the provided IP (" + ip +
                              ") is not in the valid range. The range of valid IPs is " + cidr_,
                          "spec.clusterIPs"});
      } else if (ips_.contains(*parsed)) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + go_list + ": failed to allocate IP " + ip + ": provided IP is already allocated",
                          "spec.clusterIPs"});
      } else {
        ips_.insert(*parsed);
        mine.ips.push_back(*parsed);
      }
      if (causes.empty()) {
        json::SetString(spec, "clusterIP", ip, a);
        if (!has_ips) SetStringList(spec, "clusterIPs", ip, a);
      }
    }
  }

  Value* ports = json::FindMutable(spec, {"ports"});
  if (ports && ports->IsArray()) {
    bool needs = NeedsNodePorts(spec);
    bool old_needs = old && NeedsNodePorts(old_spec);
    std::set<int64_t> claimed;  // explicit node ports of this object, for the Duplicate check
    for (const auto& p : ports->GetArray()) {
      if (int64_t np = NodePortOf(p); np > 0) claimed.insert(np);
    }
    std::set<int64_t> seen;
    for (rapidjson::SizeType i = 0; i < ports->Size(); ++i) {
      Value& port = (*ports)[i];
      if (!port.IsObject()) continue;
      std::string field = "spec.ports[" + std::to_string(i) + "].nodePort";
      int64_t np = NodePortOf(port);
      if (!needs) {
        if (np != 0 && TypeOf(spec) == "ClusterIP") {
          causes.push_back({"FieldValueForbidden", "Forbidden: may not be used when `type` is 'ClusterIP'", field});
        }
        continue;
      }
      if (np == 0 && old_needs) {
        // patchAllocatedValues: keep the old node port of the port with the same name.
        std::string_view name = json::GetString(port, {"name"});
        if (const Value* old_list = json::Member(old_spec, "ports"); old_list && old_list->IsArray()) {
          for (const auto& op : old_list->GetArray()) {
            if (json::GetString(op, {"name"}) == name && NodePortOf(op) > 0 && !claimed.contains(NodePortOf(op))) {
              np = NodePortOf(op);
              break;
            }
          }
        }
      }
      std::string text = std::to_string(np);
      if (np == 0) {
        auto picked = PickNodePort();
        if (!picked) {
          causes.push_back({"FieldValueInvalid", "failed to allocate a nodePort: range is full", field});
          continue;
        }
        np = *picked;
        ports_.insert(np);
        mine.node_ports.push_back(np);
      } else if (seen.contains(np)) {
        causes.push_back({"FieldValueDuplicate", "Duplicate value: " + text, field});
        continue;
      } else if (std::find(old_ports.begin(), old_ports.end(), np) != old_ports.end()) {
        // The old object holds it.
      } else if (np < port_min_ || np > port_max_) {
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: " + text + ": provided port is not in the valid range. The range of valid ports is " +
                              std::to_string(port_min_) + "-" + std::to_string(port_max_),
                          field});
        continue;
      } else if (ports_.contains(np)) {
        causes.push_back({"FieldValueInvalid", "Invalid value: " + text + ": provided port is already allocated", field});
        continue;
      } else {
        ports_.insert(np);
        mine.node_ports.push_back(np);
      }
      seen.insert(np);
      json::SetMember(port, "nodePort", Value(np), a);
    }
  }

  if (!causes.empty() || dry_run) {
    for (uint32_t ip : mine.ips) ips_.erase(ip);
    for (int64_t np : mine.node_ports) ports_.erase(np);
    mine = {};
  }
  if (reserved) *reserved = std::move(mine);
  return causes;
}

void ServiceAddressAllocator::Release(const ServiceAllocation& allocation) {
  std::lock_guard lock(mu_);
  for (uint32_t ip : allocation.ips) ips_.erase(ip);
  for (int64_t np : allocation.node_ports) ports_.erase(np);
}

void ServiceAddressAllocator::ReleaseDropped(const Value& service, const Value* kept) {
  const Value& spec = SpecOf(service);
  std::vector<uint32_t> keep_ips = kept ? HeldIps(SpecOf(*kept)) : std::vector<uint32_t>{};
  std::vector<int64_t> keep_ports = kept ? HeldNodePorts(SpecOf(*kept)) : std::vector<int64_t>{};
  std::lock_guard lock(mu_);
  for (uint32_t ip : HeldIps(spec)) {
    if (std::find(keep_ips.begin(), keep_ips.end(), ip) == keep_ips.end()) ips_.erase(ip);
  }
  for (int64_t np : HeldNodePorts(spec)) {
    if (std::find(keep_ports.begin(), keep_ports.end(), np) == keep_ports.end()) ports_.erase(np);
  }
}

}  // namespace berth::kubesim
