// Printers for core/v1 resources and coordination.k8s.io leases, following
// kube-apiserver's pkg/printers/internalversion (v1.32). The server always emits the wide
// (priority 1) cells; kubectl drops them unless `-o wide`.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/table/printer_support.h"

namespace berth::kubesim::table {
namespace {

constexpr std::string_view kNone = "<none>";
constexpr std::string_view kUnknown = "<unknown>";

// --- pods -------------------------------------------------------------------------------------

constexpr ColumnDefinition kPodColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0},
    {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
    {"Restarts", "string", "",
     "The number of times the containers in this pod have been restarted and when the last "
     "container in this pod has restarted.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"IP", "string", "",
     "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet "
     "allocated.", 1},
    {"Node", "string", "",
     "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate "
     "for scheduling by the scheduler defined in schedulerName. Once this field is set, the "
     "kubelet for this node becomes responsible for the lifecycle of this pod.", 1},
    {"Nominated Node", "string", "",
     "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot "
     "be scheduled right away as preemption victims receive their graceful termination periods.",
     1},
    {"Readiness Gates", "string", "",
     "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when "
     "all its containers are ready AND all conditions specified in the readiness gates have "
     "status equal to \"True\"", 1},
};

bool IsRestartable(const rapidjson::Value* init_container) {
  return init_container != nullptr && Str(*init_container, {"restartPolicy"}) == "Always";
}

bool HasCondition(const rapidjson::Value& pod, std::string_view type) {
  if (const rapidjson::Value* conds = Arr(pod, {"status", "conditions"})) {
    for (const auto& c : conds->GetArray()) {
      if (Str(c, {"type"}) == type && Str(c, {"status"}) == "True") return true;
    }
  }
  return false;
}

// MaxTimestamp keeps the later of `current` and lastState.terminated.finishedAt.
void TrackLastRestart(const rapidjson::Value& status, std::optional<Timestamp>& current) {
  if (!Has(status, {"lastState", "terminated"})) return;
  std::optional<Timestamp> finished =
      ParseTimestampField(json::Find(status, {"lastState", "terminated", "finishedAt"}));
  if (!finished) return;
  auto key = [](const Timestamp& t) { return std::pair(t.seconds, t.nanos); };
  if (!current || key(*current) < key(*finished)) current = finished;
}

std::string TerminatedText(const rapidjson::Value& status, std::string_view prefix) {
  const int64_t signal = Int(status, {"state", "terminated", "signal"});
  if (signal != 0) return std::string(prefix) + "Signal:" + std::to_string(signal);
  return std::string(prefix) + "ExitCode:" + std::to_string(Int(status, {"state", "terminated", "exitCode"}));
}

void PrintPod(const rapidjson::Value& pod, TimePoint now, RowOutput& row, Allocator& alloc) {
  const rapidjson::Value* containers = Arr(pod, {"spec", "containers"});
  const rapidjson::Value* init_specs = Arr(pod, {"spec", "initContainers"});
  int64_t total = containers ? containers->Size() : 0;
  int64_t ready = 0;
  int64_t restarts = 0;
  int64_t restartable_restarts = 0;
  std::optional<Timestamp> last_restart, last_restartable_restart;

  const std::string_view phase = Str(pod, {"status", "phase"});
  std::string reason(phase);
  if (!Str(pod, {"status", "reason"}).empty()) reason = Str(pod, {"status", "reason"});
  if (const rapidjson::Value* conds = Arr(pod, {"status", "conditions"})) {
    for (const auto& c : conds->GetArray()) {
      if (Str(c, {"type"}) == "PodScheduled" && Str(c, {"reason"}) == "SchedulingGated") {
        reason = "SchedulingGated";
      }
    }
  }
  auto add_condition = [&](std::string_view why, std::string_view message) {
    rapidjson::Value c(rapidjson::kObjectType);
    json::SetMember(c, "type", MakeString("Completed", alloc), alloc);
    json::SetMember(c, "status", MakeString("True", alloc), alloc);
    json::SetMember(c, "reason", MakeString(why, alloc), alloc);
    json::SetMember(c, "message", MakeString(message, alloc), alloc);
    row.conditions.PushBack(c, alloc);
  };
  if (phase == "Succeeded") add_condition("Succeeded", "The pod has completed successfully.");
  if (phase == "Failed") add_condition("Failed", "The pod failed.");

  std::map<std::string_view, const rapidjson::Value*> init_by_name;
  if (init_specs) {
    for (const auto& c : init_specs->GetArray()) {
      init_by_name[Str(c, {"name"})] = &c;
      if (IsRestartable(&c)) ++total;
    }
  }

  bool initializing = false;
  if (const rapidjson::Value* statuses = Arr(pod, {"status", "initContainerStatuses"})) {
    for (rapidjson::SizeType i = 0; i < statuses->Size(); ++i) {
      const rapidjson::Value& c = (*statuses)[i];
      restarts += Int(c, {"restartCount"});
      TrackLastRestart(c, last_restart);
      auto spec = init_by_name.find(Str(c, {"name"}));
      const bool restartable = spec != init_by_name.end() && IsRestartable(spec->second);
      if (restartable) {
        restartable_restarts += Int(c, {"restartCount"});
        TrackLastRestart(c, last_restartable_restart);
      }
      const bool terminated = Has(c, {"state", "terminated"});
      if (terminated && Int(c, {"state", "terminated", "exitCode"}) == 0) continue;
      if (restartable && Bool(c, {"started"})) {
        if (Bool(c, {"ready"})) ++ready;
        continue;
      }
      const std::string_view waiting_reason = Str(c, {"state", "waiting", "reason"});
      if (terminated) {
        const std::string_view why = Str(c, {"state", "terminated", "reason"});
        reason = why.empty() ? TerminatedText(c, "Init:") : "Init:" + std::string(why);
      } else if (Has(c, {"state", "waiting"}) && !waiting_reason.empty() &&
                 waiting_reason != "PodInitializing") {
        reason = "Init:" + std::string(waiting_reason);
      } else {
        reason = "Init:" + std::to_string(i) + "/" +
                 std::to_string(init_specs ? init_specs->Size() : 0);
      }
      initializing = true;
      break;
    }
  }

  if (!initializing || HasCondition(pod, "Initialized")) {
    restarts = restartable_restarts;
    last_restart = last_restartable_restart;
    bool has_running = false;
    if (const rapidjson::Value* statuses = Arr(pod, {"status", "containerStatuses"})) {
      for (rapidjson::SizeType n = statuses->Size(); n > 0; --n) {
        const rapidjson::Value& c = (*statuses)[n - 1];
        restarts += Int(c, {"restartCount"});
        TrackLastRestart(c, last_restart);
        const std::string_view waiting_reason = Str(c, {"state", "waiting", "reason"});
        const std::string_view terminated_reason = Str(c, {"state", "terminated", "reason"});
        if (Has(c, {"state", "waiting"}) && !waiting_reason.empty()) {
          reason = waiting_reason;
        } else if (Has(c, {"state", "terminated"}) && !terminated_reason.empty()) {
          reason = terminated_reason;
        } else if (Has(c, {"state", "terminated"})) {
          reason = TerminatedText(c, "");
        } else if (Bool(c, {"ready"}) && Has(c, {"state", "running"})) {
          has_running = true;
          ++ready;
        }
      }
    }
    if (reason == "Completed" && has_running) {
      reason = HasCondition(pod, "Ready") ? "Running" : "NotReady";
    }
  }

  const bool deleting = Has(pod, {"metadata", "deletionTimestamp"});
  if (deleting && Str(pod, {"status", "reason"}) == "NodeLost") {
    reason = "Unknown";
  } else if (deleting && phase != "Succeeded" && phase != "Failed") {
    reason = "Terminating";
  }

  std::string restarts_text = std::to_string(restarts);
  if (restarts != 0 && last_restart && !last_restart->IsZero()) {
    restarts_text += " (" +
                     HumanDuration(NanosBetween(*last_restart, Timestamp::FromTimePoint(now))) +
                     " ago)";
  }

  AddCell(row, Str(pod, {"metadata", "name"}), alloc);
  AddCell(row, std::to_string(ready) + "/" + std::to_string(total), alloc);
  AddCell(row, reason, alloc);
  AddCell(row, restarts_text, alloc);
  AddCell(row, Age(pod, now), alloc);

  std::string_view ip;
  if (const rapidjson::Value* ips = Arr(pod, {"status", "podIPs"}); ips && !ips->Empty()) {
    ip = Str((*ips)[0], {"ip"});
  } else {
    ip = Str(pod, {"status", "podIP"});  // servers mirror podIP into podIPs; tolerate either
  }
  const std::string_view node = Str(pod, {"spec", "nodeName"});
  const std::string_view nominated = Str(pod, {"status", "nominatedNodeName"});
  std::string gates(kNone);
  if (const rapidjson::Value* rg = Arr(pod, {"spec", "readinessGates"}); rg && !rg->Empty()) {
    int64_t true_conditions = 0;
    const rapidjson::Value* conds = Arr(pod, {"status", "conditions"});
    for (const auto& gate : rg->GetArray()) {
      if (!conds) break;
      for (const auto& c : conds->GetArray()) {
        if (Str(c, {"type"}) == Str(gate, {"conditionType"})) {
          if (Str(c, {"status"}) == "True") ++true_conditions;
          break;
        }
      }
    }
    gates = std::to_string(true_conditions) + "/" + std::to_string(rg->Size());
  }
  AddCell(row, ip.empty() ? kNone : ip, alloc);
  AddCell(row, node.empty() ? kNone : node, alloc);
  AddCell(row, nominated.empty() ? kNone : nominated, alloc);
  AddCell(row, gates, alloc);
}

// --- pod templates ---------------------------------------------------------------------------

constexpr ColumnDefinition kPodTemplateColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Containers", "string", "", "Names of each container in the template.", 0},
    {"Images", "string", "", "Images referenced by each container in the template.", 0},
    {"Pod Labels", "string", "", "The labels for the pod template.", 0},
};

