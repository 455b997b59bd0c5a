// reconcile/common/annotation_json.cc
#include "reconcile/common/annotation_json.h"

#include <string>

#include <rapidjson/error/en.h>

namespace berth::reconcile {

Result<rapidjson::Document> ParseAnnotationJson(std::string_view text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                         rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return doc;
}

}  // namespace berth::reconcile
