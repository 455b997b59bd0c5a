#include "e2e/kubesim/api/builtin_defaults.h"

#include "e2e/kubesim/api/pod_scheduling_validation.h"

#include "clientgo-shim/api/deletion_cost.h"
#include "clientgo-shim/api/quantity.h"
#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

void DefaultString(Value& obj, std::string_view key, std::string_view value, Document::AllocatorType& a) {
  if (!json::Member(obj, key)) json::SetString(obj, key, value, a);
}

void DefaultInt(Value& obj, std::string_view key, int64_t value, Document::AllocatorType& a) {
  if (!json::Member(obj, key)) json::SetMember(obj, key, Value(value), a);
}

bool HasToleration(const Value& tolerations, std::string_view key) {
  for (const auto& t : tolerations.GetArray()) {
    if (json::GetString(t, {"key"}) == key) return true;
  }
  return false;
}

// CanonicalizeQuantities rewrites each value of a ResourceList (numbers or strings) as the
// canonical quantity string, as the apiserver's decode/encode of resource.Quantity does
// ("cpu: 2" → "2", "0.5" → "500m", "1024Mi" → "1Gi"). Values that do not parse stay as sent.
void CanonicalizeQuantities(Value* list, Document::AllocatorType& a) {
  if (!list || !list->IsObject()) return;
  for (auto& m : list->GetObject()) {
    std::string text;
    if (m.value.IsString()) {
      text.assign(m.value.GetString(), m.value.GetStringLength());
    } else if (m.value.IsInt64()) {
      text = std::to_string(m.value.GetInt64());
    } else if (m.value.IsUint64()) {
      text = std::to_string(m.value.GetUint64());
    } else if (m.value.IsDouble()) {
      text = json::Serialize(m.value);
    } else {
      continue;
    }
    auto q = shim::Quantity::Parse(text);
    if (!q) continue;
    std::string canonical = q->String();
    m.value.SetString(canonical.data(), static_cast<rapidjson::SizeType>(canonical.size()), a);
  }
}

void CanonicalizeResources(Value& c, Document::AllocatorType& a) {
  CanonicalizeQuantities(json::FindMutable(c, {"resources", "limits"}), a);
  CanonicalizeQuantities(json::FindMutable(c, {"resources", "requests"}), a);
}

void DefaultContainer(Value& c, Document::AllocatorType& a, bool default_requests) {
  if (!c.IsObject()) return;
  std::string_view image = json::GetString(c, {"image"});
  // IfNotPresent unless the image has no tag or the :latest tag (core/v1 defaults).
  auto slash = image.rfind('/');
  std::string_view last = slash == std::string_view::npos ? image : image.substr(slash + 1);
  bool latest = last.find('@') == std::string_view::npos &&
                (last.find(':') == std::string_view::npos || last.ends_with(":latest"));
  DefaultString(c, "imagePullPolicy", latest ? "Always" : "IfNotPresent", a);
  DefaultString(c, "terminationMessagePath", "/dev/termination-log", a);
  DefaultString(c, "terminationMessagePolicy", "File", a);
  if (!json::Member(c, "resources")) json::SetMember(c, "resources", Value(rapidjson::kObjectType), a);
  CanonicalizeResources(c, a);
  // Limits without requests default the requests (core/v1 SetDefaults_Pod: pods only, not the
  // templates of workloads; their pods get it when they are created).
  if (!default_requests) return;
  Value& res = json::EnsureObject(c, "resources", a);
  if (const Value* limits = json::Member(res, "limits"); limits && limits->IsObject()) {
    Value& requests = json::EnsureObject(res, "requests", a);
    for (const auto& m : limits->GetObject()) {
      if (!json::Member(requests, m.name.GetString())) {
        requests.AddMember(Value(m.name, a), Value(m.value, a), a);
      }
    }
  }
}

// core/v1 SetDefaults_PodSpec's defaultHostNetworkPorts: a hostNetwork pod's container ports bind
// the node's ports, so a port without hostPort gets hostPort = containerPort (what kube-scheduler's
// NodePorts filter then reads).
void DefaultHostNetworkPorts(Value& spec, Document::AllocatorType& a) {
  const Value* host_network = json::Member(spec, "hostNetwork");
  if (!host_network || !host_network->IsBool() || !host_network->GetBool()) return;
  for (std::string_view list : {"containers", "initContainers"}) {
    Value* cs = json::FindMutable(spec, {list});
    if (!cs || !cs->IsArray()) continue;
    for (auto& c : cs->GetArray()) {
      Value* ports = c.IsObject() ? json::FindMutable(c, {"ports"}) : nullptr;
      if (!ports || !ports->IsArray()) continue;
      for (auto& port : ports->GetArray()) {
        if (!port.IsObject()) continue;
        const Value* container_port = json::Member(port, "containerPort");
        const Value* host_port = json::Member(port, "hostPort");
        if (!container_port || !container_port->IsInt64()) continue;
        if (host_port && !(host_port->IsInt64() && host_port->GetInt64() == 0)) continue;
        json::SetMember(port, "hostPort", Value(container_port->GetInt64()), a);
      }
    }
  }
}

