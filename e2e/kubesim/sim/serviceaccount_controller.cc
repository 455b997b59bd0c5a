#include "e2e/kubesim/sim/serviceaccount_controller.h"

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {

void DefaultServiceAccountController::OnEvent(const HistoryEvent& event) {
  const StoredObject& obj = event.object ? *event.object : *event.previous;
  if (event.resource == "/namespaces" && event.type == WatchEventType::kAdded) {
    dirty_.insert(obj.name);
  } else if (event.resource == "/serviceaccounts" && event.type == WatchEventType::kDeleted && obj.name == "default") {
    dirty_.insert(obj.namespace_name);
  }
}

void DefaultServiceAccountController::SyncDirty() {
  auto dirty = std::move(dirty_);
  dirty_.clear();
  ResourceTypePtr type = api_.TypeOf("", "serviceaccounts");
  if (!type) return;
  for (const auto& ns : dirty) {
    ObjectPtr ns_obj = api_.store().Get("/namespaces", "", ns);
    if (!ns_obj || ns_obj->deleting || api_.store().Get("/serviceaccounts", ns, "default")) continue;
    auto doc = json::Parse(R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})");
    if (!doc) continue;
    WriteOptions opts;
    opts.internal = true;
    api_.DoCreate(*type, ns, std::move(*doc), opts);
  }
}

}  // namespace berth::kubesim
