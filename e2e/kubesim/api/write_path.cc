// The write verbs of ApiServer: create, update (main resource and status), patch, and the shared
// commit step (routing of verbs is in resource_handler.cc, delete in delete_path.cc). Rules follow kube-apiserver's generic registry and the per-type
// strategies (PrepareForCreate/PrepareForUpdate).
#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/crd_versions.h"
#include "e2e/kubesim/api/update_validation.h"
#include "e2e/kubesim/api/list_filter.h"
#include "e2e/kubesim/api/pod_conditions.h"
#include "e2e/kubesim/api/priority_admission.h"
#include "e2e/kubesim/api/request_body.h"
#include "e2e/kubesim/api/response_format.h"
#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/patch/builtin_schema.h"
#include "e2e/kubesim/patch/json_patch.h"
#include "e2e/kubesim/patch/merge_patch.h"
#include "e2e/kubesim/patch/patch_type.h"
#include "e2e/kubesim/patch/strategic_merge_patch.h"
#include "e2e/kubesim/schema/transition_rules.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

constexpr int kMaxConflictRetries = 20;

Document Clone(const Value& v) {
  Document d;
  d.CopyFrom(v, d.GetAllocator());
  return d;
}

Document ParseStored(const StoredObject& obj) {
  Document d;
  d.Parse(obj.json.data(), obj.json.size());
  return d;
}

// SpecEquals compares everything but metadata and status: what moves metadata.generation.
bool SpecEquals(const Value& a, const Value& b) {
  auto count = [](const Value& v) {
    size_t n = 0;
    for (const auto& m : v.GetObject()) {
      std::string_view k(m.name.GetString(), m.name.GetStringLength());
      if (k != "metadata" && k != "status") ++n;
    }
    return n;
  };
  if (count(a) != count(b)) return false;
  for (const auto& m : a.GetObject()) {
    std::string_view k(m.name.GetString(), m.name.GetStringLength());
    if (k == "metadata" || k == "status") continue;
    const Value* other = json::Member(b, k);
    if (!other || *other != m.value) return false;
  }
  return true;
}

bool IsService(const ResourceType& type) { return type.group.empty() && type.plural == "services"; }

bool HasFinalizers(const Value& obj) {
  const Value* f = json::Find(obj, {"metadata", "finalizers"});
  return f && f->IsArray() && !f->Empty();
}

void CopyMember(Value& dst, const Value& src, std::string_view key, Document::AllocatorType& a) {
  const Value* v = json::Member(src, key);
  if (v) {
    Value copy(*v, a);
    json::SetMember(dst, key, std::move(copy), a);
  } else {
    json::RemoveMember(dst, key);
  }
}

const char* kGenerateNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

}  // namespace