void DefaultPodSpec(Value& spec, Document::AllocatorType& a, bool add_tolerations) {
  // add_tolerations is true for pods themselves, false for templates.
  if (!spec.IsObject()) return;
  DefaultHostNetworkPorts(spec, a);
  DefaultString(spec, "restartPolicy", "Always", a);
  DefaultString(spec, "dnsPolicy", "ClusterFirst", a);
  DefaultString(spec, "schedulerName", "default-scheduler", a);
  DefaultInt(spec, "terminationGracePeriodSeconds", 30, a);
  if (!json::Member(spec, "securityContext")) json::SetMember(spec, "securityContext", Value(rapidjson::kObjectType), a);
  for (std::string_view list : {"containers", "initContainers"}) {
    if (Value* cs = json::FindMutable(spec, {list}); cs && cs->IsArray()) {
      for (auto& c : cs->GetArray()) DefaultContainer(c, a, add_tolerations);
    }
  }
  if (Value* cs = json::FindMutable(spec, {"ephemeralContainers"}); cs && cs->IsArray()) {
    for (auto& c : cs->GetArray()) {
      if (c.IsObject()) CanonicalizeResources(c, a);
    }
  }
  CanonicalizeQuantities(json::FindMutable(spec, {"overhead"}), a);
  if (!add_tolerations) return;
  // DefaultTolerationSeconds admission: tolerate not-ready/unreachable for 300 s.
  Value* tolerations = json::FindMutable(spec, {"tolerations"});
  if (!tolerations || !tolerations->IsArray()) {
    json::SetMember(spec, "tolerations", Value(rapidjson::kArrayType), a);
    tolerations = json::FindMutable(spec, {"tolerations"});
  }
  for (std::string_view key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    if (HasToleration(*tolerations, key)) continue;
    Value t(rapidjson::kObjectType);
    json::SetString(t, "key", key, a);
    json::SetString(t, "operator", "Exists", a);
    json::SetString(t, "effect", "NoExecute", a);
    t.AddMember("tolerationSeconds", 300, a);
    tolerations->PushBack(t, a);
  }
}

