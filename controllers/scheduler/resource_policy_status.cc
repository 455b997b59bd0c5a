// controllers/scheduler/resource_policy_status.cc
//
// The "resourcepolicy-status" controller: writes each ResourcePolicy's status (per unit and
// matchLabelKeys group the pod count and the limit, the kubectl UNITS summary, and the
// conditions Conflict, PodsSelected and UnitsMatchNodes) from the informer caches, through
// reconcile::placement::ComputeResourcePolicyStatus. It shares the scheduler's informers, so a
// written status also tells that the scheduler cache has the policy. Pod changes requeue their
// namespace's policies after a short delay, so a burst of binds costs one status computation.
#include <chrono>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "clientgo-shim/client/conditions.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/scheduler/scheduler_support.h"

namespace berth::controllers {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using scheduler_support::kLogger;
namespace placement = reconcile::placement;

constexpr auto kPodBatchDelay = std::chrono::milliseconds(500);
constexpr size_t kMaxNamedPods = 10;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kMaxNamedPods; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > kMaxNamedPods) out += " and " + std::to_string(names.size() - kMaxNamedPods) + " more";
  return out;
}

// StatusBody renders the computed counts as the CRD's status fields (conditions are set apart).
void WriteCounts(const placement::ResourcePolicyStatus& st, Value& status, Document::AllocatorType& a) {
  auto set = [&](const char* name, Value v) {
    if (status.HasMember(name)) status.RemoveMember(name);
    status.AddMember(Value(name, a), v, a);
  };
  set("matchedPods", Value(st.matched_pods));
  set("unitSummary", Value(st.unit_summary.c_str(), a));
  Value units(rapidjson::kArrayType);
  for (const placement::UnitStatus& u : st.units) {
    Value unit(rapidjson::kObjectType);
    unit.AddMember("name", Value(u.name.c_str(), a), a);
    if (u.max_count) unit.AddMember("maxCount", Value(*u.max_count), a);
    unit.AddMember("nodes", Value(u.nodes), a);
    Value groups(rapidjson::kArrayType);
    for (const placement::UnitGroupCount& g : u.groups) {
      Value group(rapidjson::kObjectType);
      Value labels(rapidjson::kObjectType);
      // GroupKey is "k=v,k=v"; label values cannot hold ',' or '='.
      size_t start = 0;
      while (start < g.group.size()) {
        size_t end = g.group.find(',', start);
        if (end == std::string::npos) end = g.group.size();
        std::string pair = g.group.substr(start, end - start);
        size_t eq = pair.find('=');
        if (eq != std::string::npos) {
          labels.AddMember(Value(pair.substr(0, eq).c_str(), a), Value(pair.substr(eq + 1).c_str(), a), a);
        }
        start = end + 1;
      }
      group.AddMember("labels", labels, a);
      group.AddMember("pods", Value(g.pods), a);
      groups.PushBack(group, a);
    }
    unit.AddMember("groups", groups, a);
    units.PushBack(unit, a);
  }
  set("units", std::move(units));
}

}  // namespace

void SchedulerController::EnqueuePolicyStatus(std::string_view namespace_name, bool batch) {
  if (status_controller_ == nullptr || !resource_policies_) return;
  for (const shim::ObjectPtr& p : resource_policies_->store().List()) {
    if (!namespace_name.empty() && p->Namespace() != namespace_name) continue;
    if (batch) {
      status_controller_->queue().AddAfter(std::string(p->Key()), kPodBatchDelay);
    } else {
      status_controller_->queue().Add(std::string(p->Key()));
    }
  }
}

