// The pod and workload subresources: pods/eviction (policy/v1, PDB-guarded, decided by
// disruption/), pods/binding (what a scheduler posts), and /scale (autoscaling/v1) for apps.
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/pod_conditions.h"
#include "e2e/kubesim/api/request_body.h"
#include "e2e/kubesim/api/response_format.h"
#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/disruption/eviction.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

Document ParseStored(const StoredObject& obj) {
  Document d;
  d.Parse(obj.json.data(), obj.json.size());
  return d;
}

}  // namespace

void ApiServer::HandleEviction(const HttpRequest& request, const ParsedPath& path,
                               ResponseSink& sink) {
  std::optional<Document> decoded = DecodeBodyOrReply(request, sink);
  if (!decoded) return;
  Document& body = *decoded;
  ResourceTypePtr pods = TypeOf("", "pods");
  ResourceTypePtr pdbs = TypeOf("policy", "poddisruptionbudgets");
  bool dry_run = request.Query("dryRun") == "All";
  for (int attempt = 0; attempt < 20; ++attempt) {
    ObjectPtr pod_obj = store_.Get(pods->StorageKey(), path.ns, path.name);
    if (!pod_obj) {
      sink.Send(NotFound("", "pods", path.name));
      return;
    }
    Document pod = ParseStored(*pod_obj);
    std::vector<Document> pdb_docs;
    std::vector<ObjectPtr> pdb_objs;
    auto all = store_.List(pdbs->StorageKey(), path.ns, nullptr, 0, 0, "");
    for (const auto& p : all->items) {
      Document d = ParseStored(*p);
      if (disruption::PdbSelectsPod(d, pod)) {
        pdb_docs.push_back(std::move(d));
        pdb_objs.push_back(p);
      }
    }
    std::vector<const Value*> matching;
    for (auto& d : pdb_docs) matching.push_back(&d);
    auto decision = disruption::DecideEviction(pod, matching, body, path.name, dry_run,
                                               std::chrono::system_clock::now());
    if (auto* reject = std::get_if<disruption::EvictionReject>(&decision)) {
      HttpResponse r = JsonObjectResponse(reject->http_code, reject->status);
      if (reject->retry_after_seconds) r.headers.emplace_back("Retry-After", std::to_string(*reject->retry_after_seconds));
      sink.Send(std::move(r));
      return;
    }
    auto& allow = std::get<disruption::EvictionAllow>(decision);
    if (allow.dry_run) {
      sink.Send(JsonObjectResponse(allow.http_code, allow.success_status));
      return;
    }
    if (allow.decrement_pdb) {
      // Consume one disruption with an update conditioned on the PDB version we decided on.
      size_t idx = 0;
      while (idx < pdb_docs.size() && json::GetString(pdb_docs[idx], {"metadata", "name"}) != allow.pdb_name) ++idx;
      if (idx == pdb_docs.size()) continue;
      Document updated;
      updated.CopyFrom(pdb_docs[idx], updated.GetAllocator());
      Value status(allow.updated_pdb_status, updated.GetAllocator());
      json::SetMember(updated, "status", std::move(status), updated.GetAllocator());
      WriteOptions opts;
      opts.subresource = "status";
      opts.field_validation = "Ignore";
      OpResult r = DoUpdate(*pdbs, path.ns, allow.pdb_name, std::move(updated), opts);
      if (!r.ok()) {
        if (r.error->status == 409) continue;  // re-read the PDB and decide again
        sink.Send(std::move(*r.error));
        return;
      }
    }
    DeleteOptions del;
    if (const Value* g = json::Member(allow.delete_options, "gracePeriodSeconds"); g && g->IsInt64()) {
      del.grace_period_seconds = g->GetInt64();
    }
    del.precondition_uid = json::GetString(allow.delete_options, {"preconditions", "uid"});
    del.precondition_rv = json::GetString(allow.delete_options, {"preconditions", "resourceVersion"});
    if (allow.add_disruption_target_condition) {
      // addConditionAndDeletePod: the preconditions are checked against the pod the condition
      // is added to, and the delete then expects the version that write produced.
      auto now = std::chrono::system_clock::now();
      bool precondition_failed = false;
      OpResult marked = Mutate(*pods, path.ns, path.name, "status", [&](Document& d) {
        if ((!del.precondition_uid.empty() && json::GetString(d, {"metadata", "uid"}) != del.precondition_uid) ||
            (!del.precondition_rv.empty() &&
             json::GetString(d, {"metadata", "resourceVersion"}) != del.precondition_rv)) {
          precondition_failed = true;
          return false;
        }
        disruption::ApplyDisruptionTargetCondition(d, now, d.GetAllocator());
        return true;
      });
      if (precondition_failed) {
        if (allow.conflict_means_too_many_requests) {
          auto reject = disruption::TooManyRequestsWhilePdbProcessing(allow.pdb_name);
          HttpResponse r = JsonObjectResponse(reject.http_code, reject.status);
          if (reject.retry_after_seconds) r.headers.emplace_back("Retry-After", std::to_string(*reject.retry_after_seconds));
          sink.Send(std::move(r));
          return;
        }
        continue;  // the pod changed since we decided: decide again on the new version
      }
      if (marked.ok() && marked.object && !del.precondition_rv.empty()) {
        del.precondition_rv = std::to_string(marked.object->resource_version);
      }
    }
    OpResult deleted = DoDelete(*pods, path.ns, path.name, del);
    if (!deleted.ok() && deleted.error->status != 404) {
      if (deleted.error->status == 409 && allow.conflict_means_too_many_requests) {
        auto reject = disruption::TooManyRequestsWhilePdbProcessing(allow.pdb_name);
        HttpResponse r = JsonObjectResponse(reject.http_code, reject.status);
        if (reject.retry_after_seconds) r.headers.emplace_back("Retry-After", std::to_string(*reject.retry_after_seconds));
        sink.Send(std::move(r));
        return;
      }
      if (deleted.error->status == 409) continue;  // EvictionsRetry: conflicts are retried
      sink.Send(std::move(*deleted.error));
      return;
    }
    sink.Send(JsonObjectResponse(allow.http_code, allow.success_status));
    return;
  }
  sink.Send(StatusError(504, "Timeout", "couldn't update PodDisruptionBudget due to conflicts"));
}

