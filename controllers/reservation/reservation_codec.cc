#include "controllers/reservation/reservation_codec.h"

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/api/quantity.h"
#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "reconcile/common/annotation_json.h"
#include "reconcile/reservation/lifecycle.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
using reconcile::Time;

std::optional<Time> ReadTime(const Value& root, std::initializer_list<std::string_view> path) {
  std::string_view text = json::GetString(root, path);
  if (text.empty()) return std::nullopt;
  auto t = shim::ParseTimestamp(text);
  if (!t) return std::nullopt;
  return std::chrono::time_point_cast<Time::duration>(*t);
}

std::string FormatTime(Time t) {
  return shim::FormatTimestamp(std::chrono::time_point_cast<std::chrono::nanoseconds>(t));
}

// Memory-like resources print in binary SI ("400Mi"), others in decimal ("500m", "6").
shim::Quantity::Format FormatFor(std::string_view name) {
  if (name == "memory" || name == "ephemeral-storage" || name.rfind("hugepages-", 0) == 0) {
    return shim::Quantity::Format::kBinarySI;
  }
  return shim::Quantity::Format::kDecimalSI;
}

// ReadExpiry reads spec.ttl and spec.expires (problems become spec_errors).
void ReadExpiry(const Value& spec, reconcile::ReservationSnapshot& r) {
  if (const Value* ttl = json::Member(spec, "ttl"); ttl && !ttl->IsNull()) {
    if (!ttl->IsString()) {
      r.spec_errors.push_back("spec.ttl: must be a duration string");
    } else {
      r.ttl_text = ttl->GetString();
      auto d = shim::ParseDuration(r.ttl_text);
      if (!d) {
        r.spec_errors.push_back("spec.ttl: " + d.error().message);
      } else if (d->count() < 0) {
        r.spec_errors.push_back("spec.ttl: must not be negative, got " + r.ttl_text);
      } else {
        r.ttl = *d;
      }
    }
  }
  if (const Value* expires = json::Member(spec, "expires"); expires && !expires->IsNull()) {
    auto t = expires->IsString() ? shim::ParseTimestamp(expires->GetString())
                                 : Result<shim::TimePoint>(MakeError(ErrorCode::kInvalidArgument, "not a string"));
    if (!t) {
      r.spec_errors.push_back("spec.expires: " + t.error().message);
    } else {
      r.expires = std::chrono::time_point_cast<Time::duration>(*t);
    }
  }
}

}  // namespace

reconcile::ResourceAmounts ReadAmounts(const Value* list) {
  reconcile::ResourceAmounts out;
  if (!list || !list->IsObject()) return out;
  for (const auto& m : list->GetObject()) {
    std::string text;
    if (m.value.IsString()) {
      text = m.value.GetString();
    } else if (m.value.IsNumber()) {
      text = json::Serialize(m.value);
    } else {
      continue;
    }
    auto q = shim::Quantity::Parse(text);
    if (q) out[m.name.GetString()] = q->MilliValue();
  }
  return out;
}

Value WriteAmounts(const reconcile::ResourceAmounts& amounts, rapidjson::Document::AllocatorType& a) {
  Value out(rapidjson::kObjectType);
  for (const auto& [name, milli] : amounts) {
    std::string text = shim::Quantity::FromMilli(milli, FormatFor(name)).String();
    out.AddMember(Value(name.c_str(), a), Value(text.c_str(), a), a);
  }
  return out;
}

reconcile::PodResources PodResourcesOf(const Value& spec) {
  reconcile::PodResources pod;
  if (const Value* cs = json::Member(spec, "containers"); cs && cs->IsArray()) {
    for (const auto& c : cs->GetArray()) pod.containers.push_back(ReadAmounts(json::Find(c, {"resources", "requests"})));
  }
  if (const Value* cs = json::Member(spec, "initContainers"); cs && cs->IsArray()) {
    for (const auto& c : cs->GetArray()) {
      pod.init_containers.push_back({ReadAmounts(json::Find(c, {"resources", "requests"})),
                                     json::GetString(c, {"restartPolicy"}) == "Always"});
    }
  }
  pod.overhead = ReadAmounts(json::Member(spec, "overhead"));
  return pod;
}

std::optional<Time> ReadExpiryDeadline(const Value& object) {
  reconcile::ReservationSnapshot r;
  r.creation_time = ReadTime(object, {"metadata", "creationTimestamp"}).value_or(Time{});
  const Value* spec = json::Member(object, "spec");
  if (!spec || !spec->IsObject()) return std::nullopt;
  ReadExpiry(*spec, r);
  return reconcile::ExpiryDeadline(r);
}