OpResult ApiServer::DoCreate(const ResourceType& type, const std::string& ns, Document body,
                             const WriteOptions& opts) {
  OpResult result;
  auto& a = body.GetAllocator();
  std::string_view api_version = json::GetString(body, {"apiVersion"});
  std::string_view kind = json::GetString(body, {"kind"});
  // Built-in types decode with the endpoint's group/version/kind as the default; custom
  // resources (unstructured) must name their kind.
  if (!type.is_crd) {
    if (kind.empty() || api_version.empty()) {
      // Rebuild so apiVersion and kind come first, as the apiserver serializes them.
      Value ordered(rapidjson::kObjectType);
      json::SetString(ordered, "apiVersion", api_version.empty() ? type.GroupVersion() : std::string(api_version), a);
      json::SetString(ordered, "kind", kind.empty() ? type.kind : std::string(kind), a);
      for (auto& m : body.GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        if (key != "apiVersion" && key != "kind") ordered.AddMember(m.name, m.value, a);
      }
      static_cast<Value&>(body) = std::move(ordered);
    }
    api_version = json::GetString(body, {"apiVersion"});
    kind = json::GetString(body, {"kind"});
  }
  if (kind.empty()) {
    result.error = BadRequest("Object 'Kind' is missing in '" + json::Serialize(body).substr(0, 200) + "'");
    return result;
  }
  if (api_version != type.GroupVersion()) {
    result.error = BadRequest("the API version in the data (" + std::string(api_version) +
                              ") does not match the expected API version (" + type.GroupVersion() + ")");
    return result;
  }
  if (kind != type.kind) {
    result.error = BadRequest("the kind in the data (" + std::string(kind) +
                              ") does not match the expected kind (" + type.kind + ")");
    return result;
  }
  Value& meta = json::EnsureObject(body, "metadata", a);
  std::string body_ns(json::GetString(meta, {"namespace"}));
  if (type.namespaced) {
    if (!body_ns.empty() && body_ns != ns) {
      result.error = BadRequest("the namespace of the provided object does not match the namespace sent on the request");
      return result;
    }
    json::SetString(meta, "namespace", ns, a);
  } else {
    json::RemoveMember(meta, "namespace");
  }
  std::string name(json::GetString(meta, {"name"}));
  if (name.empty()) {
    std::string_view generate = json::GetString(meta, {"generateName"});
    if (generate.empty()) {
      result.error = Invalid(type.group, type.kind, "",
                             {{"FieldValueRequired", "Required value: name or generateName is required", "metadata.name"}});
      return result;
    }
    std::lock_guard lock(rng_mu_);
    name = std::string(generate);
    for (int i = 0; i < 5; ++i) name += kGenerateNameAlphabet[rng_() % 27];
    json::SetString(meta, "name", name, a);
  }
  if (type.namespaced) {
    ObjectPtr namespace_obj = store_.Get("/namespaces", "", ns);
    if (!namespace_obj) {
      result.error = NotFound("", "namespaces", ns);
      return result;
    }
    if (namespace_obj->deleting) {
      result.error = StatusError(403, "Forbidden",
                                 type.Qualified() + " \"" + name + "\" is forbidden: unable to create new content in namespace " +
                                     ns + " because it is being terminated",
                                 name, type.group, type.plural,
                                 {{"NamespaceTerminating", "namespace " + ns + " is being terminated", "metadata.namespace"}});
      return result;
    }
  }
  // PrepareForCreate: the server owns these fields.
  json::SetString(meta, "uid", NewUid(), a);
  json::SetString(meta, "creationTimestamp", NowRfc3339(), a);
  json::RemoveMember(meta, "deletionTimestamp");
  json::RemoveMember(meta, "deletionGracePeriodSeconds");
  json::RemoveMember(meta, "resourceVersion");
  json::RemoveMember(meta, "selfLink");
  if (type.has_generation) {
    json::SetMember(meta, "generation", Value(1), a);
  } else {
    json::RemoveMember(meta, "generation");
  }
  // Types with a status subresource ignore status on create, except nodes (the kubelet
  // registers a node with its status) and pods (the strategy resets it to Pending below).
  if (type.has_status && !(type.group.empty() && type.plural == "nodes")) {
    json::RemoveMember(body, "status");
  }
  // Mutating admission before validation: Priority resolves spec.priority from the class.
  if (type.group.empty() && type.plural == "pods") {
    if (auto err = AdmitPodPriority(store_, name, body)) {
      result.error = std::move(*err);
      return result;
    }
  }
  if (auto err = ValidateAndDefault(type, body, opts, result.warnings)) {
    result.error = std::move(err);
    return result;
  }
  if (type.group.empty() && type.plural == "pods") ApplySchedulingGatedCondition(body, a);
  // The service REST storage allocates ClusterIPs and NodePorts before storing.
  ServiceAllocation reserved;
  if (IsService(type)) {
    if (auto causes = service_addresses_.Assign(body, nullptr, a, opts.dry_run, &reserved); !causes.empty()) {
      result.error = Invalid(type.group, type.kind, name, causes);
      return result;
    }
  }
  if (opts.dry_run) {
    result.object = ToStored(body, store_.CurrentResourceVersion());
    result.code = 201;
    return result;
  }
  auto warnings = std::move(result.warnings);
  result = Commit(type, type.namespaced ? ns : "", name, std::move(body), nullptr, true);
  result.warnings = std::move(warnings);
  if (!result.ok()) service_addresses_.Release(reserved);
  return result;
}

OpResult ApiServer::Commit(const ResourceType& type, const std::string& ns,
                           const std::string& name, Document desired,
                           const ObjectPtr& expected_current, bool create) {
  OpResult result;
  bool exists = false, conflict = false, missing = false;
  auto commit = store_.Put(type.StorageKey(), ns, name, [&](const ObjectPtr& current, uint64_t rv) -> ObjectPtr {
    if (create && current) {
      exists = true;
      return nullptr;
    }
    if (!create && !current) {
      missing = true;
      return nullptr;
    }
    if (!create && current != expected_current) {
      conflict = true;
      return nullptr;
    }
    json::SetString(json::EnsureObject(desired, "metadata", desired.GetAllocator()), "resourceVersion",
                    std::to_string(rv), desired.GetAllocator());
    if (type.is_crd) SetApiVersion(desired, StorageGroupVersion(type));
    return ToStored(desired, rv);
  });
  if (exists) {
    result.error = AlreadyExists(type.group, type.plural, name);
  } else if (missing) {
    result.error = NotFound(type.group, type.plural, name);
  } else if (conflict) {
    result.error = Conflict(type.group, type.plural, name);
  } else if (!commit) {
    result.error = InternalError("store rejected the write");
  } else {
    result.object = commit->object;
    result.code = create ? 201 : 200;
    if (type.group == "apiextensions.k8s.io") SyncCrd(desired, false);
  }
  return result;
}

