// controllers/provisioning/provisioning_codec.cc
#include "controllers/provisioning/provisioning_codec.h"

#include <cstdio>

#include "clientgo-shim/api/quantity.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/transform.h"
#include "controllers/common/api_time.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "reconcile/provisioning/pod_builder.h"

namespace berth::controllers {
namespace {

using rapidjson::Document;
using rapidjson::Value;
namespace prov = reconcile::provisioning;

std::string Str(const Value& root, std::initializer_list<std::string_view> path) {
  return std::string(json::GetString(root, path));
}

Value Text(std::string_view s, Document::AllocatorType& a) {
  return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// ReadResourceList reads requests or limits; a value that is not a quantity is an error naming
// the field (the pod builder must not treat it as zero).
reconcile::ResourceAmounts ReadResourceList(const Value* list, const std::string& field,
                                            std::vector<std::string>& errors) {
  reconcile::ResourceAmounts out;
  if (list == nullptr || list->IsNull()) return out;
  if (!list->IsObject()) {
    errors.push_back(field + ": must be an object of quantities");
    return out;
  }
  for (const auto& m : list->GetObject()) {
    const std::string name = m.name.GetString();
    std::string text;
    if (m.value.IsString()) {
      text = m.value.GetString();
    } else if (m.value.IsNumber()) {
      text = json::Serialize(m.value);
    } else {
      errors.push_back(field + "." + name + ": must be a quantity");
      continue;
    }
    auto q = shim::Quantity::Parse(text);
    if (!q) {
      errors.push_back(field + "." + name + ": quantity \"" + text + "\" does not parse: " + q.error().message);
      continue;
    }
    out[name] = q->MilliValue();
  }
  return out;
}

std::vector<prov::ContainerResources> ReadContainers(const Value* list, const std::string& field,
                                                     std::vector<std::string>& errors) {
  std::vector<prov::ContainerResources> out;
  if (list == nullptr || !list->IsArray()) return out;
  int i = 0;
  for (const auto& c : list->GetArray()) {
    const std::string at = field + "[" + std::to_string(i++) + "].resources";
    prov::ContainerResources r;
    r.requests = ReadResourceList(json::Find(c, {"resources", "requests"}), at + ".requests", errors);
    r.limits = ReadResourceList(json::Find(c, {"resources", "limits"}), at + ".limits", errors);
    r.sidecar = json::GetString(c, {"restartPolicy"}) == "Always";
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

shim::Transform PodTemplateTransform() {
  return [](Value& object, Document::AllocatorType& alloc) -> Status {
    Value pod;
    if (Value* t = json::FindMutable(object, {"template"})) pod.Swap(*t);
    if (auto s = shim::DefaultTransformFn(object, alloc); !s) return s;
    if (!pod.IsNull()) json::SetMember(object, "template", std::move(pod), alloc);
    return {};
  };
}


prov::ProvisioningRequestView ReadProvisioningRequest(const Value& object) {
  prov::ProvisioningRequestView r;
  r.namespace_name = Str(object, {"metadata", "namespace"});
  r.name = Str(object, {"metadata", "name"});
  r.uid = Str(object, {"metadata", "uid"});
  if (const Value* g = json::Find(object, {"metadata", "generation"}); g && g->IsInt64()) r.generation = g->GetInt64();
  r.creation_time = ReadCreationTime(object, r.spec_errors);
  r.deleting = json::Find(object, {"metadata", "deletionTimestamp"}) != nullptr;
  r.scale_up_state = Str(object, {"metadata", "annotations", prov::kScaleUpStateAnnotation});
  const Value* spec = json::Member(object, "spec");
  if (spec == nullptr || !spec->IsObject()) {
    r.spec_errors.push_back("spec: must be an object");
    return r;
  }
  r.class_name = Str(*spec, {"provisioningClassName"});
  if (const Value* params = json::Member(*spec, "parameters"); params && !params->IsNull()) {
    if (!params->IsObject()) {
      r.spec_errors.push_back("spec.parameters: must be a map of strings");
    } else {
      for (const auto& m : params->GetObject()) {
        if (!m.value.IsString()) {
          r.spec_errors.push_back("spec.parameters." + std::string(m.name.GetString()) + ": must be a string");
          continue;
        }
        r.parameters.emplace(m.name.GetString(), m.value.GetString());
      }
    }
  }
  const Value* sets = json::Member(*spec, "podSets");
  if (sets == nullptr || !sets->IsArray() || sets->Empty()) {
    r.spec_errors.push_back("spec.podSets: must list at least one podSet");
    return r;
  }
  int i = 0;
  for (const auto& s : sets->GetArray()) {
    const std::string at = "spec.podSets[" + std::to_string(i++) + "]";
    prov::PodSetRef ref;
    ref.template_name = Str(s, {"podTemplateRef", "name"});
    if (ref.template_name.empty()) r.spec_errors.push_back(at + ".podTemplateRef.name: must be set");
    const Value* count = json::Member(s, "count");
    if (count == nullptr || !count->IsInt64() || count->GetInt64() < 1) {
      r.spec_errors.push_back(at + ".count: must be a positive integer, got " +
                              (count ? json::Serialize(*count) : std::string("nothing")));
    } else {
      ref.count = count->GetInt64();
    }
    r.pod_sets.push_back(std::move(ref));
  }
  if (const Value* conds = json::Find(object, {"status", "conditions"}); conds && conds->IsArray()) {
    for (const auto& c : conds->GetArray()) {
      if (!c.IsObject()) continue;
      prov::Condition cond;
      cond.type = Str(c, {"type"});
      cond.status = Str(c, {"status"});
      cond.reason = Str(c, {"reason"});
      cond.message = Str(c, {"message"});
      cond.last_transition_time = ReadTime(c, {"lastTransitionTime"});
      if (const Value* g = json::Member(c, "observedGeneration"); g && g->IsInt64()) cond.observed_generation = g->GetInt64();
      r.conditions.push_back(std::move(cond));
    }
  }
  return r;
}

prov::PodTemplateView ReadPodTemplate(const Value& object) {
  prov::PodTemplateView t;
  t.namespace_name = Str(object, {"metadata", "namespace"});
  t.name = Str(object, {"metadata", "name"});
  const Value* tmpl = json::Member(object, "template");
  if (tmpl == nullptr || !tmpl->IsObject()) {
    t.errors.push_back("template: must be an object");
    return t;
  }
  t.pod = ReadPodView(*tmpl);
  t.pod.requests.clear();  // computed by the pod builder from the containers
  const Value* spec = json::Member(*tmpl, "spec");
  if (spec == nullptr || !spec->IsObject()) return t;  // no containers: the builder says so
  t.containers = ReadContainers(json::Member(*spec, "containers"), "template.spec.containers", t.errors);
  t.init_containers = ReadContainers(json::Member(*spec, "initContainers"), "template.spec.initContainers", t.errors);
  t.overhead = ReadResourceList(json::Member(*spec, "overhead"), "template.spec.overhead", t.errors);
  return t;
}

Document StatusBody(const Value& object, const std::vector<prov::Condition>& conditions, std::string_view version) {
  Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  body.AddMember("apiVersion", Text(std::string(kProvisioningGroup) + "/" + std::string(version), a), a);
  body.AddMember("kind", "ProvisioningRequest", a);
  Value meta(rapidjson::kObjectType);
  for (const char* key : {"name", "namespace", "uid", "resourceVersion"}) {
    meta.AddMember(Value(key, a), Text(json::GetString(object, {"metadata", key}), a), a);
  }
  body.AddMember("metadata", meta, a);
  Value status(rapidjson::kObjectType);
  if (const Value* old = json::Member(object, "status"); old && old->IsObject()) status.CopyFrom(*old, a);
  Value list(rapidjson::kArrayType);
  for (const prov::Condition& c : conditions) {
    Value v(rapidjson::kObjectType);
    v.AddMember("type", Text(c.type, a), a);
    v.AddMember("status", Text(c.status, a), a);
    v.AddMember("observedGeneration", Value(c.observed_generation), a);
    v.AddMember("lastTransitionTime", Text(FormatTime(c.last_transition_time.value_or(prov::Time{})), a), a);
    v.AddMember("reason", Text(c.reason, a), a);
    v.AddMember("message", Text(c.message, a), a);
    list.PushBack(v, a);
  }
  json::SetMember(status, "conditions", std::move(list), a);
  body.AddMember("status", status, a);
  return body;
}

std::string BookingReservationName(std::string_view request_uid, std::string_view node) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : node) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "provreq-" + std::string(request_uid) + "-" + hex;
}

Document BookingReservation(const prov::ProvisioningRequestView& request, const prov::BookedSlice& slice,
                            std::string_view scheduler_name, int64_t ttl_seconds) {
  Document r(rapidjson::kObjectType);
  auto& a = r.GetAllocator();
  r.AddMember("apiVersion", "scheduling.koordinator.sh/v1alpha1", a);
  r.AddMember("kind", "Reservation", a);
  Value meta(rapidjson::kObjectType);
  meta.AddMember("name", Text(slice.reservation_name, a), a);
  Value labels(rapidjson::kObjectType);
  labels.AddMember(Value(kBookingNamespaceLabel, a), Text(request.namespace_name, a), a);
  if (request.name.size() <= 63) labels.AddMember(Value(kBookingNameLabel, a), Text(request.name, a), a);
  labels.AddMember(Value(kBookingUidLabel, a), Text(request.uid, a), a);
  meta.AddMember("labels", labels, a);
  Value annotations(rapidjson::kObjectType);
  annotations.AddMember(Value(kBookingForAnnotation, a),
                        Text(prov::ConsumerKey(request.namespace_name, request.name), a), a);
  meta.AddMember("annotations", annotations, a);
  r.AddMember("metadata", meta, a);

  Value spec(rapidjson::kObjectType);
  Value tmpl(rapidjson::kObjectType);
  Value tmeta(rapidjson::kObjectType);
  tmeta.AddMember("namespace", Text(request.namespace_name, a), a);
  tmpl.AddMember("metadata", tmeta, a);
  Value pod(rapidjson::kObjectType);
  pod.AddMember("nodeName", Text(slice.node_name, a), a);
  pod.AddMember("schedulerName", Text(scheduler_name, a), a);
  Value tolerations(rapidjson::kArrayType);
  Value all(rapidjson::kObjectType);
  all.AddMember("operator", "Exists", a);
  tolerations.PushBack(all, a);
  pod.AddMember("tolerations", tolerations, a);
  Value containers(rapidjson::kArrayType);
  Value container(rapidjson::kObjectType);
  container.AddMember("name", "booking", a);
  Value resources(rapidjson::kObjectType);
  reconcile::ResourceAmounts requests = slice.resources;
  requests.erase("pods");
  resources.AddMember("requests", WriteAmounts(requests, a), a);
  container.AddMember("resources", resources, a);
  containers.PushBack(container, a);
  pod.AddMember("containers", containers, a);
  tmpl.AddMember("spec", pod, a);
  spec.AddMember("template", tmpl, a);
  Value owners(rapidjson::kArrayType);
  Value owner(rapidjson::kObjectType);
  Value controller(rapidjson::kObjectType);
  controller.AddMember("apiVersion", Text(std::string(kProvisioningGroup) + "/" + kProvisioningVersion, a), a);
  controller.AddMember("kind", "ProvisioningRequest", a);
  controller.AddMember("name", Text(request.name, a), a);
  controller.AddMember("uid", Text(request.uid, a), a);
  controller.AddMember("namespace", Text(request.namespace_name, a), a);
  owner.AddMember("controller", controller, a);
  owners.PushBack(owner, a);
  spec.AddMember("owners", owners, a);
  spec.AddMember("allocateOnce", false, a);
  spec.AddMember("ttl", Text(std::to_string(ttl_seconds) + "s", a), a);
  r.AddMember("spec", spec, a);
  return r;
}

prov::BookedSlice ReadBookedSlice(const Value& reservation) {
  prov::BookedSlice s;
  s.reservation_name = Str(reservation, {"metadata", "name"});
  s.reservation_uid = Str(reservation, {"metadata", "uid"});
  s.node_name = Str(reservation, {"spec", "template", "spec", "nodeName"});
  if (const Value* spec = json::Find(reservation, {"spec", "template", "spec"}); spec && spec->IsObject()) {
    s.resources = reconcile::EffectiveRequests(PodResourcesOf(*spec));
  }
  return s;
}


}  // namespace berth::controllers