reconcile::ReservationSnapshot ReadReservation(const Value& object) {
  reconcile::ReservationSnapshot r;
  r.name = json::GetString(object, {"metadata", "name"});
  r.uid = json::GetString(object, {"metadata", "uid"});
  r.creation_time = ReadTime(object, {"metadata", "creationTimestamp"}).value_or(Time{});
  r.deleting = json::Find(object, {"metadata", "deletionTimestamp"}) != nullptr;
  const Value* spec = json::Member(object, "spec");
  if (!spec || !spec->IsObject()) {
    r.spec_errors.push_back("spec: Required value");
    return r;
  }
  ReadExpiry(*spec, r);
  if (const Value* once = json::Member(*spec, "allocateOnce"); once && once->IsBool()) r.allocate_once = once->GetBool();
  if (const Value* owners = json::Member(*spec, "owners"); owners && owners->IsArray()) {
    for (rapidjson::SizeType i = 0; i < owners->Size(); ++i) {
      const Value& o = (*owners)[i];
      if (!o.IsObject() || o.MemberCount() == 0) {
        r.spec_errors.push_back("spec.owners[" + std::to_string(i) + "]: must name an object, controller or labelSelector");
      }
    }
  } else {
    r.spec_errors.push_back("spec.owners: Required value");
  }
  // Unparsable template quantities would make the reservation reserve the wrong amount.
  if (const Value* containers = json::Find(*spec, {"template", "spec", "containers"}); containers && containers->IsArray()) {
    for (const auto& c : containers->GetArray()) {
      const Value* requests = json::Find(c, {"resources", "requests"});
      if (!requests || !requests->IsObject()) continue;
      for (const auto& m : requests->GetObject()) {
        std::string text = m.value.IsString() ? m.value.GetString() : json::Serialize(m.value);
        if (auto q = shim::Quantity::Parse(text); !q) {
          r.spec_errors.push_back("spec.template.spec.containers[" + std::string(json::GetString(c, {"name"})) +
                                  "].resources.requests." + m.name.GetString() + ": " + q.error().message);
        }
      }
    }
  }
  if (const Value* status = json::Member(object, "status"); status && status->IsObject()) {
    r.status.phase = reconcile::ParsePhase(json::GetString(*status, {"phase"})).value_or(reconcile::Phase::kPending);
    r.status.node_name = json::GetString(*status, {"nodeName"});
    r.status.allocatable = ReadAmounts(json::Member(*status, "allocatable"));
    r.status.allocated = ReadAmounts(json::Member(*status, "allocated"));
    if (const Value* owners = json::Member(*status, "currentOwners"); owners && owners->IsArray()) {
      for (const auto& o : owners->GetArray()) {
        r.status.current_owners.push_back({std::string(json::GetString(o, {"namespace"})),
                                           std::string(json::GetString(o, {"name"})),
                                           std::string(json::GetString(o, {"uid"}))});
      }
    }
    if (const Value* conds = json::Member(*status, "conditions"); conds && conds->IsArray()) {
      for (const auto& c : conds->GetArray()) {
        r.status.conditions.push_back({std::string(json::GetString(c, {"type"})), std::string(json::GetString(c, {"status"})),
                                       std::string(json::GetString(c, {"reason"})), std::string(json::GetString(c, {"message"})),
                                       ReadTime(c, {"lastTransitionTime"}), ReadTime(c, {"lastProbeTime"})});
      }
    }
  }
  return r;
}

std::optional<AllocatedRef> AllocatedReservation(const Value& pod) {
  std::string_view text = json::GetString(pod, {"metadata", "annotations", kReservationAllocatedAnnotation});
  if (text.empty()) return std::nullopt;
  auto doc = reconcile::ParseAnnotationJson(text);  // an annotation: nesting is unbounded
  if (!doc || !doc->IsObject()) return std::nullopt;
  AllocatedRef ref{std::string(json::GetString(*doc, {"name"})), std::string(json::GetString(*doc, {"uid"}))};
  if (ref.uid.empty()) return std::nullopt;
  return ref;
}

reconcile::ConsumerPod ReadConsumerPod(const Value& pod) {
  reconcile::ConsumerPod c;
  c.namespace_name = json::GetString(pod, {"metadata", "namespace"});
  c.name = json::GetString(pod, {"metadata", "name"});
  c.uid = json::GetString(pod, {"metadata", "uid"});
  std::string_view phase = json::GetString(pod, {"status", "phase"});
  c.terminal = phase == "Succeeded" || phase == "Failed";
  c.deleting = json::Find(pod, {"metadata", "deletionTimestamp"}) != nullptr;
  if (const Value* spec = json::Member(pod, "spec")) c.requests = reconcile::EffectiveRequests(PodResourcesOf(*spec));
  return c;
}

