#include "controllers/reservation/reservation_codec.h"

#include <algorithm>

#include "clientgo-shim/api/quantity.h"
#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "controllers/common/api_time.h"
#include "controllers/common/spec_fields.h"
#include "reconcile/common/annotation_json.h"
#include "reconcile/reservation/lifecycle.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
using reconcile::Time;

// Memory-like resources print in binary SI ("400Mi"), others in decimal ("500m", "6").
shim::Quantity::Format FormatFor(std::string_view name) {
  if (name == "memory" || name == "ephemeral-storage" || name.rfind("hugepages-", 0) == 0) {
    return shim::Quantity::Format::kBinarySI;
  }
  return shim::Quantity::Format::kDecimalSI;
}

// ReadExpiry reads spec.ttl and spec.expires (problems become spec_errors).
void ReadExpiry(const Value& spec, reconcile::ReservationSnapshot& r) {
  ReadTtl(json::Member(spec, "ttl"), "spec.ttl", r.ttl_text, r.ttl, r.spec_errors);
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

namespace {

// QuantityText: a ResourceList value as quantity text (numbers as JSON prints them); nullopt
// for other JSON types. `scratch` holds a number's text.
std::optional<std::string_view> QuantityText(const Value& v, std::string& scratch) {
  if (v.IsString()) return std::string_view(v.GetString(), v.GetStringLength());
  if (v.IsNumber()) return scratch = json::Serialize(v);
  return std::nullopt;
}

std::string FieldPath(std::string_view path, std::string_view name) {
  std::string out(path);
  if (!out.empty()) out.push_back('.');
  out.append(name);
  return out;
}

std::string InvalidQuantity(std::string_view field, std::string_view text) {
  return std::string(field) + ": invalid quantity \"" + std::string(text) + "\"";
}

// ReadList reads one ResourceList. An entry that does not parse gets `invalid_amount` (or is
// left out when nullopt) and, like a negative entry when `require_non_negative`, an error.
reconcile::ResourceAmounts ReadList(const Value* list, std::string_view path, std::vector<std::string>* errors,
                                    std::optional<int64_t> invalid_amount, bool require_non_negative) {
  reconcile::ResourceAmounts out;
  if (!list || list->IsNull()) return out;
  if (!list->IsObject()) {
    if (errors) errors->push_back(std::string(path) + ": must be an object of quantities");
    return out;
  }
  for (const auto& m : list->GetObject()) {
    std::string name(m.name.GetString(), m.name.GetStringLength());
    if (m.value.IsNull()) continue;  // Go's decoder skips null map values
    std::string scratch;
    std::optional<std::string_view> text = QuantityText(m.value, scratch);
    auto q = text ? shim::Quantity::Parse(*text) : Result<shim::Quantity>(MakeError(ErrorCode::kInvalidArgument, ""));
    if (!q) {
      if (errors) errors->push_back(InvalidQuantity(FieldPath(path, name), text ? *text : json::Serialize(m.value)));
      if (invalid_amount) out[name] = *invalid_amount;
      continue;
    }
    if (require_non_negative && q->Sign() < 0) {
      if (errors) {
        errors->push_back(FieldPath(path, name) + ": must be greater than or equal to 0, got \"" + std::string(*text) + "\"");
      }
      continue;
    }
    // MilliValue saturates: "1e30" reads as kUnboundedAmount, never as 0 or a wrapped value.
    out[name] = std::max(q->MilliValue(), -reconcile::kUnboundedAmount);
  }
  return out;
}

// ReadRequests reads one container's resources: requests (unparsable ones unbounded) and, only
// for the errors, limits. `path` makes the container's field path, called only when there is an
// error to name: a valid pod is read without building a path string (a cold start reads 150,000).
template <typename PathFn>
reconcile::ResourceAmounts ReadRequests(const Value& container, const PathFn& path, std::vector<std::string>* errors) {
  const Value* limits = json::Find(container, {"resources", "limits"});
  const Value* requests = json::Find(container, {"resources", "requests"});
  std::vector<std::string> problems;
  if (errors) ReadList(limits, "", &problems, std::nullopt, true);
  reconcile::ResourceAmounts out =
      ReadList(requests, "", errors ? &problems : nullptr, reconcile::kUnboundedAmount, true);
  if (!problems.empty()) {  // read again, naming the fields
    const std::string resources = FieldPath(path(), "resources");
    ReadList(limits, resources + ".limits", errors, std::nullopt, true);
    ReadList(requests, resources + ".requests", errors, reconcile::kUnboundedAmount, true);
  }
  return out;
}

}  // namespace

reconcile::ResourceAmounts ReadAmounts(const Value* list, std::vector<std::string>* errors, std::string_view path) {
  return ReadList(list, path, errors, std::nullopt, false);
}

Value WriteAmounts(const reconcile::ResourceAmounts& amounts, rapidjson::Document::AllocatorType& a) {
  Value out(rapidjson::kObjectType);
  for (const auto& [name, milli] : amounts) {
    std::string text = shim::Quantity::FromMilli(milli, FormatFor(name)).String();
    out.AddMember(Value(name.c_str(), a), Value(text.c_str(), a), a);
  }
  return out;
}

std::optional<reconcile::ResourceAmounts> ReadResizeAllocatable(const Value& reservation,
                                                                std::vector<std::string>* errors) {
  const Value* text = json::Find(reservation, {"metadata", "annotations", kReservationResizeAllocatableAnnotation});
  if (!text || !text->IsString()) return std::nullopt;
  const std::string path = std::string("metadata.annotations[") + kReservationResizeAllocatableAnnotation + "]";
  auto doc = reconcile::ParseAnnotationJson({text->GetString(), text->GetStringLength()});
  if (!doc || !doc->IsObject()) {
    if (errors) errors->push_back(path + ": " + (doc ? std::string("must be a JSON object") : doc.error().message));
    return std::nullopt;
  }
  std::vector<std::string> problems;
  reconcile::ResourceAmounts amounts =
      ReadList(json::Member(*doc, "resources"), path + ".resources", &problems, std::nullopt, true);
  if (!problems.empty()) {
    if (errors) errors->insert(errors->end(), problems.begin(), problems.end());
    return std::nullopt;
  }
  if (amounts.empty()) return std::nullopt;
  return amounts;
}

reconcile::PodResources PodResourcesOf(const Value& spec, std::vector<std::string>* errors, std::string_view path) {
  reconcile::PodResources pod;
  auto container_path = [&](std::string_view list, rapidjson::SizeType i) {
    return FieldPath(path, list) + "[" + std::to_string(i) + "]";
  };
  // A container list or container of the wrong shape is an error (the API server's decoder
  // would reject it), never an empty pod: that would reserve nothing and look valid.
  auto list_of = [&](std::string_view list) -> const Value* {
    const Value* cs = json::Member(spec, list);
    if (!cs || cs->IsNull()) return nullptr;
    if (!cs->IsArray()) {
      if (errors) errors->push_back(FieldPath(path, list) + ": must be a list of containers, got " + json::Serialize(*cs));
      return nullptr;
    }
    for (rapidjson::SizeType i = 0; i < cs->Size(); ++i) {
      const Value& c = (*cs)[i];
      if (!c.IsObject()) {
        if (errors) errors->push_back(container_path(list, i) + ": must be a container object, got " + json::Serialize(c));
        continue;
      }
      const Value* resources = json::Member(c, "resources");
      if (resources && !resources->IsNull() && !resources->IsObject() && errors) {
        errors->push_back(container_path(list, i) + ".resources: must be an object, got " + json::Serialize(*resources));
      }
    }
    return cs;
  };
  if (const Value* cs = list_of("containers")) {
    for (rapidjson::SizeType i = 0; i < cs->Size(); ++i) {
      if (!(*cs)[i].IsObject()) continue;
      pod.containers.push_back(ReadRequests((*cs)[i], [&] { return container_path("containers", i); }, errors));
    }
  }
  if (const Value* cs = list_of("initContainers")) {
    for (rapidjson::SizeType i = 0; i < cs->Size(); ++i) {
      const Value& c = (*cs)[i];
      if (!c.IsObject()) continue;
      pod.init_containers.push_back({ReadRequests(c, [&] { return container_path("initContainers", i); }, errors),
                                     json::GetString(c, {"restartPolicy"}) == "Always"});
    }
  }
  pod.overhead = ReadList(json::Member(spec, "overhead"), FieldPath(path, "overhead"), errors,
                          reconcile::kUnboundedAmount, true);
  return pod;
}

std::optional<Time> ReadExpiryDeadline(const Value& object) {
  reconcile::ReservationSnapshot r;
  r.creation_time = ReadCreationTime(object, r.spec_errors);
  if (!r.spec_errors.empty()) return std::nullopt;  // no deadline from an unreadable creation time
  const Value* spec = json::Member(object, "spec");
  if (!spec || !spec->IsObject()) return std::nullopt;
  ReadExpiry(*spec, r);
  return reconcile::ExpiryDeadline(r);
}

reconcile::ReservationSnapshot ReadReservation(const Value& object) {
  reconcile::ReservationSnapshot r;
  r.name = json::GetString(object, {"metadata", "name"});
  r.uid = json::GetString(object, {"metadata", "uid"});
  r.creation_time = ReadCreationTime(object, r.spec_errors);
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
  const Value* pod_template = json::Member(*spec, "template");
  const Value* template_spec = pod_template && pod_template->IsObject() ? json::Member(*pod_template, "spec") : nullptr;
  if (!pod_template || pod_template->IsNull()) {
    r.spec_errors.push_back("spec.template: Required value");
  } else if (!pod_template->IsObject()) {
    r.spec_errors.push_back("spec.template: must be a pod template object, got " + json::Serialize(*pod_template));
  } else if (template_spec && !template_spec->IsNull() && !template_spec->IsObject()) {
    r.spec_errors.push_back("spec.template.spec: must be a pod spec object, got " + json::Serialize(*template_spec));
  } else if (template_spec && template_spec->IsObject()) {
    PodResourcesOf(*template_spec, &r.spec_errors, "spec.template.spec");
  }
  ReadResizeAllocatable(object, &r.spec_errors);
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
  c.node_name = json::GetString(pod, {"spec", "nodeName"});
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
  c.node_name = pod.FindString({"spec", "nodeName"}).value_or("");
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
  if (!status.conditions.empty()) out.AddMember("conditions", ConditionsJson(status.conditions, a), a);
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
  // Only what ReadReservation(Value) reads: metadata name/uid/creation/deletion, the resize
  // annotation, spec, status.
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  Value& meta = json::EnsureObject(doc, "metadata", a);
  json::SetString(meta, "name", object.Name(), a);
  json::SetString(meta, "uid", object.Uid(), a);
  for (const char* key : {"creationTimestamp", "deletionTimestamp"}) {
    Value v;
    if (object.FindValue({"metadata", key}, v, a)) meta.AddMember(rapidjson::StringRef(key), v, a);
  }
  if (auto resize = object.FindString({"metadata", "annotations", kReservationResizeAllocatableAnnotation})) {
    Value& annotations = json::EnsureObject(meta, "annotations", a);
    json::SetString(annotations, kReservationResizeAllocatableAnnotation, std::string(*resize), a);
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
