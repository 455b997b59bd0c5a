// reconcile/common/annotation_json.cc
#include "reconcile/common/annotation_json.h"

#include "clientgo-shim/base/json.h"

namespace berth::reconcile {

Result<rapidjson::Document> ParseAnnotationJson(std::string_view text) {
  return json::ParseIterative(text);
}

}  // namespace berth::reconcile
