#include "e2e/kubesim/api/list_filter.h"

#include <algorithm>

#include "clientgo-shim/api/field_selector.h"
#include "clientgo-shim/api/label_selector.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {
namespace {

// The field labels each resource supports beyond metadata.name and metadata.namespace
// (the apiserver's per-type field label conversion functions).
std::vector<std::string> SupportedFields(const ResourceType& type) {
  if (type.is_crd) {
    std::vector<std::string> out;
    for (const auto& f : type.selectable_fields) out.push_back(f.rfind('.', 0) == 0 ? f.substr(1) : f);
    return out;
  }
  if (!type.group.empty()) return {};
  if (type.plural == "pods") {
    return {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
            "status.phase", "status.podIP", "status.nominatedNodeName"};
  }
  if (type.plural == "nodes") return {"spec.unschedulable"};
  if (type.plural == "namespaces") return {"status.phase"};
  if (type.plural == "events") {
    return {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
            "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
            "reason", "reportingComponent", "source", "type"};
  }
  return {};
}

}  // namespace

ListFilter BuildListFilter(const HttpRequest& request, const ResourceType& type) {
  ListFilter out;
  std::optional<shim::LabelSelector> labels;
  if (auto text = request.Query("labelSelector"); !text.empty()) {
    auto parsed = shim::LabelSelector::Parse(text);
    if (!parsed) {
      out.error = BadRequest("unable to parse requirement: " + parsed.error().message);
      return out;
    }
    if (!parsed->Empty()) labels = std::move(*parsed);
  }
  std::optional<shim::FieldSelector> fields;
  if (auto text = request.Query("fieldSelector"); !text.empty()) {
    auto parsed = shim::FieldSelector::Parse(text);
    if (!parsed) {
      out.error = BadRequest(parsed.error().message);
      return out;
    }
    auto supported = SupportedFields(type);
    for (const auto& req : parsed->requirements()) {
      if (req.field == "metadata.name" || req.field == "metadata.namespace") continue;
      if (std::find(supported.begin(), supported.end(), req.field) == supported.end()) {
        out.error = BadRequest("field label not supported: " + req.field);
        return out;
      }
    }
    if (!parsed->Empty()) fields = std::move(*parsed);
  }
  if (!labels && !fields) return out;
  out.filter = [labels = std::move(labels), fields = std::move(fields)](const StoredObject& obj) {
    if (labels && !labels->Matches(obj.labels)) return false;
    if (fields) {
      return fields->Matches([&](std::string_view field) -> std::optional<std::string> {
        if (field == "metadata.name") return obj.name;
        if (field == "metadata.namespace") return obj.namespace_name;
        auto it = obj.fields.find(std::string(field));
        if (it == obj.fields.end()) return std::string();
        return it->second;
      });
    }
    return true;
  };
  return out;
}

}  // namespace berth::kubesim
