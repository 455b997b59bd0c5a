// controllers/scheduler/preemption_codec.cc
#include "controllers/scheduler/preemption_codec.h"

#include <limits>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"

namespace berth::controllers {

namespace placement = reconcile::placement;
using rapidjson::Value;

placement::PodPriority ReadPodPriority(const Value& pod) {
  placement::PodPriority out;
  if (const Value* priority = json::Find(pod, {"spec", "priority"}); priority && !priority->IsNull()) {
    if (priority->IsInt64() && priority->GetInt64() >= std::numeric_limits<int32_t>::min() &&
        priority->GetInt64() <= std::numeric_limits<int32_t>::max()) {
      out.value = static_cast<int32_t>(priority->GetInt64());
    } else {
      out.error = "spec.priority: not an int32: " + json::Serialize(*priority);
    }
  }
  out.preempt_never = json::GetString(pod, {"spec", "preemptionPolicy"}) == "Never";
  out.nominated_node_name = std::string(json::GetString(pod, {"status", "nominatedNodeName"}));
  if (const Value* start = json::Find(pod, {"status", "startTime"}); start && !start->IsNull()) {
    if (start->IsString()) {
      ReadStartTime(std::string_view(start->GetString(), start->GetStringLength()), out);
    } else if (out.error.empty()) {
      out.error = "status.startTime: not a string: " + json::Serialize(*start);
    }
  }
  if (json::Find(pod, {"metadata", "deletionTimestamp"}) != nullptr) {
    if (const Value* conditions = json::Find(pod, {"status", "conditions"}); conditions && conditions->IsArray()) {
      for (const Value& c : conditions->GetArray()) {
        if (json::GetString(c, {"type"}) == "DisruptionTarget" && json::GetString(c, {"status"}) == "True" &&
            json::GetString(c, {"reason"}) == placement::kReasonPreemptionByScheduler) {
          out.terminating_by_preemption = true;
        }
      }
    }
  }
  return out;
}

void ReadStartTime(std::optional<std::string_view> text, placement::PodPriority& priority) {
  priority.start_time.reset();
  if (!text) return;
  auto parsed = shim::ParseTimestamp(*text);
  if (parsed) {
    priority.start_time = std::chrono::time_point_cast<reconcile::Time::duration>(*parsed);
  } else if (priority.error.empty()) {
    priority.error = "status.startTime: " + parsed.error().message;
  }
}

placement::PdbView ReadPdbView(const Value& pdb) {
  placement::PdbView out;
  out.namespace_name = std::string(json::GetString(pdb, {"metadata", "namespace"}));
  out.name = std::string(json::GetString(pdb, {"metadata", "name"}));
  if (auto selector = shim::LabelSelector::FromJson(json::Find(pdb, {"spec", "selector"}))) {
    out.selector = std::move(*selector);
  }
  if (const Value* allowed = json::Find(pdb, {"status", "disruptionsAllowed"}); allowed && allowed->IsInt64()) {
    out.disruptions_allowed = allowed->GetInt64();
  }
  if (const Value* disrupted = json::Find(pdb, {"status", "disruptedPods"}); disrupted && disrupted->IsObject()) {
    for (const auto& m : disrupted->GetObject()) out.disrupted_pods.emplace_back(m.name.GetString());
  }
  return out;
}

std::string PreemptionMessage(std::string_view scheduler_name) {
  return std::string(scheduler_name) + ": preempting to accommodate a higher priority pod";
}

std::string DisruptionTargetPatch(std::string_view scheduler_name, std::string_view now_rfc3339) {
  rapidjson::Document patch(rapidjson::kObjectType);
  auto& a = patch.GetAllocator();
  Value condition(rapidjson::kObjectType);
  json::SetString(condition, "type", "DisruptionTarget", a);
  json::SetString(condition, "status", "True", a);
  json::SetString(condition, "reason", placement::kReasonPreemptionByScheduler, a);
  json::SetString(condition, "message", PreemptionMessage(scheduler_name), a);
  json::SetString(condition, "lastTransitionTime", now_rfc3339, a);
  Value conditions(rapidjson::kArrayType);
  conditions.PushBack(condition, a);
  Value& status = json::EnsureObject(patch, "status", a);
  status.AddMember("conditions", conditions, a);
  return json::Serialize(patch);
}

}  // namespace berth::controllers
