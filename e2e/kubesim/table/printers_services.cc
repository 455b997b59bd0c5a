// Printers for core/v1 services and endpoints, following kube-apiserver's
// pkg/printers/internalversion (v1.32).
#include <set>
#include <string>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/table/printer_support.h"

namespace berth::kubesim::table {
namespace {

constexpr std::string_view kNone = "<none>";
constexpr std::string_view kUnknown = "<unknown>";

// --- services, endpoints ----------------------------------------------------------------------

constexpr ColumnDefinition kServiceColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Type", "string", "", "type determines how the Service is exposed.", 0},
    {"Cluster-IP", "string", "",
     "clusterIP is the IP address of the service and is usually assigned randomly.", 0},
    {"External-IP", "string", "",
     "externalIPs is a list of IP addresses for which nodes in the cluster will also accept "
     "traffic for this service.", 0},
    {"Port(s)", "string", "", "The list of ports that are exposed by this service.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Selector", "string", "",
     "Route service traffic to pods with label keys and values matching this selector.", 1},
};

std::string JoinStrings(const rapidjson::Value* arr) {
  std::string out;
  if (arr == nullptr) return out;
  for (const auto& v : arr->GetArray()) {
    if (!v.IsString()) continue;
    out.append(out.empty() ? "" : ",").append(v.GetString(), v.GetStringLength());
  }
  return out;
}

std::string ServiceExternalIP(const rapidjson::Value& svc) {
  const std::string_view type = Str(svc, {"spec", "type"});
  const std::string external = JoinStrings(Arr(svc, {"spec", "externalIPs"}));
  if (type == "ClusterIP" || type == "NodePort") return external.empty() ? std::string(kNone) : external;
  if (type == "LoadBalancer") {
    std::set<std::string_view> lb;  // a set upstream too; sorted here for determinism
    if (const rapidjson::Value* ing = Arr(svc, {"status", "loadBalancer", "ingress"})) {
      for (const auto& i : ing->GetArray()) {
        if (!Str(i, {"ip"}).empty()) {
          lb.insert(Str(i, {"ip"}));
        } else if (!Str(i, {"hostname"}).empty()) {
          lb.insert(Str(i, {"hostname"}));
        }
      }
    }
    std::string out;
    for (std::string_view s : lb) out.append(out.empty() ? "" : ",").append(s);
    if (!external.empty()) return out.empty() ? external : out + "," + external;
    return out.empty() ? "<pending>" : out;
  }
  if (type == "ExternalName") return std::string(Str(svc, {"spec", "externalName"}));
  return std::string(kUnknown);
}

void PrintService(const rapidjson::Value& svc, TimePoint now, RowOutput& row, Allocator& alloc) {
  std::string cluster_ip(kNone);
  const rapidjson::Value* ips = Arr(svc, {"spec", "clusterIPs"});
  if (ips != nullptr && !ips->Empty() && (*ips)[0].IsString()) {
    cluster_ip = (*ips)[0].GetString();
  } else if (!Str(svc, {"spec", "clusterIP"}).empty()) {
    cluster_ip = Str(svc, {"spec", "clusterIP"});  // servers mirror clusterIP into clusterIPs
  }
  std::string ports;
  if (const rapidjson::Value* ps = Arr(svc, {"spec", "ports"})) {
    for (const auto& p : ps->GetArray()) {
      std::string_view protocol = Str(p, {"protocol"});
      if (protocol.empty()) protocol = "TCP";  // the apiserver defaults it
      std::string piece = std::to_string(Int(p, {"port"}));
      if (Int(p, {"nodePort"}) > 0) piece += ":" + std::to_string(Int(p, {"nodePort"}));
      piece.append("/").append(protocol);
      ports.append(ports.empty() ? "" : ",").append(piece);
    }
  }
  AddCell(row, Str(svc, {"metadata", "name"}), alloc);
  AddCell(row, Str(svc, {"spec", "type"}), alloc);
  AddCell(row, cluster_ip, alloc);
  AddCell(row, ServiceExternalIP(svc), alloc);
  AddCell(row, ports.empty() ? std::string(kNone) : ports, alloc);
  AddCell(row, Age(svc, now), alloc);
  AddCell(row, FormatLabels(json::Find(svc, {"spec", "selector"})), alloc);
}

constexpr ColumnDefinition kEndpointsColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Endpoints", "string", "",
     "The set of all endpoints is the union of all subsets. Addresses are placed into subsets "
     "according to the IPs they share.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
};

std::string FormatEndpoints(const rapidjson::Value& ep) {
  const rapidjson::Value* subsets = Arr(ep, {"subsets"});
  if (subsets == nullptr || subsets->Empty()) return std::string(kNone);
  std::vector<std::string> list;
  constexpr size_t kMax = 3;
  bool more = false;
  size_t count = 0;
  for (const auto& ss : subsets->GetArray()) {
    const rapidjson::Value* addrs = Arr(ss, {"addresses"});
    const size_t n = addrs ? addrs->Size() : 0;
    const rapidjson::Value* ports = Arr(ss, {"ports"});
    if (ports == nullptr || ports->Empty()) {
      count += n;  // headless services may have no ports
      for (size_t i = 0; i < n; ++i) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        list.emplace_back(Str((*addrs)[static_cast<rapidjson::SizeType>(i)], {"ip"}));
      }
      continue;
    }
    for (const auto& port : ports->GetArray()) {
      count += n;
      for (size_t i = 0; i < n; ++i) {
        if (list.size() == kMax) {
          more = true;
          break;
        }
        const std::string ip(Str((*addrs)[static_cast<rapidjson::SizeType>(i)], {"ip"}));
        const std::string host = ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
        list.push_back(host + ":" + std::to_string(Int(port, {"port"})));
      }
    }
  }
  std::string out;
  for (const auto& s : list) out.append(out.empty() ? "" : ",").append(s);
  if (more) out += " + " + std::to_string(count - kMax) + " more...";
  return out;
}

void PrintEndpoints(const rapidjson::Value& ep, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(ep, {"metadata", "name"}), alloc);
  AddCell(row, FormatEndpoints(ep), alloc);
  AddCell(row, Age(ep, now), alloc);
}

constexpr BuiltinPrinter kServicePrinters[] = {
    {"", "services", kServiceColumns, PrintService},
    {"", "endpoints", kEndpointsColumns, PrintEndpoints},
};

}  // namespace

std::span<const BuiltinPrinter> ServicePrinters() { return kServicePrinters; }

}  // namespace berth::kubesim::table
