#include "e2e/kubesim/sim/default_scheduler.h"

#include <algorithm>
#include <unordered_map>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/pod_conditions.h"
#include "e2e/kubesim/sim/default_scheduler_fit.h"
#include "e2e/kubesim/sim/workload_events.h"
#include "e2e/kubesim/sim/workload_support.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

constexpr char kSchedulerName[] = "default-scheduler";

bool IsTerminal(const Value& pod) {
  std::string_view phase = json::GetString(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

// IsPendingForUs: unbound, ours, not being deleted, not gated.
bool IsPendingForUs(const Value& pod) {
  if (!json::GetString(pod, {"spec", "nodeName"}).empty()) return false;
  if (json::GetString(pod, {"spec", "schedulerName"}) != kSchedulerName) return false;
  if (json::Find(pod, {"metadata", "deletionTimestamp"}) || IsTerminal(pod)) return false;
  const Value* gates = json::Find(pod, {"spec", "schedulingGates"});
  return !(gates && gates->IsArray() && !gates->Empty());
}

EventSubject SubjectOf(const Value& pod) {
  return EventSubject{"v1", "Pod", std::string(json::GetString(pod, {"metadata", "namespace"})),
                      std::string(json::GetString(pod, {"metadata", "name"})),
                      std::string(json::GetString(pod, {"metadata", "uid"}))};
}

}  // namespace

void DefaultScheduler::OnEvent(const HistoryEvent& event) {
  if (event.resource == "/pods" || event.resource == "/nodes") dirty_ = true;
}

void DefaultScheduler::SyncDirty() {
  if (!dirty_) return;
  dirty_ = false;
  auto node_page = api_.store().List("/nodes", "", nullptr, 0, 0, "");
  auto pod_page = api_.store().List("/pods", "", nullptr, 0, 0, "");
  std::vector<Document> node_docs, pod_docs;
  for (const auto& n : node_page->items) node_docs.push_back(workload::ParseStored(*n));
  for (const auto& p : pod_page->items) pod_docs.push_back(workload::ParseStored(*p));

  std::vector<scheduling::NodeState> nodes;
  std::unordered_map<std::string, size_t> node_index;
  for (const auto& d : node_docs) {
    auto n = scheduling::ParseNode(d);
    if (!n) continue;  // a node whose allocatable does not parse offers nothing
    node_index[n->name] = nodes.size();
    nodes.push_back(std::move(*n));
  }
  std::vector<std::pair<const Value*, scheduling::Resources>> pending;
  for (const auto& p : pod_docs) {
    auto requests = scheduling::PodRequests(p);
    std::string_view node = json::GetString(p, {"spec", "nodeName"});
    if (!node.empty()) {
      auto it = node_index.find(std::string(node));
      if (it == node_index.end() || IsTerminal(p) || !requests) continue;
      for (const auto& [name, v] : *requests) nodes[it->second].requested[name] += v;
      continue;
    }
    if (!IsPendingForUs(p)) continue;
    if (!requests) {
      MarkUnschedulable(p, "invalid resource requests: " + requests.error().message);
      continue;
    }
    pending.emplace_back(&p, std::move(*requests));
  }
  // Higher priority first, then the oldest, as the scheduling queue orders them.
  std::stable_sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) {
    int64_t pa = workload::IntAt(*a.first, {"spec", "priority"}, 0), pb = workload::IntAt(*b.first, {"spec", "priority"}, 0);
    if (pa != pb) return pa > pb;
    return json::GetString(*a.first, {"metadata", "creationTimestamp"}) <
           json::GetString(*b.first, {"metadata", "creationTimestamp"});
  });
  for (const auto& [pod, requests] : pending) {
    scheduling::Decision decision = scheduling::Schedule(*pod, requests, nodes);
    if (!decision.node) {
      MarkUnschedulable(*pod, decision.message);
      continue;
    }
    EventSubject subject = SubjectOf(*pod);
    Document binding(rapidjson::kObjectType);
    auto& a = binding.GetAllocator();
    Value meta(rapidjson::kObjectType);
    json::SetString(meta, "name", subject.name, a);
    json::SetString(meta, "uid", subject.uid, a);
    binding.AddMember("metadata", meta, a);
    Value target(rapidjson::kObjectType);
    json::SetString(target, "kind", "Node", a);
    json::SetString(target, "name", *decision.node, a);
    binding.AddMember("target", target, a);
    if (auto failure = api_.DoBind(subject.ns, subject.name, binding)) continue;  // changed under us; next pass
    for (const auto& [name, v] : requests) nodes[node_index[*decision.node]].requested[name] += v;
    RecordEvent(api_, subject, kSchedulerName, "Normal", "Scheduled",
                "Successfully assigned " + subject.ns + "/" + subject.name + " to " + *decision.node);
  }
}

void DefaultScheduler::MarkUnschedulable(const Value& pod, const std::string& message) {
  EventSubject subject = SubjectOf(pod);
  bool changed = false;
  std::string now = NowRfc3339();
  api_.Mutate(*api_.TypeOf("", "pods"), subject.ns, subject.name, "status", [&](Document& d) {
    changed = false;
    if (json::GetString(d, {"metadata", "uid"}) != subject.uid || !IsPendingForUs(d)) return false;
    auto& a = d.GetAllocator();
    Value& status = json::EnsureObject(d, "status", a);
    Value* scheduled = &ConditionOfType(status, "PodScheduled", a);
    if (json::GetString(*scheduled, {"status"}) == "False" && json::GetString(*scheduled, {"reason"}) == "Unschedulable" &&
        json::GetString(*scheduled, {"message"}) == message) {
      return false;
    }
    bool transition = json::GetString(*scheduled, {"status"}) != "False";
    std::string since = transition ? now : std::string(json::GetString(*scheduled, {"lastTransitionTime"}));
    scheduled->SetObject();
    json::SetString(*scheduled, "type", "PodScheduled", a);
    json::SetString(*scheduled, "status", "False", a);
    json::SetString(*scheduled, "lastProbeTime", now, a);
    json::SetString(*scheduled, "lastTransitionTime", since, a);
    json::SetString(*scheduled, "reason", "Unschedulable", a);
    json::SetString(*scheduled, "message", message, a);
    changed = true;
    return true;
  });
  if (changed) RecordEvent(api_, subject, kSchedulerName, "Warning", "FailedScheduling", message);
}

}  // namespace berth::kubesim