void ApiServer::HandleBinding(const HttpRequest& request, const ParsedPath& path,
                              ResponseSink& sink) {
  std::optional<Document> decoded = DecodeBodyOrReply(request, sink);
  if (!decoded) return;
  Document& body = *decoded;
  std::string_view body_name = json::GetString(body, {"metadata", "name"});
  if (!body_name.empty() && body_name != path.name) {
    sink.Send(BadRequest("name in URL does not match name in Binding object"));
    return;
  }
  if (auto failure = DoBind(path.ns, path.name, body)) {
    sink.Send(std::move(*failure));
    return;
  }
  sink.Send(SuccessStatus(201));
}

void ApiServer::HandleBindingsCollection(const HttpRequest& request, const ParsedPath& path,
                                         ResponseSink& sink) {
  if (path.ns.empty()) {  // bindings are namespaced only, as in kube-apiserver
    sink.Send(StatusError(404, "NotFound", "the server could not find the requested resource"));
    return;
  }
  if (request.method != "POST" || !path.name.empty()) {
    sink.Send(MethodNotAllowed("the server does not allow this method on the requested resource"));
    return;
  }
  std::optional<Document> decoded = DecodeBodyOrReply(request, sink);
  if (!decoded) return;
  Document& body = *decoded;
  std::string name(json::GetString(body, {"metadata", "name"}));
  if (name.empty()) {
    sink.Send(Invalid("", "Binding", "", {{"FieldValueRequired", "Required value: name or generateName is required",
                                           "metadata.name"}}));
    return;
  }
  if (auto failure = DoBind(path.ns, name, body)) {
    sink.Send(std::move(*failure));
    return;
  }
  sink.Send(SuccessStatus(201));
}

std::optional<HttpResponse> ApiServer::DoBind(const std::string& ns, const std::string& pod_name,
                                              const rapidjson::Value& body) {
  std::string node(json::GetString(body, {"target", "name"}));
  std::string_view target_kind = json::GetString(body, {"target", "kind"});
  if (node.empty()) {
    return Invalid("", "Binding", pod_name, {{"FieldValueRequired", "Required value", "target.name"}});
  }
  if (!target_kind.empty() && target_kind != "Node") {
    return Invalid("", "Binding", pod_name,
                   {{"FieldValueNotSupported", "Unsupported value: \"" + std::string(target_kind) +
                                                   "\": supported values: \"Node\"", "target.kind"}});
  }
  ResourceTypePtr pods = TypeOf("", "pods");
  std::string expected_uid(json::GetString(body, {"metadata", "uid"}));
  std::optional<HttpResponse> failure;
  std::string now = NowRfc3339();
  OpResult r = Mutate(*pods, ns, pod_name, "binding", [&](Document& pod) {
    auto& a = pod.GetAllocator();
    if (!expected_uid.empty() && json::GetString(pod, {"metadata", "uid"}) != expected_uid) {
      failure = StatusError(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + pod_name +
                                                 "\": precondition failed: UID mismatch");
      return false;
    }
    if (json::Find(pod, {"metadata", "deletionTimestamp"})) {
      failure = StatusError(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + pod_name +
                                                 "\": pod " + pod_name + " is being deleted, cannot be assigned to a host");
      return false;
    }
    std::string_view existing = json::GetString(pod, {"spec", "nodeName"});
    if (!existing.empty()) {
      failure = StatusError(409, "Conflict", "Operation cannot be fulfilled on pods/binding \"" + pod_name +
                                                 "\": pod " + pod_name + " is already assigned to node \"" +
                                                 std::string(existing) + "\"");
      return false;
    }
    json::SetString(json::EnsureObject(pod, "spec", a), "nodeName", node, a);
    // Annotations on the Binding are copied to the pod, as the binding REST storage does.
    if (const Value* ann = json::Find(body, {"metadata", "annotations"}); ann && ann->IsObject()) {
      Value& meta = json::EnsureObject(pod, "metadata", a);
      Value& pod_ann = json::EnsureObject(meta, "annotations", a);
      for (const auto& m : ann->GetObject()) {
        if (m.value.IsString()) json::SetString(pod_ann, m.name.GetString(), m.value.GetString(), a);
      }
    }
    // PodScheduled=True (set by the binding storage).
    Value& status = json::EnsureObject(pod, "status", a);
    Value* scheduled = &ConditionOfType(status, "PodScheduled", a);
    scheduled->SetObject();
    json::SetString(*scheduled, "type", "PodScheduled", a);
    json::SetString(*scheduled, "status", "True", a);
    scheduled->AddMember("lastProbeTime", Value(rapidjson::kNullType), a);
    json::SetString(*scheduled, "lastTransitionTime", now, a);
    return true;
  });
  if (failure) return failure;
  if (!r.ok()) return std::move(r.error);
  return std::nullopt;
}

