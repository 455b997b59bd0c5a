// e2e/kubesim/table/table_builder.h
//
// Server-side Table output (meta.k8s.io/v1 Table), what kube-apiserver returns when a client
// such as `kubectl get` sends Accept: application/json;as=Table;v=v1;g=meta.k8s.io. The API layer
// decides *whether* to answer with a Table (content negotiation) and fetches the objects; this
// module decides *what* the Table says. Column sets follow the apiserver: built-in printers for
// known resources, a CRD version's additionalPrinterColumns for custom resources, and the
// default convertor (Name, Created At) for everything else.
//
// Lists: pass every item and the list's metadata. A single GET: pass the one object and set
// list_metadata.resource_version to its resourceVersion. Watches: each event's object becomes a
// one-row Table; the apiserver sends column definitions only in the first event (later events
// set include_column_definitions = false, and kubectl reuses the first event's columns).
// Example:
//   TableRequest req{.group = "", .resource = "pods"};
//   req.list_metadata.resource_version = "42";
//   rapidjson::Document table = BuildTable(req, items, std::chrono::system_clock::now());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/table/time_format.h"

namespace berth::kubesim::table {

class CrdColumns;

// IncludeObject is metav1.TableOptions.includeObject: what each row carries in "object".
enum class IncludeObject {
  kNone,      // "object": null
  kMetadata,  // a PartialObjectMetadata (the default)
  kObject,    // the full object
};

// ParseIncludeObject reads the includeObject query parameter; "" means kMetadata.
// Errors: kBadRequest with the apiserver's message, "Unable to convert to Table as requested:
// includeObject: Invalid value: \"x\": must be 'Metadata', 'Object', 'None', or empty".
Result<IncludeObject> ParseIncludeObject(std::string_view value);

// ListMetadata is the list's metav1.ListMeta, copied to the Table's metadata.
struct ListMetadata {
  std::string resource_version;
  std::string continue_token;
  std::optional<int64_t> remaining_item_count;
};

// TableRequest says which columns to build and what to put around the rows.
struct TableRequest {
  std::string group;     // API group, "" for core
  std::string resource;  // plural resource name, e.g. "pods", "reservations"
  std::string kind;      // e.g. "Pod"; informational
  // custom_resource: the resource is served from a CRD. Columns then come from crd_columns if
  // set, else are compiled from printer_columns (the served version's additionalPrinterColumns,
  // nullptr when it declares none).
  bool custom_resource = false;
  const rapidjson::Value* printer_columns = nullptr;
  const CrdColumns* crd_columns = nullptr;
  ListMetadata list_metadata;
  IncludeObject include_object = IncludeObject::kMetadata;
  bool include_column_definitions = true;  // false = TableOptions.noHeaders (later watch events)
  std::string table_api_version = "meta.k8s.io/v1";  // or "meta.k8s.io/v1beta1"
};

// BuildTable returns the Table for `objects` (each a full object as stored), one row per object
// in the given order. `now` is the reference for every AGE cell. Never fails: malformed objects
// print as their zero values.
rapidjson::Document BuildTable(const TableRequest& request,
                               const std::vector<const rapidjson::Value*>& objects, TimePoint now);

}  // namespace berth::kubesim::table
