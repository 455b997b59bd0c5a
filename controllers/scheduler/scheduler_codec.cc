#include "controllers/scheduler/scheduler_codec.h"

#include <absl/container/flat_hash_map.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clientgo-shim/base/json.h"
#include "controllers/scheduler/preemption_codec.h"
#include "controllers/reservation/reservation_codec.h"
#include "reconcile/common/annotation_json.h"
#include "controllers/scheduler/pod_constraints_codec.h"
#include "controllers/scheduler/pre_allocation_codec.h"
#include "reconcile/placement/exact_match.h"
#include "clientgo-shim/base/log.h"
#include "reconcile/placement/plugin_scores.h"
#include "reconcile/placement/prefer_avoid_pods.h"
#include "reconcile/placement/reservation_affinity.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
namespace placement = reconcile::placement;

std::string Str(const Value& root, std::initializer_list<std::string_view> path) {
  return std::string(json::GetString(root, path));
}

placement::LabelMap ReadStringMap(const Value* map) {
  placement::LabelMap out;
  if (!map || !map->IsObject()) return out;
  for (const auto& m : map->GetObject()) {
    if (m.value.IsString()) out.emplace(m.name.GetString(), m.value.GetString());
  }
  return out;
}

bool ReadBool(const Value& root, std::initializer_list<std::string_view> path, bool fallback) {
  const Value* v = json::Find(root, path);
  if (!v || !v->IsBool()) return fallback;
  return v->GetBool();
}

std::vector<placement::Taint> ReadTaints(const Value* list) {
  std::vector<placement::Taint> out;
  if (!list || !list->IsArray()) return out;
  for (const auto& t : list->GetArray()) {
    if (!t.IsObject()) continue;
    out.push_back({Str(t, {"key"}), Str(t, {"value"}), Str(t, {"effect"})});
  }
  return out;
}

std::vector<placement::Toleration> ReadTolerations(const Value* list) {
  std::vector<placement::Toleration> out;
  if (!list || !list->IsArray()) return out;
  for (const auto& t : list->GetArray()) {
    if (!t.IsObject()) continue;
    out.push_back({Str(t, {"key"}), Str(t, {"operator"}), Str(t, {"value"}), Str(t, {"effect"})});
  }
  return out;
}

// ReadHostPorts: kube-scheduler's GetHostPorts — ports with hostPort > 0 of the containers and
// of restartable (sidecar) init containers; protocol defaults to TCP, hostIP to 0.0.0.0.
std::vector<placement::HostPort> ReadHostPorts(const Value& spec) {
  std::vector<placement::HostPort> out;
  auto read = [&](const Value* list, bool sidecars_only) {
    if (!list || !list->IsArray()) return;
    for (const auto& c : list->GetArray()) {
      if (!c.IsObject()) continue;
      if (sidecars_only && json::GetString(c, {"restartPolicy"}) != "Always") continue;
      const Value* ports = json::Member(c, "ports");
      if (!ports || !ports->IsArray()) continue;
      for (const auto& p : ports->GetArray()) {
        const Value* host_port = p.IsObject() ? json::Member(p, "hostPort") : nullptr;
        if (!host_port || !host_port->IsInt() || host_port->GetInt() <= 0) continue;
        placement::HostPort hp;
        hp.port = host_port->GetInt();
        if (std::string_view protocol = json::GetString(p, {"protocol"}); !protocol.empty()) hp.protocol = protocol;
        if (std::string_view ip = json::GetString(p, {"hostIP"}); !ip.empty()) hp.ip = ip;
        out.push_back(std::move(hp));
      }
    }
  };
  read(json::Member(spec, "containers"), false);
  read(json::Member(spec, "initContainers"), true);
  return out;
}

