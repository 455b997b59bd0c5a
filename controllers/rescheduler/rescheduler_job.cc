#include "controllers/rescheduler/rescheduler_job.h"

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;

// TargetTemplate: the reservation template of a move: the pod's labels and spec (nodeName
// cleared) with `metadata.name In [targets]` appended to every required node-affinity term
// (a term is added when there is none), so the reservation can only land on a target.
Result<rapidjson::Document> TargetTemplate(const Value& pod, const std::vector<std::string>& targets) {
  const Value* pod_spec = json::Member(pod, "spec");
  if (!pod_spec || !pod_spec->IsObject()) return MakeError(ErrorCode::kInvalidArgument, "the pod has no spec");
  rapidjson::Document t(rapidjson::kObjectType);
  auto& a = t.GetAllocator();
  Value& spec = json::EnsureObject(t, "spec", a);
  Value& tmpl = json::EnsureObject(spec, "template", a);
  Value& tmeta = json::EnsureObject(tmpl, "metadata", a);
  json::SetString(tmeta, "namespace", json::GetString(pod, {"metadata", "namespace"}), a);
  if (const Value* l = json::Find(pod, {"metadata", "labels"}); l && l->IsObject()) {
    Value copy;
    copy.CopyFrom(*l, a);
    tmeta.AddMember("labels", copy, a);
  }
  Value pspec;
  pspec.CopyFrom(*pod_spec, a);
  json::RemoveMember(pspec, "nodeName");
  // json::EnsureObject replaces a non-object; a malformed affinity must fail, not be dropped.
  auto not_object = [](const Value* v) { return v != nullptr && !v->IsNull() && !v->IsObject(); };
  if (not_object(json::Member(pspec, "affinity"))) {
    return MakeError(ErrorCode::kInvalidArgument, "spec.affinity is not an object");
  }
  Value& affinity = json::EnsureObject(pspec, "affinity", a);
  if (not_object(json::Member(affinity, "nodeAffinity"))) {
    return MakeError(ErrorCode::kInvalidArgument, "spec.affinity.nodeAffinity is not an object");
  }
  Value& node_affinity = json::EnsureObject(affinity, "nodeAffinity", a);
  if (not_object(json::Member(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution"))) {
    return MakeError(ErrorCode::kInvalidArgument, "required node affinity is not an object");
  }
  Value& required = json::EnsureObject(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", a);
  Value* terms = json::FindMutable(required, {"nodeSelectorTerms"});
  if (!terms || !terms->IsArray()) {
    json::SetMember(required, "nodeSelectorTerms", Value(rapidjson::kArrayType), a);
    terms = json::FindMutable(required, {"nodeSelectorTerms"});
  }
  if (terms->Empty()) terms->PushBack(Value(rapidjson::kObjectType), a);
  for (auto& term : terms->GetArray()) {
    if (!term.IsObject()) return MakeError(ErrorCode::kInvalidArgument, "a nodeSelectorTerm is not an object");
    Value* fields = json::FindMutable(term, {"matchFields"});
    if (!fields || !fields->IsArray()) {
      json::SetMember(term, "matchFields", Value(rapidjson::kArrayType), a);
      fields = json::FindMutable(term, {"matchFields"});
    }
    Value req(rapidjson::kObjectType);
    json::SetString(req, "key", "metadata.name", a);
    json::SetString(req, "operator", "In", a);
    Value values(rapidjson::kArrayType);
    for (const auto& n : targets) values.PushBack(Value(n.c_str(), static_cast<rapidjson::SizeType>(n.size()), a), a);
    req.AddMember("values", values, a);
    fields->PushBack(req, a);
  }
  tmpl.AddMember("spec", pspec, a);
  return t;
}

}  // namespace

Result<rapidjson::Document> BuildReschedulingJob(const reconcile::rescheduler::Move& move, const Value& pod) {
  auto tmpl = TargetTemplate(pod, move.to_nodes);
  if (!tmpl) return std::unexpected(tmpl.error());
  rapidjson::Document job(rapidjson::kObjectType);
  auto& a = job.GetAllocator();
  json::SetString(job, "apiVersion", "scheduling.koordinator.sh/v1alpha1", a);
  json::SetString(job, "kind", "PodMigrationJob", a);
  Value& meta = json::EnsureObject(job, "metadata", a);
  json::SetString(meta, "generateName", "berth-rescheduler-", a);
  Value& annotations = json::EnsureObject(meta, "annotations", a);
  json::SetString(annotations, kEvictReasonAnnotation, move.reason, a);
  json::SetString(annotations, kEvictTriggerAnnotation, move.strategy, a);
  json::SetString(annotations, kJobCreatedByAnnotation, kCreatedBy, a);
  Value& spec = json::EnsureObject(job, "spec", a);
  json::SetString(spec, "mode", "ReservationFirst", a);
  Value& ref = json::EnsureObject(spec, "podRef", a);
  json::SetString(ref, "namespace", move.pod_namespace, a);
  json::SetString(ref, "name", move.pod_name, a);
  json::SetString(ref, "uid", move.pod_uid, a);
  Value& options = json::EnsureObject(spec, "reservationOptions", a);
  Value template_value;
  template_value.CopyFrom(*tmpl, a);
  options.AddMember("template", template_value, a);
  return job;
}

}  // namespace berth::controllers