OpResult ApiServer::DoUpdate(const ResourceType& type, const std::string& ns,
                             const std::string& name, Document body, const WriteOptions& opts) {
  OpResult result;
  if (!body.IsObject()) {
    result.error = BadRequest("the body of the request must be an object");
    return result;
  }
  auto& a = body.GetAllocator();
  Value& meta = json::EnsureObject(body, "metadata", a);
  std::string_view body_name = json::GetString(meta, {"name"});
  if (!body_name.empty() && body_name != name) {
    result.error = BadRequest("the name of the object (" + std::string(body_name) +
                              ") does not match the name on the URL (" + name + ")");
    return result;
  }
  if (std::string_view api_version = json::GetString(body, {"apiVersion"});
      !api_version.empty() && api_version != type.GroupVersion()) {
    result.error = BadRequest("the API version in the data (" + std::string(api_version) +
                              ") does not match the expected API version (" + type.GroupVersion() + ")");
    return result;
  }
  std::string requested_rv(json::GetString(meta, {"resourceVersion"}));
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    ObjectPtr current = store_.Get(type.StorageKey(), ns, name);
    if (!current) {
      result.error = NotFound(type.group, type.plural, name);
      return result;
    }
    if (!requested_rv.empty() && requested_rv != std::to_string(current->resource_version)) {
      result.error = Conflict(type.group, type.plural, name);
      return result;
    }
    Document old_doc = ParseStored(*current);
    // Custom resources are stored in the storage version; this request sees its own (conversion None).
    if (type.is_crd) SetApiVersion(old_doc, type.GroupVersion());
    Document desired;
    if (opts.subresource == "status") {
      // Status writes change only status (ResetObjectMetaForStatus + spec from the old object).
      desired = Clone(old_doc);
      CopyMember(desired, body, "status", desired.GetAllocator());
    } else {
      desired = Clone(body);
      auto& da = desired.GetAllocator();
      // The binding storage (internal "binding") writes spec.nodeName and the PodScheduled
      // condition in one update, as the apiserver's assignPod does.
      bool writes_status = opts.internal && opts.subresource == "binding";
      if (type.has_status && !writes_status) CopyMember(desired, old_doc, "status", da);
      json::SetString(desired, "apiVersion", type.GroupVersion(), da);
      json::SetString(desired, "kind", type.kind, da);
      Value& dmeta = json::EnsureObject(desired, "metadata", da);
      const Value& ometa = *json::Member(old_doc, "metadata");
      for (std::string_view key : {"uid", "creationTimestamp", "deletionTimestamp",
                                   "deletionGracePeriodSeconds", "namespace", "name", "generation"}) {
        CopyMember(dmeta, ometa, key, da);
      }
      json::RemoveMember(dmeta, "selfLink");
    }
    if (auto err = ValidateAndDefault(type, desired, opts, result.warnings)) {
      result.error = std::move(err);
      return result;
    }
    if (type.is_crd && type.schema) {
      // x-kubernetes-validations transition rules (self == oldSelf), status writes included.
      if (auto causes = schema::ValidateTransitionRules(*type.schema, desired, old_doc); !causes.empty()) {
        std::vector<StatusCause> status_causes;
        for (auto& c : causes) status_causes.push_back({c.type, c.message, c.field});
        result.error = Invalid(type.group, type.kind, name, status_causes);
        return result;
      }
    }
    if (!opts.internal && opts.subresource.empty()) {
      if (auto causes = ValidateBuiltinUpdate(type, desired, old_doc); !causes.empty()) {
        result.error = Invalid(type.group, type.kind, name, causes);
        return result;
      }
    }
    auto& da = desired.GetAllocator();
    // Services keep the addresses of the old object unless the update sets or drops them.
    ServiceAllocation reserved;
    bool service_spec_write = IsService(type) && opts.subresource.empty();
    if (service_spec_write) {
      if (auto causes = service_addresses_.Assign(desired, &old_doc, da, opts.dry_run, &reserved); !causes.empty()) {
        result.error = Invalid(type.group, type.kind, name, causes);
        return result;
      }
    }
    if (type.has_generation && !SpecEquals(desired, old_doc)) {
      int64_t gen = 1;
      if (const Value* g = json::Find(old_doc, {"metadata", "generation"}); g && g->IsInt64()) gen = g->GetInt64();
      json::SetMember(json::EnsureObject(desired, "metadata", da), "generation", Value(gen + 1), da);
    }
    // No-op writes keep the resourceVersion, as the apiserver skips the etcd write.
    {
      Document compare = Clone(desired);
      if (Value* cm = json::FindMutable(compare, {"metadata"})) json::RemoveMember(*cm, "resourceVersion");
      if (Value* om = json::FindMutable(old_doc, {"metadata"})) json::RemoveMember(*om, "resourceVersion");
      if (compare == old_doc) {
        service_addresses_.Release(reserved);
        result.object = current;
        return result;
      }
    }
    if (opts.dry_run) {
      result.object = ToStored(desired, current->resource_version);
      return result;
    }
    // Removing the last finalizer of an object being deleted completes the deletion.
    if (json::Find(desired, {"metadata", "deletionTimestamp"}) && !HasFinalizers(desired)) {
      bool conflict = false;
      auto removed = store_.Remove(type.StorageKey(), ns, name, [&](const ObjectPtr& cur, uint64_t rv) -> ObjectPtr {
        if (cur != current) {
          conflict = true;
          return nullptr;
        }
        json::SetString(json::EnsureObject(desired, "metadata", da), "resourceVersion", std::to_string(rv), da);
        if (type.is_crd) SetApiVersion(desired, StorageGroupVersion(type));
        return ToStored(desired, rv);
      });
      if (conflict || !removed) service_addresses_.Release(reserved);
      if (conflict) continue;
      if (removed) {
        if (service_spec_write) {
          service_addresses_.ReleaseDropped(old_doc, nullptr);
          service_addresses_.ReleaseDropped(desired, nullptr);
        }
        result.object = removed->object;
        if (type.group == "apiextensions.k8s.io") SyncCrd(desired, true);
        return result;
      }
      continue;
    }
    Document kept;
    if (service_spec_write) kept.CopyFrom(desired, kept.GetAllocator());
    auto warnings = std::move(result.warnings);
    result = Commit(type, ns, name, std::move(desired), current, false);
    result.warnings = std::move(warnings);
    if (!result.ok()) {
      service_addresses_.Release(reserved);
    } else if (service_spec_write) {
      service_addresses_.ReleaseDropped(old_doc, &kept);
    }
    if (!result.ok() && result.error->status == 409 && requested_rv.empty()) {
      result.warnings.clear();  // the retry validates again and collects them anew
      continue;
    }
    return result;
  }
  result.error = Conflict(type.group, type.plural, name);
  return result;
}