reconcile::ConsumerPod ReadConsumerPod(const shim::CachedObject& pod) {
  reconcile::ConsumerPod c;
  c.namespace_name = pod.Namespace();
  c.name = pod.Name();
  c.uid = pod.Uid();
  auto phase = pod.FindString({"status", "phase"});
  c.terminal = phase && (*phase == "Succeeded" || *phase == "Failed");
  c.deleting = pod.FindJson({"metadata", "deletionTimestamp"}).has_value();
  // Only what PodResourcesOf reads: a spec with the three members (absent ones stay absent).
  rapidjson::Document spec(rapidjson::kObjectType);
  for (const char* key : {"containers", "initContainers", "overhead"}) {
    Value v;
    if (pod.FindValue({"spec", key}, v, spec.GetAllocator())) {
      spec.AddMember(rapidjson::StringRef(key), v, spec.GetAllocator());
    }
  }
  c.requests = reconcile::EffectiveRequests(PodResourcesOf(spec));
  return c;
}

Value StatusJson(const reconcile::ReservationStatus& status, rapidjson::Document::AllocatorType& a) {
  Value out(rapidjson::kObjectType);
  json::SetString(out, "phase", reconcile::PhaseName(status.phase), a);
  if (!status.conditions.empty()) {
    Value conds(rapidjson::kArrayType);
    for (const auto& c : status.conditions) {
      Value v(rapidjson::kObjectType);
      json::SetString(v, "type", c.type, a);
      json::SetString(v, "status", c.status, a);
      if (!c.reason.empty()) json::SetString(v, "reason", c.reason, a);
      if (!c.message.empty()) json::SetString(v, "message", c.message, a);
      if (c.last_probe_time) json::SetString(v, "lastProbeTime", FormatTime(*c.last_probe_time), a);
      if (c.last_transition_time) json::SetString(v, "lastTransitionTime", FormatTime(*c.last_transition_time), a);
      conds.PushBack(v, a);
    }
    out.AddMember("conditions", conds, a);
  }
  if (!status.current_owners.empty()) {
    Value owners(rapidjson::kArrayType);
    for (const auto& o : status.current_owners) {
      Value v(rapidjson::kObjectType);
      json::SetString(v, "name", o.name, a);
      json::SetString(v, "namespace", o.namespace_name, a);
      json::SetString(v, "uid", o.uid, a);
      owners.PushBack(v, a);
    }
    out.AddMember("currentOwners", owners, a);
  }
  if (!status.node_name.empty()) json::SetString(out, "nodeName", status.node_name, a);
  if (!status.allocatable.empty()) out.AddMember("allocatable", WriteAmounts(status.allocatable, a), a);
  if (!status.allocated.empty()) out.AddMember("allocated", WriteAmounts(status.allocated, a), a);
  return out;
}

reconcile::ReservationSnapshot ReadReservation(const shim::CachedObject& object) {
  // Only what ReadReservation(Value) reads: metadata name/uid/creation/deletion, spec, status.
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  Value& meta = json::EnsureObject(doc, "metadata", a);
  json::SetString(meta, "name", object.Name(), a);
  json::SetString(meta, "uid", object.Uid(), a);
  for (const char* key : {"creationTimestamp", "deletionTimestamp"}) {
    Value v;
    if (object.FindValue({"metadata", key}, v, a)) meta.AddMember(rapidjson::StringRef(key), v, a);
  }
  for (const char* key : {"spec", "status"}) {
    Value v;
    if (object.FindValue({key}, v, a)) doc.AddMember(rapidjson::StringRef(key), v, a);
  }
  return ReadReservation(doc);
}

rapidjson::Document StatusUpdateBody(const shim::CachedObject& cached, const reconcile::ReservationStatus& status) {
  rapidjson::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  json::SetString(body, "apiVersion", "scheduling.koordinator.sh/v1alpha1", a);
  json::SetString(body, "kind", "Reservation", a);
  Value& meta = json::EnsureObject(body, "metadata", a);
  json::SetString(meta, "name", cached.Name(), a);
  if (!cached.Uid().empty()) json::SetString(meta, "uid", cached.Uid(), a);
  if (!cached.ResourceVersion().empty()) json::SetString(meta, "resourceVersion", cached.ResourceVersion(), a);
  json::SetMember(body, "status", StatusJson(status, a), a);
  return body;
}

}  // namespace berth::controllers
