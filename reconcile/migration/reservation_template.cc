#include "reconcile/migration/reservation_template.h"

#include "clientgo-shim/base/json.h"

namespace berth::reconcile::migration {
namespace {

using rapidjson::Document;
using rapidjson::Value;

const Value* ControllerRef(const Value& pod) {
  const Value* refs = json::Find(pod, {"metadata", "ownerReferences"});
  if (!refs || !refs->IsArray()) return nullptr;
  for (const auto& r : refs->GetArray()) {
    const Value* c = json::Member(r, "controller");
    if (c && c->IsBool() && c->GetBool()) return &r;
  }
  return nullptr;
}

// ObjectField: root[key] as an object, created when absent or null; nullptr when it is something
// else (json::EnsureObject would silently replace it).
Value* ObjectField(Value& root, std::string_view key, Document::AllocatorType& a) {
  auto it = root.FindMember(json::KeyOf(key));
  if (it == root.MemberEnd() || it->value.IsNull()) {
    json::SetMember(root, key, Value(rapidjson::kObjectType), a);
    it = root.FindMember(json::KeyOf(key));
  }
  return it->value.IsObject() ? &it->value : nullptr;
}

// ExcludeNode appends metadata.name NotIn [node] to every required node-selector term (a term
// list is ORed, so each term must exclude the node), or adds the one term.
Status ExcludeNode(Value& spec, const std::string& node, Document::AllocatorType& a) {
  Value* affinity = ObjectField(spec, "affinity", a);
  if (!affinity) return MakeError(ErrorCode::kInvalidArgument, "spec.affinity is not an object");
  Value* node_affinity = ObjectField(*affinity, "nodeAffinity", a);
  if (!node_affinity) return MakeError(ErrorCode::kInvalidArgument, "spec.affinity.nodeAffinity is not an object");
  Value* required_ptr = ObjectField(*node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", a);
  if (!required_ptr) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution is not an object");
  }
  Value& required = *required_ptr;
  Value* terms = json::FindMutable(required, {"nodeSelectorTerms"});
  if (terms && !terms->IsNull() && !terms->IsArray()) {
    return MakeError(ErrorCode::kInvalidArgument, "nodeSelectorTerms is not a list");
  }
  if (!terms || !terms->IsArray()) {
    json::SetMember(required, "nodeSelectorTerms", Value(rapidjson::kArrayType), a);
    terms = json::FindMutable(required, {"nodeSelectorTerms"});
  }
  if (terms->Empty()) terms->PushBack(Value(rapidjson::kObjectType), a);
  for (auto& term : terms->GetArray()) {
    if (!term.IsObject()) return MakeError(ErrorCode::kInvalidArgument, "a nodeSelectorTerm is not an object");
    Value* fields = json::FindMutable(term, {"matchFields"});
    if (fields && !fields->IsNull() && !fields->IsArray()) {
      return MakeError(ErrorCode::kInvalidArgument, "a nodeSelectorTerm's matchFields is not a list");
    }
    if (!fields || !fields->IsArray()) {
      json::SetMember(term, "matchFields", Value(rapidjson::kArrayType), a);
      fields = json::FindMutable(term, {"matchFields"});
    }
    Value req(rapidjson::kObjectType);
    json::SetString(req, "key", "metadata.name", a);
    json::SetString(req, "operator", "NotIn", a);
    Value values(rapidjson::kArrayType);
    values.PushBack(Value(node.c_str(), static_cast<rapidjson::SizeType>(node.size()), a), a);
    req.AddMember("values", values, a);
    fields->PushBack(req, a);
  }
  return {};
}

// PendingUnschedulable: koordinator's GenerateReserveResourceOwners test for a pod to be reserved
// for itself: phase Pending and PodScheduled=False.
bool PendingUnschedulable(const Value& pod) {
  if (json::GetString(pod, {"status", "phase"}) != "Pending") return false;
  const Value* conds = json::Find(pod, {"status", "conditions"});
  if (!conds || !conds->IsArray()) return false;
  for (const auto& c : conds->GetArray()) {
    if (json::GetString(c, {"type"}) == "PodScheduled") return json::GetString(c, {"status"}) == "False";
  }
  return false;
}

}  // namespace

Result<Document> BuildMigrationReservation(const ReservationRequest& request, const Value& pod,
                                           const Value* user_template) {
  const Value* pod_spec = json::Member(pod, "spec");
  if (!pod_spec || !pod_spec->IsObject()) return MakeError(ErrorCode::kInvalidArgument, "the pod has no spec");
  const std::string pod_ns(json::GetString(pod, {"metadata", "namespace"}));
  const std::string pod_name(json::GetString(pod, {"metadata", "name"}));
  const std::string node(json::GetString(pod, {"spec", "nodeName"}));
  const Value* controller = ControllerRef(pod);
  const bool pending = PendingUnschedulable(pod);
  const Value* user_owners = user_template ? json::Find(*user_template, {"spec", "owners"}) : nullptr;
  if (!controller && !pending && !(user_owners && user_owners->IsArray() && !user_owners->Empty())) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "pod " + pod_ns + "/" + pod_name + " has no controller to consume the reservation");
  }

  Document r(rapidjson::kObjectType);
  auto& a = r.GetAllocator();
  json::SetString(r, "apiVersion", "scheduling.koordinator.sh/v1alpha1", a);
  json::SetString(r, "kind", "Reservation", a);
  Value& meta = json::EnsureObject(r, "metadata", a);
  json::SetString(meta, "name", request.reservation_name, a);
  Value& labels = json::EnsureObject(meta, "labels", a);  // just created: no value to lose
  if (user_template) {
    if (const Value* l = json::Find(*user_template, {"metadata", "labels"}); l && l->IsObject()) {
      labels.CopyFrom(*l, a);
    }
    // koordinator creates the Reservation with the template's ObjectMeta: its annotations carry
    // reservation options (reservation-restricted-options, reservation-resize-allocatable, ...).
    if (const Value* an = json::Find(*user_template, {"metadata", "annotations"}); an && an->IsObject()) {
      Value copy;
      copy.CopyFrom(*an, a);
      meta.AddMember("annotations", copy, a);
    }
  }
  json::SetString(labels, kCreatedByLabel, kCreatedByValue, a);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(request.now.time_since_epoch()).count();
  if (request.ahead) {
    labels.RemoveMember(Value(kReservationOrderLabel.data(), static_cast<rapidjson::SizeType>(kReservationOrderLabel.size())));
  } else {
    json::SetString(labels, kReservationOrderLabel, std::to_string(ms), a);
  }
  Value owner_ref(rapidjson::kObjectType);
  json::SetString(owner_ref, "apiVersion", "scheduling.koordinator.sh/v1alpha1", a);
  json::SetString(owner_ref, "kind", "PodMigrationJob", a);
  json::SetString(owner_ref, "name", request.job_name, a);
  json::SetString(owner_ref, "uid", request.job_uid, a);
  owner_ref.AddMember("controller", true, a);
  owner_ref.AddMember("blockOwnerDeletion", true, a);
  Value owner_refs(rapidjson::kArrayType);
  owner_refs.PushBack(owner_ref, a);
  meta.AddMember("ownerReferences", owner_refs, a);

  Value spec(rapidjson::kObjectType);
  if (user_template) {
    if (const Value* s = json::Member(*user_template, "spec"); s && s->IsObject()) spec.CopyFrom(*s, a);
  }
  if (!json::Member(spec, "template")) {
    Value tmpl(rapidjson::kObjectType);
    Value tmeta(rapidjson::kObjectType);
    json::SetString(tmeta, "namespace", pod_ns, a);
    if (const Value* l = json::Find(pod, {"metadata", "labels"}); l && l->IsObject()) {
      Value copy;
      copy.CopyFrom(*l, a);
      tmeta.AddMember("labels", copy, a);
    }
    tmpl.AddMember("metadata", tmeta, a);
    Value pspec;
    pspec.CopyFrom(*pod_spec, a);
    json::RemoveMember(pspec, "nodeName");
    tmpl.AddMember("spec", pspec, a);
    spec.AddMember("template", tmpl, a);
  }
  Value* tspec = json::FindMutable(spec, {"template", "spec"});
  if (!tspec || !tspec->IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "reservationOptions.template.spec.template.spec is not an object");
  }
  if (!node.empty()) {
    if (auto s = ExcludeNode(*tspec, node, a); !s) return std::unexpected(s.error());
  }
  if (!json::Member(spec, "owners") && pending) {
    // An unschedulable pod is reserved for by itself (the object owner koordinator writes): its
    // replacement is the pod, scheduled into the reservation, with no eviction.
    Value o(rapidjson::kObjectType);
    json::SetString(o, "uid", json::GetString(pod, {"metadata", "uid"}), a);
    json::SetString(o, "kind", "Pod", a);
    json::SetString(o, "name", pod_name, a);
    json::SetString(o, "namespace", pod_ns, a);
    Value owner(rapidjson::kObjectType);
    owner.AddMember("object", o, a);
    Value owners(rapidjson::kArrayType);
    owners.PushBack(owner, a);
    spec.AddMember("owners", owners, a);
  } else if (!json::Member(spec, "owners")) {
    Value c(rapidjson::kObjectType);
    for (const char* f : {"apiVersion", "kind", "name", "uid"}) {
      json::SetString(c, f, json::GetString(*controller, {f}), a);
    }
    c.AddMember("controller", true, a);
    json::SetString(c, "namespace", pod_ns, a);
    Value owner(rapidjson::kObjectType);
    owner.AddMember("controller", c, a);
    Value owners(rapidjson::kArrayType);
    owners.PushBack(owner, a);
    spec.AddMember("owners", owners, a);
  }
  json::SetMember(spec, "allocateOnce", Value(true), a);
  if (!json::Member(spec, "ttl") && !json::Member(spec, "expires") && !request.ttl_text.empty()) {
    json::SetString(spec, "ttl", request.ttl_text, a);
  }
  r.AddMember("spec", spec, a);
  return r;
}

}  // namespace berth::reconcile::migration
