#include "controllers/common/spec_fields.h"

#include "clientgo-shim/api/duration.h"

namespace berth::controllers {

void ReadTtl(const rapidjson::Value* value, const char* field, std::string& text,
             std::optional<std::chrono::nanoseconds>& ttl, std::vector<std::string>& errors) {
  if (!value || value->IsNull()) return;
  const std::string prefix = std::string(field) + ": ";
  if (!value->IsString()) {
    errors.push_back(prefix + "must be a duration string");
    return;
  }
  text.assign(value->GetString(), value->GetStringLength());
  auto parsed = shim::ParseDuration(text);
  if (!parsed) {
    errors.push_back(prefix + parsed.error().message);
  } else if (parsed->count() < 0) {
    errors.push_back(prefix + "must not be negative, got " + text);
  } else {
    ttl = *parsed;
  }
}

}  // namespace berth::controllers
