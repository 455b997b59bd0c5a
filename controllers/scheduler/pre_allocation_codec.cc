#include "controllers/scheduler/pre_allocation_codec.h"

#include "clientgo-shim/base/json.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "reconcile/common/annotation_json.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
namespace placement = reconcile::placement;

}  // namespace

placement::PreAllocationPolicy ReadPreAllocationPolicy(const Value& reservation) {
  placement::PreAllocationPolicy policy;
  const Value* p = json::Find(reservation, {"spec", "preAllocationPolicy"});
  if (!p || !p->IsObject()) return policy;
  policy.mode = placement::ParsePreAllocationMode(json::GetString(*p, {"mode"}));
  const Value* multiple = json::Member(*p, "enableMultiple");
  policy.enable_multiple = multiple && multiple->IsBool() && multiple->GetBool();
  return policy;
}

bool ReadPreAllocationEnabled(const Value& reservation) {
  const Value* pre = json::Find(reservation, {"spec", "preAllocation"});
  return pre && pre->IsBool() && pre->GetBool();
}

placement::PreAllocatablePod ReadPreAllocatablePod(const Value& pod, std::string_view priority_annotation) {
  placement::PreAllocatablePod out;
  out.pod = ReadPodView(pod);
  const Value* priority = json::Find(pod, {"metadata", "annotations", priority_annotation});
  if (priority && priority->IsString()) out.priority = std::string(priority->GetString(), priority->GetStringLength());
  out.terminal = PodIsTerminal(pod);
  const Value* deleting = json::Find(pod, {"metadata", "deletionTimestamp"});
  out.deleting = deleting && !deleting->IsNull();
  return out;
}

Result<std::vector<placement::PreAllocatedPod>> ParsePreAllocatedPods(std::string_view text) {
  auto doc = reconcile::ParseAnnotationJson(text);
  if (!doc) return MakeError(ErrorCode::kInvalidArgument, "pre-allocated pods: " + doc.error().message);
  if (!doc->IsArray()) return MakeError(ErrorCode::kInvalidArgument, "pre-allocated pods: not a JSON array");
  std::vector<placement::PreAllocatedPod> out;
  for (const Value& item : doc->GetArray()) {
    if (!item.IsObject()) return MakeError(ErrorCode::kInvalidArgument, "pre-allocated pods: an entry is not an object");
    placement::PreAllocatedPod pod{std::string(json::GetString(item, {"namespace"})),
                                   std::string(json::GetString(item, {"name"})),
                                   std::string(json::GetString(item, {"uid"}))};
    if (!pod.uid.empty()) out.push_back(std::move(pod));
  }
  return out;
}

std::string FormatPreAllocatedPods(const std::vector<placement::PreAllocatedPod>& pods) {
  rapidjson::Document doc(rapidjson::kArrayType);
  auto& a = doc.GetAllocator();
  for (const placement::PreAllocatedPod& pod : pods) {
    Value item(rapidjson::kObjectType);
    json::SetString(item, "namespace", pod.namespace_name, a);
    json::SetString(item, "name", pod.name, a);
    json::SetString(item, "uid", pod.uid, a);
    doc.PushBack(item, a);
  }
  return json::Serialize(doc);
}

std::vector<placement::PreAllocatedPod> ReadPreAllocatedPods(const Value& reservation) {
  const Value* text = json::Find(reservation, {"metadata", "annotations", kPreAllocatedPodsAnnotation});
  if (!text || !text->IsString()) return {};
  auto pods = ParsePreAllocatedPods({text->GetString(), text->GetStringLength()});
  return pods ? std::move(*pods) : std::vector<placement::PreAllocatedPod>{};
}

}  // namespace berth::controllers