OpResult ApiServer::DoPatch(const ResourceType& type, const std::string& ns,
                            const std::string& name, std::string_view content_type,
                            std::string_view patch_body, const WriteOptions& opts) {
  OpResult result;
  std::string_view ct = content_type.substr(0, content_type.find(';'));
  auto patch_type = patch::PatchTypeFromContentType(ct);
  if (!patch_type) {
    result.error = StatusError(415, "UnsupportedMediaType",
                               "the body of the request was in an unknown format - accepted media types include: "
                               "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml" +
                                   std::string(type.is_crd ? "" : ", application/strategic-merge-patch+json"));
    return result;
  }
  if (*patch_type == patch::PatchType::kStrategic && type.is_crd) {
    result.error = StatusError(415, "UnsupportedMediaType",
                               "the body of the request was in an unknown format - accepted media types include: "
                               "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
    return result;
  }
  Document patch_doc;
  if (*patch_type == patch::PatchType::kApply) {
    auto decoded = DecodeObjectText(patch_body, true);
    if (auto* err = std::get_if<HttpResponse>(&decoded)) {
      result.error = std::move(*err);
      return result;
    }
    patch_doc = std::move(std::get<Document>(decoded));
  } else {
    auto parsed = ParseRequestJson(patch_body);
    if (!parsed) {
      result.error = BadRequest("error decoding patch: " + parsed.error().message);
      return result;
    }
    patch_doc = std::move(*parsed);
  }
  // jsonpatch.DecodePatch failures are 400 (the body is not a patch); failed ops are 422.
  if (*patch_type == patch::PatchType::kJson) {
    bool ops_are_objects = patch_doc.IsArray();
    if (ops_are_objects) {
      for (const Value& op : patch_doc.GetArray()) ops_are_objects = ops_are_objects && op.IsObject();
    }
    if (!ops_are_objects) {
      Document probe(rapidjson::kObjectType);
      auto shape = patch::ApplyJsonPatch(probe, patch_doc, probe.GetAllocator());
      result.error = BadRequest(shape ? "invalid JSON patch" : shape.error().message);
      return result;
    }
  }
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    ObjectPtr current = store_.Get(type.StorageKey(), ns, name);
    if (!current && *patch_type == patch::PatchType::kApply && opts.subresource.empty() && patch_doc.IsObject()) {
      // Server-side apply is an upsert: a missing object is created from the applied config.
      Document created;
      created.CopyFrom(patch_doc, created.GetAllocator());
      Value& meta = json::EnsureObject(created, "metadata", created.GetAllocator());
      std::string_view applied_name = json::GetString(meta, {"name"});
      if (!applied_name.empty() && applied_name != name) {
        result.error = BadRequest("the name of the object (" + std::string(applied_name) +
                                  ") does not match the name on the URL (" + name + ")");
        return result;
      }
      json::SetString(meta, "name", name, created.GetAllocator());
      OpResult made = DoCreate(type, ns, std::move(created), opts);
      if (!made.ok() && made.error->status == 409) continue;  // created meanwhile: apply as a patch
      return made;
    }
    if (!current) {
      result.error = NotFound(type.group, type.plural, name);
      return result;
    }
    Document target = ParseStored(*current);
    if (type.is_crd) SetApiVersion(target, type.GroupVersion());  // patch the requested version
    berth::Status applied;
    switch (*patch_type) {
      case patch::PatchType::kJson:
        applied = patch::ApplyJsonPatch(target, patch_doc, target.GetAllocator());
        break;
      case patch::PatchType::kStrategic:
        applied = patch::ApplyStrategicMergePatch(target, patch_doc, target.GetAllocator(),
                                                  patch::BuiltinPatchSchema(type.GroupVersion(), type.kind));
        break;
      case patch::PatchType::kMerge:
      case patch::PatchType::kApply:
        // Server-side apply is approximated by a merge patch: kubesim keeps no managedFields.
        applied = patch::ApplyMergePatch(target, patch_doc, target.GetAllocator());
        break;
    }
    if (!applied) {
      result.error = StatusError(422, "Invalid", applied.error().message);
      return result;
    }
    if (!target.IsObject()) {
      result.error = BadRequest("the patched object is not a JSON object");
      return result;
    }
    // A resourceVersion in the patch is a precondition; otherwise pin the version we patched.
    std::string patched_rv(json::GetString(target, {"metadata", "resourceVersion"}));
    bool client_rv = patched_rv != std::to_string(current->resource_version);
    if (!client_rv) {
      json::SetString(json::EnsureObject(target, "metadata", target.GetAllocator()), "resourceVersion",
                      std::to_string(current->resource_version), target.GetAllocator());
    }
    result = DoUpdate(type, ns, name, std::move(target), opts);
    if (!result.ok() && result.error->status == 409 && !client_rv &&
        result.error->body.find("\"Conflict\"") != std::string::npos) {
      continue;  // someone wrote between our read and write: re-apply the patch
    }
    return result;
  }
  result.error = Conflict(type.group, type.plural, name);
  return result;
}

OpResult ApiServer::Mutate(const ResourceType& type, const std::string& ns,
                           const std::string& name, const std::string& subresource,
                           const std::function<bool(Document&)>& edit) {
  OpResult result;
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    ObjectPtr current = store_.Get(type.StorageKey(), ns, name);
    if (!current) {
      result.error = NotFound(type.group, type.plural, name);
      return result;
    }
    Document doc = ParseStored(*current);
    if (!edit(doc)) {
      result.object = current;
      return result;
    }
    WriteOptions opts;
    opts.subresource = subresource;
    opts.field_validation = "Ignore";
    opts.internal = true;
    result = DoUpdate(type, ns, name, std::move(doc), opts);
    if (!result.ok() && result.error->status == 409) continue;
    return result;
  }
  result.error = Conflict(type.group, type.plural, name);
  return result;
}

}  // namespace berth::kubesim
