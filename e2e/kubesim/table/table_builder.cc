#include "e2e/kubesim/table/table_builder.h"

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/table/crd_columns.h"
#include "e2e/kubesim/table/printer_support.h"

namespace berth::kubesim::table {
namespace {

using rapidjson::Value;

constexpr ColumnDefinition kDefaultColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Created At", "date", "", kCreationTimestampDescription, 0},
};

// PrintDefaultRow is the default table convertor: name and the raw RFC3339 creation time, which
// kubectl prints verbatim ("2024-05-01T10:00:00Z"), e.g. for customresourcedefinitions.
void PrintDefaultRow(const Value& object, TimePoint, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(object, {"metadata", "name"}), alloc);
  const std::optional<Timestamp> created =
      ParseTimestampField(json::Find(object, {"metadata", "creationTimestamp"}));
  AddCell(row, FormatRfc3339Utc(created.value_or(Timestamp{-62135596800, 0})), alloc);
}

void AppendColumns(std::span<const ColumnDefinition> columns, Value& out, Allocator& alloc) {
  for (const ColumnDefinition& c : columns) {
    Value col(rapidjson::kObjectType);
    json::SetMember(col, "name", MakeString(c.name, alloc), alloc);
    json::SetMember(col, "type", MakeString(c.type, alloc), alloc);
    json::SetMember(col, "format", MakeString(c.format, alloc), alloc);
    json::SetMember(col, "description", MakeString(c.description, alloc), alloc);
    col.AddMember("priority", Value(c.priority), alloc);
    out.PushBack(col, alloc);
  }
}

Value RowObject(const TableRequest& request, const Value& object, Allocator& alloc) {
  switch (request.include_object) {
    case IncludeObject::kNone:
      return Value(rapidjson::kNullType);
    case IncludeObject::kObject:
      return Value(object, alloc);
    case IncludeObject::kMetadata:
      break;
  }
  // meta.AsPartialObjectMetadata keeps the whole ObjectMeta; the kind is set in the Table's
  // group version.
  Value partial(rapidjson::kObjectType);
  json::SetMember(partial, "kind", MakeString("PartialObjectMetadata", alloc), alloc);
  json::SetMember(partial, "apiVersion", MakeString(request.table_api_version, alloc),
                  alloc);
  const Value* metadata = json::Member(object, "metadata");
  partial.AddMember("metadata",
                    metadata != nullptr && metadata->IsObject() ? Value(*metadata, alloc)
                                                                : Value(rapidjson::kObjectType),
                    alloc);
  return partial;
}

}  // namespace

Result<IncludeObject> ParseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") return IncludeObject::kMetadata;
  if (value == "None") return IncludeObject::kNone;
  if (value == "Object") return IncludeObject::kObject;
  std::string quoted;
  for (char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return MakeError(ErrorCode::kBadRequest,
                   "Unable to convert to Table as requested: includeObject: Invalid value: \"" +
                       quoted + "\": must be 'Metadata', 'Object', 'None', or empty");
}

rapidjson::Document BuildTable(const TableRequest& request,
                               const std::vector<const rapidjson::Value*>& objects,
                               TimePoint now) {
  rapidjson::Document doc(rapidjson::kObjectType);
  Allocator& alloc = doc.GetAllocator();
  json::SetMember(doc, "kind", MakeString("Table", alloc), alloc);
  json::SetMember(doc, "apiVersion", MakeString(request.table_api_version, alloc), alloc);

  Value metadata(rapidjson::kObjectType);
  const ListMetadata& lm = request.list_metadata;
  if (!lm.resource_version.empty()) {
    json::SetMember(metadata, "resourceVersion", MakeString(lm.resource_version, alloc), alloc);
  }
  if (!lm.continue_token.empty()) {
    json::SetMember(metadata, "continue", MakeString(lm.continue_token, alloc), alloc);
  }
  if (lm.remaining_item_count) {
    metadata.AddMember("remainingItemCount", Value(*lm.remaining_item_count), alloc);
  }
  doc.AddMember("metadata", metadata, alloc);

  // Pick the convertor.
  std::optional<CrdColumns> compiled;
  const CrdColumns* crd = nullptr;
  const BuiltinPrinter* builtin = nullptr;
  if (request.custom_resource) {
    crd = request.crd_columns;
    if (crd == nullptr) {
      compiled = CrdColumns::FromPrinterColumns(request.printer_columns);
      crd = &*compiled;
    }
  } else {
    builtin = FindBuiltinPrinter(request.group, request.resource);
  }

  // TableOptions.noHeaders leaves columnDefinitions null; the field has no omitempty.
  Value columns(rapidjson::kNullType);
  if (request.include_column_definitions) {
    columns.SetArray();
    if (crd != nullptr) {
      crd->AppendColumnDefinitions(columns, alloc);
    } else {
      const std::span<const ColumnDefinition> defs =
          builtin != nullptr ? builtin->columns : std::span<const ColumnDefinition>(kDefaultColumns);
      AppendColumns(defs, columns, alloc);
    }
  }
  doc.AddMember("columnDefinitions", columns, alloc);

  Value rows(rapidjson::kArrayType);
  for (const Value* object : objects) {
    if (object == nullptr) continue;
    RowOutput out;
    if (crd != nullptr) {
      crd->PrintRow(*object, now, out, alloc);
    } else if (builtin != nullptr) {
      builtin->print(*object, now, out, alloc);
    } else {
      PrintDefaultRow(*object, now, out, alloc);
    }
    Value row(rapidjson::kObjectType);
    row.AddMember("cells", out.cells, alloc);
    if (!out.conditions.Empty()) row.AddMember("conditions", out.conditions, alloc);
    row.AddMember("object", RowObject(request, *object, alloc), alloc);
    rows.PushBack(row, alloc);
  }
  doc.AddMember("rows", rows, alloc);
  return doc;
}

}  // namespace berth::kubesim::table
