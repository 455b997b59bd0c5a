#include "controllers/migration/prefer_avoid_hook.h"

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"

namespace berth::controllers {

namespace placement = reconcile::placement;

void RecordPreferAvoidPods(const shim::ObjectClient& client, const shim::SharedInformer* nodes,
                           const rapidjson::Value& pod, std::string_view job_name, reconcile::Time now,
                           const placement::PreferAvoidOptions& options) {
  if (options.ttl <= reconcile::Duration::zero() || options.max_entries == 0) return;
  const std::string node(json::GetString(pod, {"spec", "nodeName"}));
  const rapidjson::Value* controller = nullptr;
  if (const rapidjson::Value* refs = json::Find(pod, {"metadata", "ownerReferences"}); refs && refs->IsArray()) {
    for (const auto& r : refs->GetArray()) {
      const rapidjson::Value* c = r.IsObject() ? json::Member(r, "controller") : nullptr;
      if (c && c->IsBool() && c->GetBool()) controller = &r;
    }
  }
  if (node.empty() || !controller) return;
  const std::string pod_key =
      std::string(json::GetString(pod, {"metadata", "namespace"})) + "/" + std::string(json::GetString(pod, {"metadata", "name"}));
  placement::PreferAvoidEntry entry{std::string(json::GetString(*controller, {"apiVersion"})),
                                    std::string(json::GetString(*controller, {"kind"})),
                                    std::string(json::GetString(*controller, {"name"})),
                                    std::string(json::GetString(*controller, {"uid"})),
                                    now,
                                    std::string(placement::kPreferAvoidPodsReason),
                                    "pod " + pod_key + " moved away by PodMigrationJob " + std::string(job_name)};
  const shim::ResourceRef node_ref{"", "v1", "nodes", "", node};
  for (int attempt = 0; attempt < 3; ++attempt) {
    // The first try reads the node from the cache: the patch is conditional on its version, and a
    // conflict reads it from the API server.
    Result<rapidjson::Document> live = MakeError(ErrorCode::kNotFound, "not cached");
    if (attempt == 0 && nodes) {
      if (auto cached = nodes->store().Get(node)) live = cached->ToJson();
    }
    if (!live) live = client.Get(node_ref);
    if (!live) {
      log::Warn("migration", "cannot read the node to record PreferAvoidPods",
                {{"node", node}, {"pod", pod_key}, {"error", live.error().message}});
      return;
    }
    std::vector<placement::PreferAvoidEntry> entries;
    const std::string_view current =
        json::GetString(*live, {"metadata", "annotations", placement::kPreferAvoidPodsAnnotation});
    if (!current.empty()) {
      if (auto parsed = placement::ParsePreferAvoidPods(current)) {
        entries = std::move(*parsed);
      } else {
        log::Warn("migration", "replacing a malformed PreferAvoidPods annotation",
                  {{"node", node}, {"error", parsed.error().message}});
      }
    }
    if (placement::RecentlyRecorded(entries, entry.uid, now, options)) return;
    entries = placement::RecordAvoidance(std::move(entries), entry, now, options);
    rapidjson::Document patch(rapidjson::kObjectType);
    auto& a = patch.GetAllocator();
    rapidjson::Value& meta = json::EnsureObject(patch, "metadata", a);
    // Conditional on what was read: a concurrent writer's entries are never lost.
    json::SetString(meta, "resourceVersion", json::GetString(*live, {"metadata", "resourceVersion"}), a);
    json::SetString(json::EnsureObject(meta, "annotations", a), placement::kPreferAvoidPodsAnnotation,
                    placement::SerializePreferAvoidPods(entries), a);
    auto written = client.MergePatch(node_ref, patch);
    if (written) {
      log::Info("migration", "recorded PreferAvoidPods",
                {{"node", node}, {"pod", pod_key}, {"controller", entry.kind + "/" + entry.name}});
      return;
    }
    if (written.error().code != ErrorCode::kConflict) {
      log::Warn("migration", "cannot record PreferAvoidPods",
                {{"node", node}, {"pod", pod_key}, {"error", written.error().message}});
      return;
    }
  }
  log::Warn("migration", "PreferAvoidPods not recorded after 3 conflicts", {{"node", node}, {"pod", pod_key}});
}

}  // namespace berth::controllers
