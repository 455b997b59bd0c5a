// TableFor: stored objects → a meta.k8s.io/v1 Table through table/'s printers (built-in column
// sets, or a CRD's additionalPrinterColumns).
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/response_format.h"
#include "e2e/kubesim/table/table_builder.h"

namespace berth::kubesim {

std::string TableFor(const HttpRequest& request, const ResourceType& type,
                     const std::vector<const StoredObject*>& objects, uint64_t list_rv,
                     const std::string& continue_token, int64_t remaining, bool include_headers) {
  table::TableRequest req;
  req.group = type.group;
  req.resource = type.plural;
  req.kind = type.kind;
  req.custom_resource = type.is_crd;
  req.printer_columns = type.printer_columns ? type.printer_columns.get() : nullptr;
  req.list_metadata.resource_version = std::to_string(list_rv);
  req.list_metadata.continue_token = continue_token;
  if (!continue_token.empty() && remaining > 0) req.list_metadata.remaining_item_count = remaining;
  if (auto include = table::ParseIncludeObject(request.Query("includeObject")); include) {
    req.include_object = *include;
  }
  req.include_column_definitions = include_headers;
  std::vector<rapidjson::Document> docs(objects.size());
  std::vector<const rapidjson::Value*> ptrs;
  ptrs.reserve(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    docs[i].Parse(objects[i]->json.data(), objects[i]->json.size());
    ptrs.push_back(&docs[i]);
  }
  return json::Serialize(table::BuildTable(req, ptrs, std::chrono::system_clock::now()));
}

}  // namespace berth::kubesim
