// controllers/scheduler/default_spread.cc — see default_spread.h.
#include "controllers/scheduler/default_spread.h"

#include <string_view>

#include "clientgo-shim/base/json.h"

namespace berth::controllers {
namespace {

using rapidjson::Value;
namespace placement = reconcile::placement;

// ReadLabelSet: a map[string]string selector; false when it is not one (then it is left out).
bool ReadLabelSet(const Value& v, placement::LabelMap& into) {
  if (!v.IsObject()) return false;
  for (const auto& m : v.GetObject()) {
    if (!m.value.IsString()) return false;
  }
  for (const auto& m : v.GetObject()) into[m.name.GetString()] = m.value.GetString();
  return true;
}

}  // namespace

SpreadOwnerKind SpreadOwnerOf(const placement::PodSpecView& pod, const placement::PodOwnerReference** owner) {
  for (const placement::PodOwnerReference& ref : pod.owner_references) {
    if (!ref.controller) continue;
    if (owner != nullptr) *owner = &ref;
    if (ref.api_version == "apps/v1" && ref.kind == "ReplicaSet") return SpreadOwnerKind::kReplicaSet;
    if (ref.api_version == "apps/v1" && ref.kind == "StatefulSet") return SpreadOwnerKind::kStatefulSet;
    if (ref.api_version == "v1" && ref.kind == "ReplicationController") return SpreadOwnerKind::kReplicationController;
    return SpreadOwnerKind::kNone;
  }
  return SpreadOwnerKind::kNone;
}

std::shared_ptr<const shim::LabelSelector> DefaultSpreadSelector(const placement::LabelMap& pod_labels,
                                                                 const std::vector<const Value*>& service_selectors,
                                                                 SpreadOwnerKind owner_kind,
                                                                 const Value* owner_selector) {
  // Services: those whose selector set matches the pod, merged (they all match it, so their
  // labels cannot conflict).
  placement::LabelMap label_set;
  for (const Value* selector : service_selectors) {
    if (selector == nullptr || selector->IsNull()) continue;  // a nil selector selects nothing
    placement::LabelMap set;
    if (!ReadLabelSet(*selector, set)) continue;
    if (!shim::LabelSelector::FromMap(set).Matches(pod_labels)) continue;
    for (auto& [k, v] : set) label_set[k] = v;
  }
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& alloc = doc.GetAllocator();
  Value expressions(rapidjson::kArrayType);
  if (owner_selector != nullptr && !owner_selector->IsNull()) {
    if (owner_kind == SpreadOwnerKind::kReplicationController) {
      ReadLabelSet(*owner_selector, label_set);  // merged into the set, as labels.Merge
    } else if (owner_kind != SpreadOwnerKind::kNone && shim::LabelSelector::FromJson(owner_selector)) {
      // Its requirements are added (ANDed): matchLabels as key In (value), then matchExpressions.
      if (const Value* labels = json::Member(*owner_selector, "matchLabels"); labels && labels->IsObject()) {
        for (const auto& m : labels->GetObject()) {
          Value req(rapidjson::kObjectType);
          req.AddMember("key", Value(m.name, alloc), alloc);
          req.AddMember("operator", "In", alloc);
          Value values(rapidjson::kArrayType);
          values.PushBack(Value(m.value, alloc), alloc);
          req.AddMember("values", values, alloc);
          expressions.PushBack(req, alloc);
        }
      }
      if (const Value* exprs = json::Member(*owner_selector, "matchExpressions"); exprs && exprs->IsArray()) {
        for (const auto& e : exprs->GetArray()) expressions.PushBack(Value(e, alloc), alloc);
      }
    }
  }
  Value match_labels(rapidjson::kObjectType);
  for (const auto& [k, v] : label_set) match_labels.AddMember(Value(k.c_str(), alloc), Value(v.c_str(), alloc), alloc);
  doc.AddMember("matchLabels", match_labels, alloc);
  doc.AddMember("matchExpressions", expressions, alloc);
  auto selector = shim::LabelSelector::FromJson(&doc);
  if (!selector || selector->Empty() || selector->IsNothing()) return nullptr;
  return std::make_shared<const shim::LabelSelector>(std::move(*selector));
}

}  // namespace berth::controllers
