#include "controllers/common/write_errors.h"

#include "clientgo-shim/base/log.h"

namespace berth::controllers {

void LogWriteRetry(std::string_view logger, std::string_view what, std::string_view object, const Error& error) {
  log::Warn(logger, std::string(what) + " failed, retrying with backoff",
            {{"object", std::string(object)},
             {"code", std::to_string(error.http_status)},
             {"reason", error.reason},
             {"error", error.message}});
}

std::optional<std::string> AlreadyAssignedNode(const Error& error) {
  if (error.code != ErrorCode::kConflict) return std::nullopt;
  constexpr std::string_view kMarker = " is already assigned to node \"";
  const std::string& m = error.message;
  size_t at = m.find(kMarker);
  if (at == std::string::npos) return std::nullopt;
  size_t start = at + kMarker.size();
  size_t end = m.find('"', start);
  if (end == std::string::npos || end == start) return std::nullopt;
  return m.substr(start, end - start);
}

}  // namespace berth::controllers
