// reconcile/placement/types.cc
#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

NodeSelectorOperator ParseNodeSelectorOperator(std::string_view text) {
  if (text == "In") return NodeSelectorOperator::kIn;
  if (text == "NotIn") return NodeSelectorOperator::kNotIn;
  if (text == "Exists") return NodeSelectorOperator::kExists;
  if (text == "DoesNotExist") return NodeSelectorOperator::kDoesNotExist;
  if (text == "Gt") return NodeSelectorOperator::kGt;
  if (text == "Lt") return NodeSelectorOperator::kLt;
  return NodeSelectorOperator::kUnknown;
}

AllocatePolicy ParseAllocatePolicy(std::string_view text) {
  return text == "Restricted" ? AllocatePolicy::kRestricted : AllocatePolicy::kAligned;
}

}  // namespace berth::reconcile::placement
