#include "controllers/common/api_time.h"

#include <chrono>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"

namespace berth::controllers {

std::optional<reconcile::Time> ReadTime(const rapidjson::Value& root, std::initializer_list<std::string_view> path) {
  std::string_view text = json::GetString(root, path);
  if (text.empty()) return std::nullopt;
  auto t = shim::ParseTimestamp(text);
  if (!t) return std::nullopt;
  return std::chrono::time_point_cast<reconcile::Time::duration>(*t);
}

std::string FormatTime(reconcile::Time t) {
  return shim::FormatTimestamp(std::chrono::time_point_cast<std::chrono::nanoseconds>(t));
}

}  // namespace berth::controllers