// EffectiveRequestsOf: EffectiveRequests(PodResourcesOf(spec)) without "pods", remembered per
// thread by the text of what it reads (each container's resources, an init container's
// restartPolicy, the overhead): a workload's pods ask the same, and parsing the quantities into
// the maps was ~40% of ReadPodView (perf, a cold start on 150,000 pods). A spec read with an error
// is read every time, as the messages name its path; so is one whose text cannot be written.
reconcile::ResourceAmounts EffectiveRequestsOf(const Value& spec, std::string_view path,
                                               std::vector<std::string>& errors) {
  constexpr size_t kRemembered = 1024;  // distinct resource shapes per thread before starting over
  constexpr size_t kLongestKey = 4096;  // a larger text is read, not kept: at most ~4 MB per thread
  thread_local rapidjson::StringBuffer key;
  thread_local absl::flat_hash_map<std::string, reconcile::ResourceAmounts> remembered;
  auto read = [&] {
    reconcile::ResourceAmounts requests = reconcile::EffectiveRequests(PodResourcesOf(spec, &errors, path));
    requests.erase(std::string(placement::kResourcePods));
    return requests;
  };
  key.Clear();
  auto append = [&](const Value* value) {
    if (value == nullptr) {
      key.Put('~');
      return true;
    }
    rapidjson::Writer<rapidjson::StringBuffer> writer(key);
    return value->Accept(writer);
  };
  for (const bool init : {false, true}) {
    key.Put('|');
    const Value* containers = json::Member(spec, init ? "initContainers" : "containers");
    if (containers == nullptr || containers->IsNull()) continue;
    if (!containers->IsArray()) return read();  // an error, named by PodResourcesOf
    for (const auto& c : containers->GetArray()) {
      if (!c.IsObject() || !append(json::Member(c, "resources"))) return read();
      if (init) {
        key.Put(',');
        if (!append(json::Member(c, "restartPolicy"))) return read();
      }
      key.Put(';');
    }
  }
  key.Put('|');
  if (!append(json::Member(spec, "overhead"))) return read();
  const absl::string_view text(key.GetString(), key.GetSize());  // Debian's abseil has its own string_view
  if (auto it = remembered.find(text); it != remembered.end()) return it->second;
  const size_t errors_before = errors.size();
  reconcile::ResourceAmounts requests = read();
  if (errors.size() == errors_before && text.size() <= kLongestKey) {
    if (remembered.size() >= kRemembered) remembered.clear();
    remembered.emplace(std::string(text), requests);
  }
  return requests;
}

// FillSpec reads the pod-spec part shared by pods and reservation templates; `path` is the
// spec's field path, for the messages of quantities that do not parse.
void FillSpec(const Value* spec, std::string_view path, placement::PodSpecView& view) {
  if (!spec || !spec->IsObject()) return;
  view.node_name = Str(*spec, {"nodeName"});
  view.node_selector = ReadStringMap(json::Member(*spec, "nodeSelector"));
  if (const Value* terms = json::Find(*spec, {"affinity", "nodeAffinity",
                                              "requiredDuringSchedulingIgnoredDuringExecution"});
      terms != nullptr && !terms->IsNull()) {
    // A malformed term is an error naming it (the pod stays Pending), never a term left out:
    // leaving one out of an ORed list would widen or narrow where the pod may run.
    const std::string at = std::string(path) + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
    std::vector<placement::NodeSelectorTerm> out;
    const Value* list = terms->IsObject() ? json::Member(*terms, "nodeSelectorTerms") : nullptr;
    if (!terms->IsObject()) {
      view.request_errors.push_back(at + ": Invalid value: " + json::Serialize(*terms) + ": must be an object");
    } else if (list != nullptr && !list->IsNull() && !list->IsArray()) {
      view.request_errors.push_back(at + ".nodeSelectorTerms: Invalid value: " + json::Serialize(*list) +
                                    ": must be an array");
    } else if (list != nullptr && list->IsArray()) {
      for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
        auto term = ReadNodeSelectorTerm((*list)[i], at + ".nodeSelectorTerms[" + std::to_string(i) + "]",
                                         view.request_errors);
        if (term) out.push_back(std::move(*term));
      }
    }
    view.required_node_affinity = std::move(out);
  }
  view.tolerations = ReadTolerations(json::Member(*spec, "tolerations"));
  for (const char* list : {"initContainers", "containers"}) {
    if (const Value* containers = json::Member(*spec, list); containers && containers->IsArray()) {
      for (const auto& c : containers->GetArray()) {
        if (std::string_view image = json::GetString(c, {"image"}); !image.empty()) {
          view.container_images.push_back(placement::NormalizedImageName(image));
        }
      }
    }
  }
  view.host_ports = ReadHostPorts(*spec);
  view.requests = EffectiveRequestsOf(*spec, path, view.request_errors);
  ReadPodConstraints(*spec, path, view, view.request_errors);
}

}  // namespace

