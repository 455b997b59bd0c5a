#include "e2e/kubesim/sim/deployment_status.h"

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/sim/workload_support.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using workload::IntAt;

constexpr int64_t kMaxInt32 = 2147483647;

}  // namespace

DeploymentStatusBuilder::DeploymentStatusBuilder(const Value& deployment, int64_t max_unavailable, shim::TimePoint now)
    : deployment_(deployment), max_unavailable_(max_unavailable), now_(now), now_text_(shim::FormatTimestamp(now)) {
  conditions_.SetArray();
  if (const Value* c = json::Find(deployment, {"status", "conditions"}); c && c->IsArray()) {
    for (const auto& entry : c->GetArray()) {
      if (entry.IsObject()) conditions_.PushBack(Value(entry, conditions_.GetAllocator()), conditions_.GetAllocator());
    }
  }
  if (const Value* cc = json::Find(deployment, {"status", "collisionCount"}); cc && cc->IsInt64()) {
    collision_count_ = cc->GetInt64();
    has_collision_count_ = true;
  }
}

const Value* DeploymentStatusBuilder::Condition(std::string_view type) const {
  for (const auto& c : conditions_.GetArray()) {
    if (json::GetString(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

void DeploymentStatusBuilder::SetCondition(const std::string& type, const std::string& status, const std::string& reason,
                                           const std::string& message) {
  std::string transition = now_text_;
  if (const Value* current = Condition(type)) {
    if (json::GetString(*current, {"status"}) == status && json::GetString(*current, {"reason"}) == reason) return;
    if (json::GetString(*current, {"status"}) == status) transition = std::string(json::GetString(*current, {"lastTransitionTime"}));
  }
  auto& a = conditions_.GetAllocator();
  for (auto it = conditions_.Begin(); it != conditions_.End();) {
    it = json::GetString(*it, {"type"}) == type ? conditions_.Erase(it) : it + 1;
  }
  Value c(rapidjson::kObjectType);
  json::SetString(c, "type", type, a);
  json::SetString(c, "status", status, a);
  json::SetString(c, "lastUpdateTime", now_text_, a);
  json::SetString(c, "lastTransitionTime", transition, a);
  json::SetString(c, "reason", reason, a);
  json::SetString(c, "message", message, a);
  conditions_.PushBack(c, a);
}

void DeploymentStatusBuilder::CheckPaused(bool paused) {
  const Value* cond = Condition("Progressing");
  bool paused_cond = cond && json::GetString(*cond, {"reason"}) == "DeploymentPaused";
  if (paused && !paused_cond) {
    SetCondition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused");
  } else if (!paused && paused_cond) {
    SetCondition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed");
  }
}

void DeploymentStatusBuilder::FoundNewReplicaSet(const std::string& rs_name) {
  if (Condition("Progressing")) return;
  SetCondition("Progressing", "True", "FoundNewReplicaSet", "Found new replica set \"" + rs_name + "\"");
}

void DeploymentStatusBuilder::NewReplicaSetCreated(const std::string& rs_name) {
  created_ = rs_name;
  SetCondition("Progressing", "True", "NewReplicaSetCreated", "Created new replica set \"" + rs_name + "\"");
}

void DeploymentStatusBuilder::BumpCollisionCount() {
  ++collision_count_;
  has_collision_count_ = true;
}

bool DeploymentStatusBuilder::CurrentlyComplete(int64_t replicas) const {
  return IntAt(deployment_, {"status", "updatedReplicas"}, 0) == replicas &&
         IntAt(deployment_, {"status", "replicas"}, 0) == replicas &&
         IntAt(deployment_, {"status", "availableReplicas"}, 0) == replicas &&
         IntAt(deployment_, {"status", "observedGeneration"}, 0) >= IntAt(deployment_, {"metadata", "generation"}, 0);
}

Document DeploymentStatusBuilder::Build(const std::vector<RsCounts>& counts, const std::string& new_rs_name, bool paused) {
  const int64_t replicas = IntAt(deployment_, {"spec", "replicas"}, 1);
  const int64_t generation = IntAt(deployment_, {"metadata", "generation"}, 0);
  int64_t total = 0, updated = 0, ready = 0, available = 0, spec_total = 0;
  for (const auto& c : counts) {
    total += c.replicas;
    ready += c.ready;
    available += c.available;
    spec_total += c.spec_replicas;
    if (c.is_new) updated += c.replicas;
  }
  const int64_t unavailable = std::max<int64_t>(0, spec_total - available);

  if (available >= replicas - max_unavailable_) {
    SetCondition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.");
  } else {
    SetCondition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.");
  }

  const Value* deadline_v = json::Find(deployment_, {"spec", "progressDeadlineSeconds"});
  const bool has_deadline = deadline_v && deadline_v->IsInt64() && deadline_v->GetInt64() != kMaxInt32;
  const std::string subject = new_rs_name.empty() ? "Deployment \"" + std::string(json::GetString(deployment_, {"metadata", "name"})) + "\""
                                                  : "ReplicaSet \"" + new_rs_name + "\"";
  if (!paused) {
    if (!has_deadline) {
      for (auto it = conditions_.Begin(); it != conditions_.End();) {
        it = json::GetString(*it, {"type"}) == "Progressing" ? conditions_.Erase(it) : it + 1;
      }
    }
    const Value* current = Condition("Progressing");
    bool complete_already = total == updated && current && json::GetString(*current, {"reason"}) == "NewReplicaSetAvailable";
    if (has_deadline && !complete_already) {
      auto old = [&](const char* f) { return IntAt(deployment_, {"status", f}, 0); };
      bool complete = updated == replicas && total == replicas && available == replicas;
      bool progressing = updated > old("updatedReplicas") || (total - updated) < (old("replicas") - old("updatedReplicas")) ||
                         ready > old("readyReplicas") || available > old("availableReplicas");
      if (complete) {
        SetCondition("Progressing", "True", "NewReplicaSetAvailable", subject + " has successfully progressed.");
      } else if (progressing) {
        std::string transition = now_text_;
        if (current && json::GetString(*current, {"status"}) == "True") {
          transition = std::string(json::GetString(*current, {"lastTransitionTime"}));
        }
        for (auto it = conditions_.Begin(); it != conditions_.End();) {
          it = json::GetString(*it, {"type"}) == "Progressing" ? conditions_.Erase(it) : it + 1;
        }
        SetCondition("Progressing", "True", "ReplicaSetUpdated", subject + " is progressing.");
        Value* cond = &conditions_[conditions_.Size() - 1];
        json::SetString(*cond, "lastTransitionTime", transition, conditions_.GetAllocator());
      } else if (current) {
        std::string_view reason = json::GetString(*current, {"reason"});
        auto since = shim::ParseTimestamp(json::GetString(*current, {"lastUpdateTime"}));
        if (reason != "NewReplicaSetAvailable" && reason != "ProgressDeadlineExceeded" && since) {
          auto deadline = *since + std::chrono::seconds(deadline_v->GetInt64());
          if (deadline < now_) {
            SetCondition("Progressing", "False", "ProgressDeadlineExceeded", subject + " has timed out progressing.");
          }
        }
      }
    }
    // requeueStuckDeployment: look again when a progressing rollout's deadline passes.
    if (const Value* cond = Condition("Progressing"); has_deadline && cond && json::GetString(*cond, {"status"}) == "True" &&
                                                       json::GetString(*cond, {"reason"}) != "NewReplicaSetAvailable") {
      if (auto since = shim::ParseTimestamp(json::GetString(*cond, {"lastUpdateTime"}))) {
        auto at = *since + std::chrono::seconds(deadline_v->GetInt64()) + std::chrono::seconds(1);
        recheck_ = std::max(std::chrono::milliseconds(0), std::chrono::duration_cast<std::chrono::milliseconds>(at - now_));
      }
    }
  }

  Document status(rapidjson::kObjectType);
  auto& a = status.GetAllocator();
  // Every DeploymentStatus field is omitempty.
  auto put = [&](const char* field, int64_t v) {
    if (v != 0) status.AddMember(rapidjson::StringRef(field), Value(v), a);
  };
  put("observedGeneration", generation);
  put("replicas", total);
  put("updatedReplicas", updated);
  put("readyReplicas", ready);
  put("availableReplicas", available);
  put("unavailableReplicas", unavailable);
  if (!conditions_.Empty()) status.AddMember("conditions", Value(conditions_, a), a);
  if (has_collision_count_) status.AddMember("collisionCount", Value(collision_count_), a);
  return status;
}

}  // namespace berth::kubesim