void ApiServer::HandleScale(const HttpRequest& request, const ResourceType& type,
                            const ParsedPath& path, ResponseSink& sink) {
  auto scale_of = [&](const ObjectPtr& obj) {
    Document d = ParseStored(*obj);
    Document scale(rapidjson::kObjectType);
    auto& a = scale.GetAllocator();
    scale.AddMember("kind", "Scale", a);
    scale.AddMember("apiVersion", "autoscaling/v1", a);
    Value meta(rapidjson::kObjectType);
    for (std::string_view key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
      if (const Value* v = json::Find(d, {"metadata", key})) json::SetMember(meta, key, Value(*v, a), a);
    }
    scale.AddMember("metadata", meta, a);
    int64_t replicas = 1;
    if (const Value* r = json::Find(d, {"spec", "replicas"}); r && r->IsInt64()) replicas = r->GetInt64();
    Value spec(rapidjson::kObjectType);
    spec.AddMember("replicas", replicas, a);
    scale.AddMember("spec", spec, a);
    Value status(rapidjson::kObjectType);
    int64_t current = 0;
    if (const Value* r = json::Find(d, {"status", "replicas"}); r && r->IsInt64()) current = r->GetInt64();
    status.AddMember("replicas", current, a);
    if (const Value* ml = json::Find(d, {"spec", "selector", "matchLabels"}); ml && ml->IsObject()) {
      std::string selector;
      for (const auto& m : ml->GetObject()) {
        if (!selector.empty()) selector += ",";
        selector += std::string(m.name.GetString()) + "=" + (m.value.IsString() ? m.value.GetString() : "");
      }
      json::SetString(status, "selector", selector, a);
    }
    scale.AddMember("status", status, a);
    return JsonObjectResponse(200, scale);
  };
  if (request.method == "GET") {
    ObjectPtr obj = store_.Get(type.StorageKey(), path.ns, path.name);
    if (!obj) {
      sink.Send(NotFound(type.group, type.plural, path.name));
      return;
    }
    sink.Send(scale_of(obj));
    return;
  }
  if (request.method != "PUT" && request.method != "PATCH") {
    sink.Send(MethodNotAllowed("the server does not allow this method on the requested resource"));
    return;
  }
  int64_t replicas = -1;
  auto parsed = ParseRequestJson(request.body);
  if (!parsed || !parsed->IsObject()) {
    sink.Send(BadRequest("invalid Scale body"));
    return;
  }
  if (const Value* r = json::Find(*parsed, {"spec", "replicas"}); r && r->IsInt64()) replicas = r->GetInt64();
  if (replicas < 0) {
    sink.Send(Invalid("autoscaling", "Scale", path.name,
                      {{"FieldValueInvalid", "Invalid value: " + std::to_string(replicas) +
                                                 ": must be greater than or equal to 0", "spec.replicas"}}));
    return;
  }
  OpResult r = Mutate(type, path.ns, path.name, "", [&](Document& d) {
    json::SetMember(json::EnsureObject(d, "spec", d.GetAllocator()), "replicas", Value(replicas), d.GetAllocator());
    return true;
  });
  if (!r.ok()) {
    sink.Send(std::move(*r.error));
    return;
  }
  sink.Send(scale_of(r.object));
}

}  // namespace berth::kubesim
