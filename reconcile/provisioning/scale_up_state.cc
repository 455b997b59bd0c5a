// reconcile/provisioning/scale_up_state.cc
//
// The wire form of an in-flight scale-up (AtomicScaleUpProvisioner::Record), kept in the
// request's annotation berth.dev/scale-up so that a restarted (or newly elected) berth-manager
// waits for the nodes its predecessor asked for instead of asking again, and gives back exactly
// what that scale-up obtained.
#include <algorithm>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "reconcile/common/annotation_json.h"
#include "reconcile/provisioning/scale_up.h"

namespace berth::reconcile::provisioning {
namespace {

using rapidjson::Value;

std::string FormatTime(Time t) {
  return shim::FormatMicroTimestamp(std::chrono::time_point_cast<std::chrono::nanoseconds>(t));
}

std::string FieldError(std::string_view field, std::string_view want) {
  return std::string(kScaleUpStateAnnotation) + ": \"" + std::string(field) + "\": " + std::string(want);
}

std::expected<int32_t, std::string> ReadCount(const Value& object, const char* field) {
  const Value* v = json::Member(object, field);
  if (!v || !v->IsInt() || v->GetInt() < 0) return std::unexpected(FieldError(field, "want a non-negative integer"));
  return v->GetInt();
}

std::expected<Time, std::string> ReadTime(const Value& object, const char* field) {
  const Value* v = json::Member(object, field);
  if (!v || !v->IsString()) return std::unexpected(FieldError(field, "want an RFC 3339 time"));
  auto t = shim::ParseTimestamp(std::string_view(v->GetString(), v->GetStringLength()));
  if (!t) return std::unexpected(FieldError(field, t.error().message));
  return std::chrono::time_point_cast<Time::duration>(*t);
}

std::expected<bool, std::string> ReadBool(const Value& object, const char* field) {
  const Value* v = json::Member(object, field);
  if (!v) return false;
  if (!v->IsBool()) return std::unexpected(FieldError(field, "want true or false"));
  return v->GetBool();
}

}  // namespace

std::string EncodeScaleUpRecord(const AtomicScaleUpProvisioner::Record& record) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("group", Value(record.group.c_str(), a), a);
  d.AddMember("delta", record.delta, a);
  d.AddMember("targetBefore", record.target_before, a);
  Value nodes(rapidjson::kArrayType);
  for (const RegisteredNode& n : record.nodes_before) nodes.PushBack(Value(n.name.c_str(), a), a);
  d.AddMember("nodesBefore", nodes, a);
  d.AddMember("deadline", Value(FormatTime(record.deadline).c_str(), a), a);
  if (record.settled) d.AddMember("settled", true, a);
  if (record.give_back_pending) d.AddMember("giveBackPending", true, a);
  if (record.watch_until) d.AddMember("watchUntil", Value(FormatTime(*record.watch_until).c_str(), a), a);
  return json::Serialize(d);
}

std::expected<AtomicScaleUpProvisioner::Record, std::string> DecodeScaleUpRecord(std::string_view text) {
  auto doc = ParseAnnotationJson(text);
  if (!doc) return std::unexpected(std::string(kScaleUpStateAnnotation) + ": " + doc.error().message);
  if (!doc->IsObject()) return std::unexpected(std::string(kScaleUpStateAnnotation) + ": want a JSON object");
  AtomicScaleUpProvisioner::Record r;
  const Value* group = json::Member(*doc, "group");
  if (!group || !group->IsString() || group->GetStringLength() == 0) {
    return std::unexpected(FieldError("group", "want a node group id"));
  }
  r.group = group->GetString();
  auto delta = ReadCount(*doc, "delta");
  if (!delta) return std::unexpected(delta.error());
  r.delta = *delta;
  auto before = ReadCount(*doc, "targetBefore");
  if (!before) return std::unexpected(before.error());
  r.target_before = *before;
  const Value* nodes = json::Member(*doc, "nodesBefore");
  if (!nodes || !nodes->IsArray()) return std::unexpected(FieldError("nodesBefore", "want a list of node names"));
  for (const Value& n : nodes->GetArray()) {
    if (!n.IsString() || n.GetStringLength() == 0) {
      return std::unexpected(FieldError("nodesBefore", "want a list of node names"));
    }
    r.nodes_before.insert(RegisteredNode{n.GetString(), ""});
  }
  auto deadline = ReadTime(*doc, "deadline");
  if (!deadline) return std::unexpected(deadline.error());
  r.deadline = *deadline;
  auto settled = ReadBool(*doc, "settled");
  if (!settled) return std::unexpected(settled.error());
  r.settled = *settled;
  auto pending = ReadBool(*doc, "giveBackPending");
  if (!pending) return std::unexpected(pending.error());
  r.give_back_pending = *pending;
  if (json::Member(*doc, "watchUntil")) {
    auto until = ReadTime(*doc, "watchUntil");
    if (!until) return std::unexpected(until.error());
    r.watch_until = *until;
  }
  return r;
}

}  // namespace berth::reconcile::provisioning
