// DELETE for ApiServer: preconditions, finalizers and graceful deletion (deletionTimestamp), and
// the propagation policies. Dependents are removed by kubesim's garbage collector (sim/), which
// watches for DELETED owners, as kube-controller-manager's does.
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

bool IsPod(const ResourceType& type) { return type.group.empty() && type.plural == "pods"; }

void AddFinalizer(Document& doc, std::string_view finalizer) {
  auto& a = doc.GetAllocator();
  Value& meta = json::EnsureObject(doc, "metadata", a);
  Value* list = json::FindMutable(meta, {"finalizers"});
  if (!list || !list->IsArray()) {
    json::SetMember(meta, "finalizers", Value(rapidjson::kArrayType), a);
    list = json::FindMutable(meta, {"finalizers"});
  }
  for (const auto& f : list->GetArray()) {
    if (f.IsString() && f.GetString() == finalizer) return;
  }
  list->PushBack(Value(finalizer.data(), static_cast<rapidjson::SizeType>(finalizer.size()), a), a);
}

}  // namespace

OpResult ApiServer::DoDelete(const ResourceType& type, const std::string& ns,
                             const std::string& name, const DeleteOptions& opts) {
  OpResult result;
  for (int attempt = 0; attempt < 20; ++attempt) {
    ObjectPtr current = store_.Get(type.StorageKey(), ns, name);
    if (!current) {
      result.error = NotFound(type.group, type.plural, name);
      return result;
    }
    if (!opts.precondition_uid.empty() && opts.precondition_uid != current->uid) {
      result.error = StatusError(409, "Conflict",
                                 "Operation cannot be fulfilled on " + type.Qualified() + " \"" + name +
                                     "\": Precondition failed: UID in precondition: " + opts.precondition_uid +
                                     ", UID in object meta: " + current->uid,
                                 name, type.group, type.plural);
      return result;
    }
    if (!opts.precondition_rv.empty() && opts.precondition_rv != std::to_string(current->resource_version)) {
      result.error = StatusError(409, "Conflict",
                                 "Operation cannot be fulfilled on " + type.Qualified() + " \"" + name +
                                     "\": Precondition failed: ResourceVersion in precondition: " +
                                     opts.precondition_rv + ", ResourceVersion in object meta: " +
                                     std::to_string(current->resource_version),
                                 name, type.group, type.plural);
      return result;
    }
    Document doc;
    doc.Parse(current->json.data(), current->json.size());
    auto& a = doc.GetAllocator();
    if (opts.dry_run) {
      result.object = current;
      return result;
    }
    const Value* finalizers = json::Find(doc, {"metadata", "finalizers"});
    bool has_finalizers = finalizers && finalizers->IsArray() && !finalizers->Empty();
    bool is_namespace = type.group.empty() && type.plural == "namespaces";
    // Pods bound to a node end gracefully: the kubelet (sim/) stops them and completes the
    // delete. Unbound pods, grace 0 and clusters without kubelets delete at once.
    int64_t grace = opts.grace_period_seconds.value_or(-1);
    bool graceful_pod = IsPod(type) && options_graceful_pods() &&
                        !json::GetString(doc, {"spec", "nodeName"}).empty() && grace != 0 &&
                        json::GetString(doc, {"status", "phase"}) != "Succeeded" &&
                        json::GetString(doc, {"status", "phase"}) != "Failed";
    if (opts.propagation_policy == "Foreground") {
      AddFinalizer(doc, "foregroundDeletion");
      has_finalizers = true;
    } else if (opts.propagation_policy == "Orphan") {
      AddFinalizer(doc, "orphan");
      has_finalizers = true;
    }
    if (is_namespace) has_finalizers = true;  // the namespace controller empties it first
    if (has_finalizers || graceful_pod) {
      Value& meta = json::EnsureObject(doc, "metadata", a);
      if (!json::Member(meta, "deletionTimestamp")) {
        json::SetString(meta, "deletionTimestamp", NowRfc3339(), a);
        int64_t seconds = graceful_pod ? (grace > 0 ? grace : 30) : 0;
        if (graceful_pod && grace < 0) {
          if (const Value* t = json::Find(doc, {"spec", "terminationGracePeriodSeconds"}); t && t->IsInt64()) {
            seconds = t->GetInt64();
          }
        }
        json::SetMember(meta, "deletionGracePeriodSeconds", Value(seconds), a);
        if (is_namespace) {
          json::SetString(json::EnsureObject(doc, "status", a), "phase", "Terminating", a);
        }
      } else if (json::Find(doc, {"metadata", "deletionTimestamp"}) &&
                 opts.propagation_policy.empty()) {
        result.object = current;  // already being deleted: nothing more to do
        return result;
      }
      bool conflict = false;
      auto commit = store_.Put(type.StorageKey(), ns, name, [&](const ObjectPtr& cur, uint64_t rv) -> ObjectPtr {
        if (cur != current) {
          conflict = true;
          return nullptr;
        }
        json::SetString(json::EnsureObject(doc, "metadata", a), "resourceVersion", std::to_string(rv), a);
        return ToStored(doc, rv);
      });
      if (conflict) continue;
      result.object = commit ? commit->object : current;
      return result;
    }
    bool conflict = false;
    auto removed = store_.Remove(type.StorageKey(), ns, name, [&](const ObjectPtr& cur, uint64_t rv) -> ObjectPtr {
      if (cur != current) {
        conflict = true;
        return nullptr;
      }
      json::SetString(json::EnsureObject(doc, "metadata", a), "resourceVersion", std::to_string(rv), a);
      return ToStored(doc, rv);
    });
    if (conflict || !removed) continue;
    if (type.group == "apiextensions.k8s.io") SyncCrd(doc, true);
    if (type.group.empty() && type.plural == "services") service_addresses_.ReleaseDropped(doc, nullptr);
    result.object = removed->object;
    return result;
  }
  result.error = Conflict(type.group, type.plural, name);
  return result;
}

}  // namespace berth::kubesim