placement::NodeView ReadNodeView(const Value& node, reconcile::Duration prefer_avoid_ttl) {
  placement::NodeView view;
  view.name = Str(node, {"metadata", "name"});
  view.labels = ReadStringMap(json::Find(node, {"metadata", "labels"}));
  if (const Value* spec = json::Member(node, "spec"); spec && spec->IsObject()) {
    view.taints = ReadTaints(json::Member(*spec, "taints"));
    view.unschedulable = ReadBool(*spec, {"unschedulable"}, false);
  }
  view.allocatable = ReadAmounts(json::Find(node, {"status", "allocatable"}));
  // status.images (kubelet-written): an entry without an integer sizeBytes >= 0 is left out of
  // ImageLocality (scoring only; nothing is read as size 0).
  if (const Value* images = json::Find(node, {"status", "images"}); images && images->IsArray()) {
    for (const auto& image : images->GetArray()) {
      const Value* size = image.IsObject() ? json::Member(image, "sizeBytes") : nullptr;
      const Value* names = image.IsObject() ? json::Member(image, "names") : nullptr;
      if (size == nullptr || !size->IsInt64() || size->GetInt64() < 0 || names == nullptr || !names->IsArray()) continue;
      for (const auto& name : names->GetArray()) {
        if (name.IsString()) view.image_sizes[name.GetString()] = size->GetInt64();
      }
    }
  }
  const std::string_view avoid =
      json::GetString(node, {"metadata", "annotations", placement::kPreferAvoidPodsAnnotation});
  if (!avoid.empty() && prefer_avoid_ttl > reconcile::Duration::zero()) {
    if (auto entries = placement::ParsePreferAvoidPods(avoid)) {
      view.avoided_controllers = placement::ActiveAvoidances(*entries, std::chrono::system_clock::now(),
                                                             {prefer_avoid_ttl, entries->size()});
    } else {
      // Not fatal to scheduling: the node is scored as if it avoided nothing.
      log::Warn("scheduler", "ignoring a malformed node annotation",
                {{"node", view.name}, {"error", entries.error().message}});
    }
  }
  return view;
}

