#include "reconcile/resourcepolicy/cost_annotations.h"

#include "clientgo-shim/api/deletion_cost.h"
#include "clientgo-shim/base/json.h"

namespace berth::reconcile::resourcepolicy {

using Kind = CostAnnotationDecision::Kind;

CostAnnotationDecision DecideCostAnnotations(std::string_view policy_name, std::string_view pod_name,
                                             const PodCostAnnotations& current, std::optional<int32_t> desired_cost,
                                             bool marker_policy_exists) {
  CostAnnotationDecision d;
  const bool ours = current.marker && *current.marker == policy_name;
  const bool other_live = current.marker && !ours && marker_policy_exists;
  if (!desired_cost) {
    d.kind = ours ? Kind::kRemove : Kind::kUnchanged;
    return d;
  }
  if (other_live) {
    d.kind = Kind::kOtherPolicy;
    return d;
  }
  if (current.cost && !current.marker) {
    d.kind = Kind::kUserOwned;
    if (!shim::ParsePodDeletionCost(*current.cost)) {
      d.event_message = "pod " + std::string(pod_name) + " has " + std::string(shim::kPodDeletionCostAnnotation) +
                        " \"" + *current.cost + "\", which is not an int32; berth leaves it and sets no cost";
    }
    return d;
  }
  d.cost = shim::FormatPodDeletionCost(*desired_cost);
  d.kind = ours && current.cost && *current.cost == d.cost ? Kind::kUnchanged : Kind::kSet;
  return d;
}

std::string CostMergePatch(const CostAnnotationDecision& decision, std::string_view policy_name) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  rapidjson::Value annotations(rapidjson::kObjectType);
  rapidjson::Value cost_key(shim::kPodDeletionCostAnnotation.data(),
                            static_cast<rapidjson::SizeType>(shim::kPodDeletionCostAnnotation.size()), a);
  rapidjson::Value marker_key(kDeletionCostPolicyAnnotation.data(),
                              static_cast<rapidjson::SizeType>(kDeletionCostPolicyAnnotation.size()), a);
  if (decision.kind == Kind::kSet) {
    annotations.AddMember(cost_key, rapidjson::Value(decision.cost.c_str(), a), a);
    annotations.AddMember(marker_key,
                          rapidjson::Value(policy_name.data(), static_cast<rapidjson::SizeType>(policy_name.size()), a), a);
  } else {
    annotations.AddMember(cost_key, rapidjson::Value(rapidjson::kNullType), a);
    annotations.AddMember(marker_key, rapidjson::Value(rapidjson::kNullType), a);
  }
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("annotations", annotations, a);
  doc.AddMember("metadata", meta, a);
  return json::Serialize(doc);
}

}  // namespace berth::reconcile::resourcepolicy