void PrintPodTemplate(const rapidjson::Value& obj, TimePoint, RowOutput& row, Allocator& alloc) {
  auto [names, images] = LayoutContainerCells(Arr(obj, {"template", "spec", "containers"}));
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, names, alloc);
  AddCell(row, images, alloc);
  AddCell(row, FormatLabels(json::Find(obj, {"template", "metadata", "labels"})), alloc);
}

// --- nodes ------------------------------------------------------------------------------------

constexpr ColumnDefinition kNodeColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Status", "string", "", "The status of the node", 0},
    {"Roles", "string", "", "The roles of the node", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Version", "string", "", "Kubelet Version reported by the node.", 0},
    {"Internal-IP", "string", "", "List of addresses reachable to the node.", 1},
    {"External-IP", "string", "", "List of addresses reachable to the node.", 1},
    {"OS-Image", "string", "",
     "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
    {"Kernel-Version", "string", "",
     "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
    {"Container-Runtime", "string", "",
     "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
     "containerd://1.4.2).", 1},
};

std::string NodeAddress(const rapidjson::Value& node, std::string_view type) {
  if (const rapidjson::Value* addrs = Arr(node, {"status", "addresses"})) {
    for (const auto& a : addrs->GetArray()) {
      if (Str(a, {"type"}) == type) return std::string(Str(a, {"address"}));
    }
  }
  return std::string(kNone);
}

void PrintNode(const rapidjson::Value& node, TimePoint now, RowOutput& row, Allocator& alloc) {
  // Only the Ready condition is shown; the last entry of a type wins, as in a Go map.
  std::optional<std::string_view> ready_status;
  if (const rapidjson::Value* conds = Arr(node, {"status", "conditions"})) {
    for (const auto& c : conds->GetArray()) {
      if (Str(c, {"type"}) == "Ready") ready_status = Str(c, {"status"});
    }
  }
  std::string status = !ready_status ? "Unknown" : (*ready_status == "True" ? "Ready" : "NotReady");
  if (Bool(node, {"spec", "unschedulable"})) status += ",SchedulingDisabled";

  // Upstream collects roles in a set; sorted here so output is deterministic.
  std::set<std::string_view> roles;
  const rapidjson::Value* labels = json::Find(node, {"metadata", "labels"});
  if (labels != nullptr && labels->IsObject()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    for (const auto& m : labels->GetObject()) {
      const std::string_view k(m.name.GetString(), m.name.GetStringLength());
      const std::string_view v = m.value.IsString() ? m.value.GetString() : "";
      if (k.starts_with(kPrefix) && k.size() > kPrefix.size()) {
        roles.insert(k.substr(kPrefix.size()));
      } else if (k == "kubernetes.io/role" && !v.empty()) {
        roles.insert(v);
      }
    }
  }
  std::string roles_text;
  for (std::string_view r : roles) roles_text.append(roles_text.empty() ? "" : ",").append(r);

  auto or_unknown = [](std::string_view s) { return s.empty() ? kUnknown : s; };
  AddCell(row, Str(node, {"metadata", "name"}), alloc);
  AddCell(row, status, alloc);
  AddCell(row, roles_text.empty() ? std::string(kNone) : roles_text, alloc);
  AddCell(row, Age(node, now), alloc);
  AddCell(row, Str(node, {"status", "nodeInfo", "kubeletVersion"}), alloc);
  AddCell(row, NodeAddress(node, "InternalIP"), alloc);
  AddCell(row, NodeAddress(node, "ExternalIP"), alloc);
  AddCell(row, or_unknown(Str(node, {"status", "nodeInfo", "osImage"})), alloc);
  AddCell(row, or_unknown(Str(node, {"status", "nodeInfo", "kernelVersion"})), alloc);
  AddCell(row, or_unknown(Str(node, {"status", "nodeInfo", "containerRuntimeVersion"})), alloc);
}

// --- events -----------------------------------------------------------------------------------

constexpr ColumnDefinition kEventColumns[] = {
    {"Last Seen", "string", "",
     "The time at which the most recent occurrence of this event was recorded.", 0},
    {"Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0},
    {"Reason", "string", "",
     "This should be a short, machine understandable string that gives the reason for the "
     "transition into the object's current status.", 0},
    {"Object", "string", "", "The object that this event is about.", 0},
    {"Subobject", "string", "",
     "If referring to a piece of an object instead of an entire object, this string should "
     "contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
     1},
    {"Source", "string", "",
     "The component reporting this event. Should be a short machine understandable string.", 1},
    {"Message", "string", "", "A human-readable description of the status of this operation.", 0},
    {"First Seen", "string", "",
     "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
     1},
    {"Count", "string", "", "The number of times this event has occurred.", 1},
    {"Name", "string", "name", kNameDescription, 1},
};

std::string TrimSpace(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

void PrintEvent(const rapidjson::Value& ev, TimePoint now, RowOutput& row, Allocator& alloc) {
  auto since = [&](const rapidjson::Value* ts) { return TimestampSince(ts, now); };
  auto is_zero = [](const rapidjson::Value* ts) {
    std::optional<Timestamp> t = ParseTimestampField(ts);
    return !t || t->IsZero();
  };
  const rapidjson::Value* first_ts = json::Member(ev, "firstTimestamp");
  const rapidjson::Value* last_ts = json::Member(ev, "lastTimestamp");
  std::string first = is_zero(first_ts) ? since(json::Member(ev, "eventTime")) : since(first_ts);
  std::string last = is_zero(last_ts) ? first : since(last_ts);
  int64_t count = Int(ev, {"count"});
  if (Has(ev, {"series"})) {
    last = since(json::Find(ev, {"series", "lastObservedTime"}));
    count = Int(ev, {"series", "count"});
  } else if (count == 0) {
    count = 1;  // singleton events in the events.k8s.io API carry no count
  }
  std::string kind(Str(ev, {"involvedObject", "kind"}));
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string_view target_name = Str(ev, {"involvedObject", "name"});
  const std::string target = target_name.empty() ? kind : kind + "/" + std::string(target_name);
  std::string component(Str(ev, {"source", "component"}));
  if (component.empty()) component = Str(ev, {"reportingComponent"});
  std::string instance(Str(ev, {"source", "host"}));
  if (instance.empty()) instance = Str(ev, {"reportingInstance"});
  const std::string source = instance.empty() ? component : component + ", " + instance;

  AddCell(row, last, alloc);
  AddCell(row, Str(ev, {"type"}), alloc);
  AddCell(row, Str(ev, {"reason"}), alloc);
  AddCell(row, target, alloc);
  AddCell(row, Str(ev, {"involvedObject", "fieldPath"}), alloc);
  AddCell(row, source, alloc);
  AddCell(row, TrimSpace(Str(ev, {"message"})), alloc);
  AddCell(row, first, alloc);
  AddCell(row, count, alloc);
  AddCell(row, Str(ev, {"metadata", "name"}), alloc);
}

// --- namespaces, configmaps, secrets, serviceaccounts, leases ---------------------------------

constexpr ColumnDefinition kNamespaceColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Status", "string", "", "The status of the namespace", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
};

void PrintNamespace(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, Str(obj, {"status", "phase"}), alloc);
  AddCell(row, Age(obj, now), alloc);
}

int64_t MemberCount(const rapidjson::Value& obj, std::string_view key) {
  const rapidjson::Value* v = json::Member(obj, key);
  if (v == nullptr) return 0;
  if (v->IsObject()) return v->MemberCount();
  if (v->IsArray()) return v->Size();
  return 0;
}

constexpr ColumnDefinition kConfigMapColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Data", "string", "",
     "Data contains the configuration data. Each key must consist of alphanumeric characters, "
     "'-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The "
     "keys stored in Data must not overlap with the keys in the BinaryData field, this is "
     "enforced during validation process.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
};

void PrintConfigMap(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, MemberCount(obj, "data") + MemberCount(obj, "binaryData"), alloc);
  AddCell(row, Age(obj, now), alloc);
}