placement::PodSpecView ReadPodView(const Value& pod) {
  placement::PodSpecView view;
  view.namespace_name = Str(pod, {"metadata", "namespace"});
  view.name = Str(pod, {"metadata", "name"});
  view.uid = Str(pod, {"metadata", "uid"});
  view.labels = ReadStringMap(json::Find(pod, {"metadata", "labels"}));
  view.terminating = json::Find(pod, {"metadata", "deletionTimestamp"}) != nullptr;
  if (const Value* refs = json::Find(pod, {"metadata", "ownerReferences"}); refs && refs->IsArray()) {
    for (const auto& r : refs->GetArray()) {
      if (!r.IsObject()) continue;
      view.owner_references.push_back({Str(r, {"apiVersion"}), Str(r, {"kind"}), Str(r, {"name"}),
                                       Str(r, {"uid"}), ReadBool(r, {"controller"}, false)});
    }
  }
  FillSpec(json::Member(pod, "spec"), "spec", view);
  view.priority = ReadPodPriority(pod);
  if (auto ref = AllocatedReservation(pod)) view.reservation_uid = ref->uid;
  auto ignored = view.labels.find(kReservationIgnoredLabel);
  view.reservation_ignored = ignored != view.labels.end() && ignored->second == "true";
  // The ProvisioningRequest the pod consumes (the current key wins over the deprecated one).
  for (const char* key : {kConsumeProvisioningRequestAnnotation, kConsumeProvisioningRequestAnnotationDeprecated}) {
    std::string_view consumed = json::GetString(pod, {"metadata", "annotations", key});
    if (consumed.empty()) continue;
    view.consumes_provisioning_request = view.namespace_name + "/" + std::string(consumed);
    break;
  }
  // reservation-affinity: present (even "") makes a reservation required; a value that does not
  // parse is kept as an error for the scheduler to report.
  if (const Value* affinity = json::Find(pod, {"metadata", "annotations", placement::kAnnotationReservationAffinity});
      affinity && affinity->IsString()) {
    auto parsed = placement::ParseReservationAffinity({affinity->GetString(), affinity->GetStringLength()});
    if (parsed) {
      view.reservation_affinity = std::make_shared<const placement::ReservationAffinity>(std::move(*parsed));
    } else {
      view.reservation_affinity_error = parsed.error().message;
    }
  }
  if (const Value* exact = json::Find(pod, {"metadata", "annotations", placement::kAnnotationExactMatchReservation});
      exact && exact->IsString()) {
    auto parsed = placement::ParseExactMatchReservation({exact->GetString(), exact->GetStringLength()});
    if (parsed) {
      view.exact_match_resources = std::move(*parsed);
    } else {
      view.exact_match_error = parsed.error().message;
    }
  }
  return view;
}

placement::LabelMap ReadObjectLabels(const shim::CachedObject& object) {
  auto labels = object.FindJson({"metadata", "labels"});
  return ReadStringMap(labels ? &*labels : nullptr);
}

placement::PodSpecView ReadTemplateView(const Value& reservation) {
  placement::PodSpecView view;
  view.name = Str(reservation, {"metadata", "name"});
  view.uid = Str(reservation, {"metadata", "uid"});
  view.namespace_name = Str(reservation, {"spec", "template", "metadata", "namespace"});
  if (view.namespace_name.empty()) view.namespace_name = "default";
  view.labels = ReadStringMap(json::Find(reservation, {"spec", "template", "metadata", "labels"}));
  FillSpec(json::Find(reservation, {"spec", "template", "spec"}), "spec.template.spec", view);
  if (auto resized = ReadResizeAllocatable(reservation)) {
    view.requests = std::move(*resized);
    view.requests.erase(std::string(placement::kResourcePods));
  }
  return view;
}

