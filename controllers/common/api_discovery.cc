// controllers/common/api_discovery.cc — see api_discovery.h.
#include "controllers/common/api_discovery.h"

#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"

namespace berth::controllers {

Result<bool> ListsResource(std::string_view body, std::string_view plural) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "discovery answer is not a JSON object");
  }
  const rapidjson::Value* resources = json::Member(doc, "resources");
  if (resources == nullptr || !resources->IsArray()) {
    return MakeError(ErrorCode::kInvalidArgument, "discovery answer has no resources list (not an APIResourceList)");
  }
  for (const auto& r : resources->GetArray()) {
    if (r.IsObject() && json::GetString(r, {"name"}) == plural) return true;
  }
  return false;
}

std::optional<bool> ResourceServed(shim::RestClient& rest, std::string_view group_version, std::string_view plural) {
  shim::RestRequest request;
  request.path = "/apis/" + std::string(group_version);
  auto response = rest.Do(request);
  if (!response) {
    if (response.error().code == ErrorCode::kNotFound) return false;
    return std::nullopt;
  }
  auto lists = ListsResource(response->body, plural);
  if (!lists) {
    log::Warn("discovery", "cannot read an API discovery answer", {{"path", request.path}, {"error", lists.error().message}});
    return std::nullopt;
  }
  return *lists;
}

}  // namespace berth::controllers