shim::ReconcileResult SchedulerController::ReconcilePolicyStatus(const std::string& key) {
  if (!resource_policies_) return shim::ReconcileResult::Done();
  shim::ObjectPtr object = resource_policies_->store().Get(key);
  if (!object) return shim::ReconcileResult::Done();
  auto doc = scheduler_support::ToJson(object);
  if (!doc) return shim::ReconcileResult::Done();
  const std::string ns(object->Namespace());
  auto view = ReadResourcePolicyView(*doc);
  const auto now = std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
  bool changed = shim::SetObservedGeneration(*doc);
  if (!view) {
    changed |= shim::SetStatusCondition(
        *doc, {"Valid", "False", "InvalidSpec", view.error().message, std::nullopt, true}, now);
  } else {
    changed |= shim::RemoveStatusCondition(*doc, "Valid");
    std::vector<placement::ResourcePolicyView> others_storage;
    for (const shim::ObjectPtr& p : resource_policies_->store().List()) {
      if (p->Namespace() != ns || p->Key() == object->Key()) continue;
      if (auto other_doc = scheduler_support::ToJson(p)) {
        if (auto other = ReadResourcePolicyView(*other_doc)) others_storage.push_back(std::move(*other));
      }
    }
    std::vector<const placement::ResourcePolicyView*> others;
    for (const auto& o : others_storage) others.push_back(&o);
    std::vector<placement::PolicyPodFacts> pods;
    for (const shim::ObjectPtr& p : pods_->store().List()) {
      if (p->Namespace() != ns) continue;
      auto phase = p->FindString({"status", "phase"});
      if (phase == "Succeeded" || phase == "Failed") continue;
      pods.push_back({ns, std::string(p->Name()), ReadObjectLabels(*p),
                      p->FindString({"spec", "nodeName"}).value_or(""),
                      p->FindString({"metadata", "deletionTimestamp"}).has_value()});
    }
    std::vector<placement::PolicyNodeFacts> nodes;
    for (const shim::ObjectPtr& n : nodes_->store().List()) {
      nodes.push_back({std::string(n->Name()), ReadObjectLabels(*n)});
    }
    placement::ResourcePolicyStatus st = placement::ComputeResourcePolicyStatus(*view, others, pods, nodes);

    Value& root = *doc;
    if (!root.HasMember("status") || !root["status"].IsObject()) {
      if (root.HasMember("status")) root.RemoveMember("status");
      root.AddMember("status", Value(rapidjson::kObjectType), doc->GetAllocator());
    }
    Document before;
    before.CopyFrom(root["status"], before.GetAllocator());
    WriteCounts(st, root["status"], doc->GetAllocator());
    changed |= !(before == root["status"]);
    if (st.conflicting_pods.empty()) {
      changed |= shim::SetStatusCondition(
          *doc, {"Conflict", "False", "NoConflict", "no selected pod is selected by another ResourcePolicy",
                 std::nullopt, true}, now);
    } else {
      changed |= shim::SetStatusCondition(
          *doc, {"Conflict", "True", "PodsMatchedByOtherPolicies",
                 "pods also selected by another ResourcePolicy of the namespace are not scheduled: " +
                     JoinNames(st.conflicting_pods),
                 std::nullopt, true}, now);
    }
    changed |= shim::SetStatusCondition(
        *doc, st.selects_no_pod
                  ? shim::Condition{"PodsSelected", "False", "NoMatchingPods",
                                    "podSelector selects no pod in namespace " + ns, std::nullopt, true}
                  : shim::Condition{"PodsSelected", "True", "PodsSelected",
                                    std::to_string(st.matched_pods) + " pod(s) selected", std::nullopt, true},
        now);
    changed |= shim::SetStatusCondition(
        *doc, st.units_without_nodes.empty()
                  ? shim::Condition{"UnitsMatchNodes", "True", "UnitsMatchNodes", "every unit selects a node",
                                    std::nullopt, true}
                  : shim::Condition{"UnitsMatchNodes", "False", "NoMatchingNodes",
                                    "units selecting no node: " + JoinNames(st.units_without_nodes), std::nullopt,
                                    true},
        now);
  }
  if (!changed) return shim::ReconcileResult::Done();
  auto written = client_.UpdateStatus(
      shim::ResourceRef{"scheduling.sigs.x-k8s.io", "v1alpha1", "resourcepolicies", ns, std::string(object->Name())},
      *doc);
  if (!written) {
    // 409: the cache is behind; the watch brings the new version and a retry recomputes.
    log::Info(kLogger, "writing ResourcePolicy status failed",
              {{"resourcepolicy", key}, {"error", written.error().message}});
    return shim::ReconcileResult::Error(written.error().message);
  }
  return shim::ReconcileResult::Done();
}

}  // namespace berth::controllers
