#include "e2e/kubesim/table/crd_columns.h"

#include <cmath>
#include <limits>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/table/go_format.h"

namespace berth::kubesim::table {
namespace {

constexpr std::string_view kSupportedTypes[] = {"boolean", "date", "integer", "number", "string"};
constexpr std::string_view kSupportedFormats[] = {"byte",  "date",  "date-time", "double",
                                                  "float", "int32", "int64",     "password"};

// GoQuote renders a string as Go's %q does for printable ASCII and UTF-8 text.
std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

template <size_t N>
bool Contains(const std::string_view (&set)[N], std::string_view v) {
  for (std::string_view s : set) {
    if (s == v) return true;
  }
  return false;
}

template <size_t N>
std::string QuotedList(const std::string_view (&set)[N]) {
  std::string out;
  for (std::string_view s : set) out += (out.empty() ? "" : ", ") + GoQuote(s);
  return out;
}

void AppendColumn(rapidjson::Value& out, std::string_view name, std::string_view type,
                  std::string_view format, std::string_view description, int64_t priority,
                  Allocator& alloc) {
  rapidjson::Value col(rapidjson::kObjectType);
  json::SetMember(col, "name", MakeString(name, alloc), alloc);
  json::SetMember(col, "type", MakeString(type, alloc), alloc);
  json::SetMember(col, "format", MakeString(format, alloc), alloc);
  json::SetMember(col, "description", MakeString(description, alloc), alloc);
  col.AddMember("priority", rapidjson::Value(priority), alloc);
  out.PushBack(col, alloc);
}

}  // namespace

CrdColumns CrdColumns::FromPrinterColumns(const rapidjson::Value* printer_columns) {
  CrdColumns result;
  const bool declared = printer_columns != nullptr && printer_columns->IsArray() &&
                        !printer_columns->Empty();
  if (!declared) {
    // serveDefaultColumnsIfEmpty: a CRD without columns still shows AGE.
    CustomColumn age{"Age", "date", "", std::string(kCreationTimestampDescription), 0,
                     ".metadata.creationTimestamp", std::nullopt};
    age.path = *JsonPath::Parse(age.json_path);
    result.columns_.push_back(std::move(age));
    return result;
  }
  for (const auto& entry : printer_columns->GetArray()) {
    if (!entry.IsObject()) continue;
    CustomColumn col;
    col.name = Str(entry, {"name"});
    col.type = Str(entry, {"type"});
    col.format = Str(entry, {"format"});
    col.json_path = Str(entry, {"jsonPath"});
    col.priority = Int(entry, {"priority"});
    const std::string_view description = Str(entry, {"description"});
    col.description = description.empty()
                          ? "Custom resource definition column (in JSONPath format): " + col.json_path
                          : std::string(description);
    if (auto parsed = JsonPath::Parse(col.json_path)) col.path = std::move(*parsed);
    result.columns_.push_back(std::move(col));
  }
  return result;
}

void CrdColumns::AppendColumnDefinitions(rapidjson::Value& out, Allocator& alloc) const {
  AppendColumn(out, "Name", "string", "name", kNameDescription, 0, alloc);
  for (const CustomColumn& c : columns_) {
    AppendColumn(out, c.name, c.type, c.format, c.description, c.priority, alloc);
  }
}

rapidjson::Value CellForColumn(const CustomColumn& column, const rapidjson::Value* found,
                               TimePoint now, Allocator& alloc) {
  using rapidjson::Value;
  auto text = [&](std::string_view s) { return MakeString(s, alloc); };
  if (found == nullptr) return Value(rapidjson::kNullType);
  if (column.type == "string") {
    // PrintResults of a nil interface prints text/template's "<no value>".
    if (found->IsNull()) return text("<no value>");
    return text(GoPrintValue(*found));
  }
  if (found->IsNull()) return Value(rapidjson::kNullType);
  if (column.type == "integer" && found->IsNumber()) {
    if (found->IsInt64()) return Value(found->GetInt64());
    const double d = found->GetDouble();
    if (!std::isfinite(d) || d >= 9.3e18 || d <= -9.3e18) return Value(std::numeric_limits<int64_t>::min());
    return Value(static_cast<int64_t>(d));  // Go's int64(float64) truncates
  }
  if (column.type == "number" && found->IsNumber()) return Value(found->GetDouble());
  if (column.type == "boolean" && found->IsBool()) return Value(found->GetBool());
  if (column.type == "date" && found->IsString()) {
    const std::string_view s(found->GetString(), found->GetStringLength());
    if (s.empty() || s == "null") return text("<unknown>");  // metav1.Time query-parameter rules
    auto t = ParseRfc3339(s);
    if (!t) return text("<invalid>");
    if (t->IsZero()) return text("<unknown>");
    return text(HumanDuration(NanosBetween(*t, Timestamp::FromTimePoint(now))));
  }
  return Value(rapidjson::kNullType);
}

void CrdColumns::PrintRow(const rapidjson::Value& object, TimePoint now, RowOutput& row,
                          Allocator& alloc) const {
  AddCell(row, Str(object, {"metadata", "name"}), alloc);
  for (const CustomColumn& c : columns_) {
    const rapidjson::Value* first = nullptr;
    if (c.path) {
      // Only the first result is shown, as upstream assumes simple paths; errors give null.
      if (auto found = c.path->Find(object); found && !found->empty()) first = found->front();
    }
    row.cells.PushBack(CellForColumn(c, first, now, alloc), alloc);
  }
}

std::vector<std::string> ValidatePrinterColumns(const rapidjson::Value& printer_columns,
                                                std::string_view field_path) {
  std::vector<std::string> errors;
  if (printer_columns.IsNull()) return errors;
  if (!printer_columns.IsArray()) {
    errors.push_back(std::string(field_path) + ": Invalid value: " +
                     GoJsonMarshal(printer_columns) + ": must be a list of column definitions");
    return errors;
  }
  for (rapidjson::SizeType i = 0; i < printer_columns.Size(); ++i) {
    const std::string p = std::string(field_path) + "[" + std::to_string(i) + "]";
    const rapidjson::Value& col = printer_columns[i];
    if (!col.IsObject()) {
      errors.push_back(p + ": Invalid value: " + GoJsonMarshal(col) + ": must be an object");
      continue;
    }
    if (Str(col, {"name"}).empty()) errors.push_back(p + ".name: Required value");
    const std::string_view type = Str(col, {"type"});
    if (type.empty()) {
      errors.push_back(p + ".type: Required value: must be one of boolean,date,integer,number,string");
    } else if (!Contains(kSupportedTypes, type)) {
      errors.push_back(p + ".type: Unsupported value: " + GoQuote(type) +
                       ": supported values: " + QuotedList(kSupportedTypes));
    }
    const std::string_view format = Str(col, {"format"});
    if (!format.empty() && !Contains(kSupportedFormats, format)) {
      errors.push_back(p + ".format: Unsupported value: " + GoQuote(format) +
                       ": supported values: " + QuotedList(kSupportedFormats));
    }
    const std::string_view path = Str(col, {"jsonPath"});
    if (path.empty()) {
      errors.push_back(p + ".jsonPath: Required value");
    } else if (path.front() != '.') {
      errors.push_back(p + ".jsonPath: Invalid value: " + GoQuote(path) +
                       ": must be a simple json path starting with .");
    } else if (auto parsed = ParseJsonPath(path); !parsed) {
      errors.push_back(p + ".jsonPath: Invalid value: " + GoQuote(path) + ": " +
                       parsed.error().message);
    }
  }
  return errors;
}

}  // namespace berth::kubesim::table
