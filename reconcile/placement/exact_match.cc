// reconcile/placement/exact_match.cc — see exact_match.h.
#include "reconcile/placement/exact_match.h"

#include "clientgo-shim/base/json.h"
#include "reconcile/common/annotation_json.h"

namespace berth::reconcile::placement {

Result<std::vector<std::string>> ParseExactMatchReservation(std::string_view text) {
  auto doc = ParseAnnotationJson(text);
  if (!doc) return MakeError(ErrorCode::kInvalidArgument, doc.error().message);
  if (!doc->IsObject()) return MakeError(ErrorCode::kInvalidArgument, "must be a JSON object");
  std::vector<std::string> names;
  const rapidjson::Value* list = json::Member(*doc, "resourceNames");
  if (!list || list->IsNull()) return names;
  if (!list->IsArray()) return MakeError(ErrorCode::kInvalidArgument, "resourceNames: must be a list of strings");
  for (const auto& v : list->GetArray()) {
    if (!v.IsString()) return MakeError(ErrorCode::kInvalidArgument, "resourceNames: must be a list of strings");
    names.emplace_back(v.GetString(), v.GetStringLength());
  }
  return names;
}

bool ExactMatchesReservation(const ResourceAmounts& pod_requests, const ResourceAmounts& allocatable,
                             const std::vector<std::string>& resource_names) {
  auto amount = [](const ResourceAmounts& amounts, const std::string& name) -> int64_t {
    auto it = amounts.find(name);
    return it == amounts.end() ? 0 : it->second;
  };
  for (const std::string& name : resource_names) {
    if (amount(pod_requests, name) != amount(allocatable, name)) return false;
  }
  return true;
}

}  // namespace berth::reconcile::placement