constexpr ColumnDefinition kSecretColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Type", "string", "", "Used to facilitate programmatic handling of secret data.", 0},
    {"Data", "string", "",
     "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' "
     "or '.'. The serialized form of the secret data is a base64 encoded string.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
};

void PrintSecret(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, Str(obj, {"type"}), alloc);
  AddCell(row, MemberCount(obj, "data"), alloc);
  AddCell(row, Age(obj, now), alloc);
}

constexpr ColumnDefinition kServiceAccountColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Secrets", "string", "",
     "Secrets is a list of the secrets in the same namespace that pods running using this "
     "ServiceAccount are allowed to use.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
};

void PrintServiceAccount(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, MemberCount(obj, "secrets"), alloc);
  AddCell(row, Age(obj, now), alloc);
}

constexpr ColumnDefinition kLeaseColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Holder", "string", "",
     "holderIdentity contains the identity of the holder of a current lease. If Coordinated "
     "Leader Election is used, the holder identity must be equal to the elected "
     "LeaseCandidate.metadata.name field.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
};

void PrintLease(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, Str(obj, {"spec", "holderIdentity"}), alloc);
  AddCell(row, Age(obj, now), alloc);
}

constexpr BuiltinPrinter kCorePrinters[] = {
    {"", "pods", kPodColumns, PrintPod},
    {"", "podtemplates", kPodTemplateColumns, PrintPodTemplate},
    {"", "nodes", kNodeColumns, PrintNode},
    {"", "events", kEventColumns, PrintEvent},
    {"", "namespaces", kNamespaceColumns, PrintNamespace},
    {"", "configmaps", kConfigMapColumns, PrintConfigMap},
    {"", "secrets", kSecretColumns, PrintSecret},
    {"", "serviceaccounts", kServiceAccountColumns, PrintServiceAccount},
    {"coordination.k8s.io", "leases", kLeaseColumns, PrintLease},
};

}  // namespace

std::span<const BuiltinPrinter> CorePrinters() { return kCorePrinters; }

}  // namespace berth::kubesim::table
