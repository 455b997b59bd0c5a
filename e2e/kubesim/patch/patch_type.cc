// e2e/kubesim/patch/patch_type.cc
#include "e2e/kubesim/patch/patch_type.h"

#include <cctype>
#include <string>

namespace berth::kubesim::patch {
namespace {

constexpr std::string_view kMergeType = "application/merge-patch+json";
constexpr std::string_view kJsonType = "application/json-patch+json";
constexpr std::string_view kStrategicType = "application/strategic-merge-patch+json";
constexpr std::string_view kApplyType = "application/apply-patch+yaml";

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  media = Trim(media);
  std::string lower(media);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == kMergeType) return PatchType::kMerge;
  if (lower == kJsonType) return PatchType::kJson;
  if (lower == kStrategicType) return PatchType::kStrategic;
  if (lower == kApplyType) return PatchType::kApply;
  return std::nullopt;
}

std::string_view PatchTypeName(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return kMergeType;
    case PatchType::kJson:
      return kJsonType;
    case PatchType::kStrategic:
      return kStrategicType;
    case PatchType::kApply:
      return kApplyType;
  }
  return "unknown";
}

}  // namespace berth::kubesim::patch