placement::ReservationView ReadReservationView(const Value& reservation) {
  placement::ReservationView view;
  view.name = Str(reservation, {"metadata", "name"});
  view.uid = Str(reservation, {"metadata", "uid"});
  view.phase = reconcile::ParsePhase(json::GetString(reservation, {"status", "phase"}))
                   .value_or(reconcile::Phase::kPending);
  view.node_name = Str(reservation, {"status", "nodeName"});
  view.labels = ReadStringMap(json::Find(reservation, {"metadata", "labels"}));
  view.allocatable = ReadAmounts(json::Find(reservation, {"status", "allocatable"}));
  view.allocatable.erase(std::string(placement::kResourcePods));
  const Value* spec = json::Member(reservation, "spec");
  if (spec && spec->IsObject()) {
    if (const Value* owners = json::Member(*spec, "owners"); owners && owners->IsArray()) {
      for (const auto& o : owners->GetArray()) {
        if (!o.IsObject()) continue;
        placement::ReservationOwner owner;
        if (const Value* obj = json::Member(o, "object"); obj && obj->IsObject()) {
          owner.object = placement::ObjectOwner{Str(*obj, {"uid"}), Str(*obj, {"name"}),
                                                Str(*obj, {"namespace"}), Str(*obj, {"apiVersion"})};
        }
        if (const Value* c = json::Member(o, "controller"); c && c->IsObject()) {
          placement::ControllerOwner ctl{Str(*c, {"apiVersion"}), Str(*c, {"kind"}), Str(*c, {"name"}),
                                         Str(*c, {"uid"}), std::nullopt, Str(*c, {"namespace"})};
          if (const Value* b = json::Member(*c, "controller"); b && b->IsBool()) ctl.controller = b->GetBool();
          owner.controller = std::move(ctl);
        }
        if (const Value* sel = json::Member(o, "labelSelector")) {
          // A selector that does not parse matches nothing (safer than everything).
          auto parsed = shim::LabelSelector::FromJson(sel);
          owner.label_selector = parsed ? std::move(*parsed) : shim::LabelSelector::Nothing();
        }
        view.owners.push_back(std::move(owner));
      }
    }
    view.allocate_once = ReadBool(*spec, {"allocateOnce"}, true);
    view.allocate_policy = placement::ParseAllocatePolicy(json::GetString(*spec, {"allocatePolicy"}));
    view.unschedulable = ReadBool(*spec, {"unschedulable"}, false);
    view.taints = ReadTaints(json::Member(*spec, "taints"));
  }
  std::string_view options =
      json::GetString(reservation, {"metadata", "annotations", kReservationRestrictedOptionsAnnotation});
  if (!options.empty()) {
    if (auto doc = reconcile::ParseAnnotationJson(options); doc && doc->IsObject()) {
      if (const Value* rs = json::Member(*doc, "resources"); rs && rs->IsArray()) {
        for (const auto& r : rs->GetArray()) {
          if (r.IsString()) view.restricted_resources.emplace_back(r.GetString());
        }
      }
    }
  }
  const Value* owners = json::Find(reservation, {"status", "currentOwners"});
  view.has_current_owners = owners && owners->IsArray() && !owners->Empty();
  view.pre_allocated = ReadPreAllocatedPods(reservation);
  // The lifecycle controller's rule (expires wins over creation + ttl), read the same way.
  view.expiry_deadline = ReadExpiryDeadline(reservation);
  view.provisioning_request = Str(reservation, {"metadata", "annotations", kBookingForAnnotation});
  view.invalid_spec = !ReadReservation(reservation).spec_errors.empty();
  if (const Value* template_spec = json::Find(reservation, {"spec", "template", "spec"});
      template_spec && template_spec->IsObject()) {
    view.host_ports = ReadHostPorts(*template_spec);
  }
  // The reserve pod other pods' affinity and spreading see (errors are the template view's to
  // report when it is placed). Only metadata and the affinity terms: no quantities to parse.
  placement::PodSpecView reserve_pod;
  reserve_pod.namespace_name = Str(reservation, {"spec", "template", "metadata", "namespace"});
  if (reserve_pod.namespace_name.empty()) reserve_pod.namespace_name = "default";
  reserve_pod.labels = ReadStringMap(json::Find(reservation, {"spec", "template", "metadata", "labels"}));
  if (const Value* template_spec = json::Find(reservation, {"spec", "template", "spec"});
      template_spec && template_spec->IsObject()) {
    std::vector<std::string> ignored;
    ReadPodConstraints(*template_spec, "spec.template.spec", reserve_pod, ignored);
  }
  view.template_namespace = std::move(reserve_pod.namespace_name);
  view.template_labels = std::move(reserve_pod.labels);
  view.template_affinity = std::move(reserve_pod.pod_affinity);
  return view;
}

bool PodIsTerminal(const Value& pod) {
  std::string_view phase = json::GetString(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

bool PodIsSchedulingGated(const Value& pod) {
  const Value* gates = json::Find(pod, {"spec", "schedulingGates"});
  return gates && gates->IsArray() && !gates->Empty();
}

}  // namespace berth::controllers