std::string QosClass(const Value& spec) {
  bool any = false, guaranteed = true;
  if (const Value* cs = json::Member(spec, "containers"); cs && cs->IsArray()) {
    for (const auto& c : cs->GetArray()) {
      const Value* req = json::Find(c, {"resources", "requests"});
      const Value* lim = json::Find(c, {"resources", "limits"});
      bool has_req = req && req->IsObject() && req->MemberCount() > 0;
      bool has_lim = lim && lim->IsObject() && lim->MemberCount() > 0;
      any = any || has_req || has_lim;
      if (!has_lim || !json::Member(*lim, "cpu") || !json::Member(*lim, "memory")) {
        guaranteed = false;
      } else if (has_req) {
        for (const auto& m : req->GetObject()) {
          const Value* l = json::Member(*lim, m.name.GetString());
          if (!l || *l != m.value) guaranteed = false;
        }
      }
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

// DefaultServiceSpec: SetDefaults_Service plus the IP-family fields the service REST storage
// fills in (single-stack IPv4 cluster). ClusterIPs are allocated later (service_ip_allocator.h).
void DefaultServiceSpec(Value& spec, Document::AllocatorType& a) {
  DefaultString(spec, "type", "ClusterIP", a);
  DefaultString(spec, "sessionAffinity", "None", a);
  std::string_view type = json::GetString(spec, {"type"});
  if (json::GetString(spec, {"sessionAffinity"}) == "ClientIP" && !json::Find(spec, {"sessionAffinityConfig", "clientIP", "timeoutSeconds"})) {
    Value& config = json::EnsureObject(json::EnsureObject(spec, "sessionAffinityConfig", a), "clientIP", a);
    DefaultInt(config, "timeoutSeconds", 10800, a);
  }
  if (Value* ports = json::FindMutable(spec, {"ports"}); ports && ports->IsArray()) {
    for (auto& p : ports->GetArray()) {
      if (!p.IsObject()) continue;
      DefaultString(p, "protocol", "TCP", a);
      const Value* target = json::Member(p, "targetPort");
      bool unset = !target || (target->IsInt64() && target->GetInt64() == 0) || (target->IsString() && target->GetStringLength() == 0);
      if (const Value* port = json::Member(p, "port"); unset && port && port->IsInt64()) {
        json::SetMember(p, "targetPort", Value(port->GetInt64()), a);
      }
    }
  }
  if (type == "ExternalName") return;
  DefaultString(spec, "internalTrafficPolicy", "Cluster", a);
  if (type == "NodePort" || type == "LoadBalancer") DefaultString(spec, "externalTrafficPolicy", "Cluster", a);
  if (type == "LoadBalancer" && !json::Member(spec, "allocateLoadBalancerNodePorts")) {
    spec.AddMember("allocateLoadBalancerNodePorts", true, a);
  }
  // A headless service without a selector defaults to RequireDualStack (it may carry
  // endpoints of either family); everything else to SingleStack.
  std::string_view cluster_ip = json::GetString(spec, {"clusterIP"});
  const Value* selector = json::Member(spec, "selector");
  bool headless_selectorless = cluster_ip == "None" && (!selector || !selector->IsObject() || selector->MemberCount() == 0);
  DefaultString(spec, "ipFamilyPolicy", headless_selectorless ? "RequireDualStack" : "SingleStack", a);
  if (const Value* families = json::Member(spec, "ipFamilies"); !families || !families->IsArray() || families->Empty()) {
    Value list(rapidjson::kArrayType);
    list.PushBack("IPv4", a);
    json::SetMember(spec, "ipFamilies", std::move(list), a);
  }
}

// Base64 is the standard encoding with padding, as encoding/json writes []byte.
std::string Base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(n >> shift) & 63];
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t n = uint8_t(bytes[i]) << 16;
    if (rest == 2) n |= uint8_t(bytes[i + 1]) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += rest == 2 ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// DefaultSecret: type Opaque, and stringData merged into data (base64), as the apiserver's
// conversion does on every write; stringData itself is never stored.
void DefaultSecret(Document& object, Document::AllocatorType& a) {
  DefaultString(object, "type", "Opaque", a);
  const Value* string_data = json::Member(object, "stringData");
  if (string_data && string_data->IsObject() && string_data->MemberCount() > 0) {
    Value& data = json::EnsureObject(object, "data", a);
    for (const auto& m : string_data->GetObject()) {
      if (!m.value.IsString()) continue;
      json::SetString(data, std::string_view(m.name.GetString(), m.name.GetStringLength()),
                      Base64(std::string_view(m.value.GetString(), m.value.GetStringLength())), a);
    }
  }
  json::RemoveMember(object, "stringData");
}

}  // namespace

void ApplyBuiltinDefaults(const ResourceType& type, Document& object) {
  auto& a = object.GetAllocator();
  if (type.group.empty() && type.plural == "pods") {
    Value& spec = json::EnsureObject(object, "spec", a);
    DefaultPodSpec(spec, a, true);
    DefaultString(spec, "serviceAccountName", "default", a);
    DefaultInt(spec, "priority", 0, a);
    if (!json::Member(spec, "enableServiceLinks")) spec.AddMember("enableServiceLinks", true, a);
    DefaultString(spec, "preemptionPolicy", "PreemptLowerPriority", a);
    Value& status = json::EnsureObject(object, "status", a);
    DefaultString(status, "phase", "Pending", a);
    DefaultString(status, "qosClass", QosClass(spec), a);
  } else if (type.group == "scheduling.k8s.io" && type.plural == "priorityclasses") {
    DefaultString(object, "preemptionPolicy", "PreemptLowerPriority", a);
  } else if (type.group.empty() && type.plural == "podtemplates") {
    if (Value* spec = json::FindMutable(object, {"template", "spec"})) DefaultPodSpec(*spec, a, false);
  } else if (type.group == "apps") {
    Value& spec = json::EnsureObject(object, "spec", a);
    DefaultInt(spec, "replicas", 1, a);
    if (type.plural != "replicasets") DefaultInt(spec, "revisionHistoryLimit", 10, a);
    if (Value* pod = json::FindMutable(spec, {"template", "spec"})) DefaultPodSpec(*pod, a, false);
    if (type.plural == "deployments") {
      DefaultInt(spec, "progressDeadlineSeconds", 600, a);
      // SetDefaults_Deployment: an empty type (also `strategy: {}`, as typed clients send it) is
      // RollingUpdate, whose unset bounds default to 25%.
      Value& strategy = json::EnsureObject(spec, "strategy", a);
      if (json::GetString(strategy, {"type"}).empty()) json::SetString(strategy, "type", "RollingUpdate", a);
      if (json::GetString(strategy, {"type"}) == "RollingUpdate") {
        Value& rolling = json::EnsureObject(strategy, "rollingUpdate", a);
        if (!json::Member(rolling, "maxUnavailable")) json::SetString(rolling, "maxUnavailable", "25%", a);
        if (!json::Member(rolling, "maxSurge")) json::SetString(rolling, "maxSurge", "25%", a);
      }
    }
  } else if (type.group.empty() && type.plural == "namespaces") {
    Value& spec = json::EnsureObject(object, "spec", a);
    if (!json::Member(spec, "finalizers")) {
      Value f(rapidjson::kArrayType);
      f.PushBack("kubernetes", a);
      spec.AddMember("finalizers", f, a);
    }
    Value& status = json::EnsureObject(object, "status", a);
    DefaultString(status, "phase", "Active", a);
    // The apiserver labels every namespace with its own name.
    Value& meta = json::EnsureObject(object, "metadata", a);
    Value& labels = json::EnsureObject(meta, "labels", a);
    json::SetString(labels, "kubernetes.io/metadata.name", json::GetString(meta, {"name"}), a);
  } else if (type.group.empty() && type.plural == "nodes") {
    CanonicalizeQuantities(json::FindMutable(object, {"status", "capacity"}), a);
    CanonicalizeQuantities(json::FindMutable(object, {"status", "allocatable"}), a);
  } else if (type.group.empty() && type.plural == "services") {
    DefaultServiceSpec(json::EnsureObject(object, "spec", a), a);
  } else if (type.group.empty() && type.plural == "secrets") {
    DefaultSecret(object, a);
  }
}

std::vector<StatusCause> ValidateBuiltin(const ResourceType& type, const Value& object) {
  std::vector<StatusCause> causes;
  if (type.group.empty() && type.plural == "pods") {
    const Value* containers = json::Find(object, {"spec", "containers"});
    if (!containers || !containers->IsArray() || containers->Empty()) {
      causes.push_back({"FieldValueRequired", "Required value", "spec.containers"});
      return causes;
    }
    for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
      const Value& c = (*containers)[i];
      std::string prefix = "spec.containers[" + std::to_string(i) + "]";
      if (json::GetString(c, {"name"}).empty()) causes.push_back({"FieldValueRequired", "Required value", prefix + ".name"});
      if (json::GetString(c, {"image"}).empty()) causes.push_back({"FieldValueRequired", "Required value", prefix + ".image"});
    }
    if (const Value* spec = json::Member(object, "spec")) ValidatePodScheduling(*spec, "spec", causes);
    // ValidatePodSpecificAnnotations with the PodDeletionCost gate on (its default since 1.22).
    if (const Value* cost = json::Find(object, {"metadata", "annotations", shim::kPodDeletionCostAnnotation});
        cost != nullptr && cost->IsString()) {
      const std::string_view text(cost->GetString(), cost->GetStringLength());
      if (!shim::ParsePodDeletionCost(text)) {
        causes.push_back({"FieldValueInvalid", "Invalid value: \"" + std::string(text) + "\": must be a 32bit integer",
                          "metadata.annotations[" + std::string(shim::kPodDeletionCostAnnotation) + "]"});
      }
    }
  } else if (type.group == "scheduling.k8s.io" && type.plural == "priorityclasses") {
    const Value* value = json::Member(object, "value");
    if (!value) {
      causes.push_back({"FieldValueRequired", "Required value", "value"});
    } else if (!value->IsInt()) {
      causes.push_back({"FieldValueInvalid", "Invalid value: " + json::Serialize(*value) + ": must be an int32", "value"});
    }
    std::string_view policy = json::GetString(object, {"preemptionPolicy"});
    if (policy != "PreemptLowerPriority" && policy != "Never") {
      causes.push_back({"FieldValueNotSupported",
                        "Unsupported value: \"" + std::string(policy) +
                            "\": supported values: \"Never\", \"PreemptLowerPriority\"",
                        "preemptionPolicy"});
    }
  } else if (type.group == "policy" && type.plural == "poddisruptionbudgets") {
    const Value* spec = json::Member(object, "spec");
    if (spec && json::Member(*spec, "minAvailable") && json::Member(*spec, "maxUnavailable")) {
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: \"" + json::Serialize(*spec) + "\": minAvailable and maxUnavailable cannot be both set",
                        "spec"});
    }
  } else if (type.group == "apps") {
    const Value* selector = json::Find(object, {"spec", "selector"});
    if (!selector || !selector->IsObject()) {
      causes.push_back({"FieldValueRequired", "Required value", "spec.selector"});
    }
    if (const Value* pod_spec = json::Find(object, {"spec", "template", "spec"})) {
      ValidatePodScheduling(*pod_spec, "spec.template.spec", causes);
    }
  }
  return causes;
}

}  // namespace berth::kubesim
