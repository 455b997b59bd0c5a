// e2e/kubesim/table/printer_support.h
//
// Vocabulary shared by the built-in printers and the CRD convertor: a column definition, the row
// a printer fills, the registry lookup, and the small formatters the kube-apiserver printers use
// (labels.FormatLabels, metav1.FormatLabelSelector, layoutContainerCells, IntOrString.String).
// Printers read objects as JSON and never fail: a missing field prints as upstream prints the
// zero value.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <rapidjson/document.h>

#include "e2e/kubesim/table/time_format.h"

namespace berth::kubesim::table {

using Allocator = rapidjson::Document::AllocatorType;

// ColumnDefinition is metav1.TableColumnDefinition. Priority 0 columns show in `kubectl get`;
// priority > 0 only with `-o wide`.
struct ColumnDefinition {
  std::string_view name;
  std::string_view type;  // "string", "integer", "number", "boolean", "date"
  std::string_view format;
  std::string_view description;
  int64_t priority = 0;
};

// ObjectMeta swagger descriptions, which the apiserver puts on Name and Age columns.
inline constexpr std::string_view kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
inline constexpr std::string_view kCreationTimestampDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";

// RowOutput is what a printer produces for one object.
struct RowOutput {
  rapidjson::Value cells{rapidjson::kArrayType};
  rapidjson::Value conditions{rapidjson::kArrayType};  // metav1.TableRowCondition; omitted if empty
};

// RowPrinter fills row.cells (one cell per column, in column order) for one object.
using RowPrinter = void (*)(const rapidjson::Value& object, TimePoint now, RowOutput& row,
                            Allocator& alloc);

// BuiltinPrinter is one kube-apiserver printer: the columns of a resource and its row function.
struct BuiltinPrinter {
  std::string_view group;     // "" for the core group
  std::string_view resource;  // plural, e.g. "pods"
  std::span<const ColumnDefinition> columns;
  RowPrinter print = nullptr;
};

// FindBuiltinPrinter returns the printer for group/resource, or nullptr when the apiserver would
// use its default convertor (Name, Created At).
const BuiltinPrinter* FindBuiltinPrinter(std::string_view group, std::string_view resource);

// Per-file printer tables, joined by FindBuiltinPrinter.
std::span<const BuiltinPrinter> CorePrinters();
std::span<const BuiltinPrinter> ServicePrinters();
std::span<const BuiltinPrinter> WorkloadPrinters();
std::span<const BuiltinPrinter> RbacPrinters();

// --- cell helpers -----------------------------------------------------------------------------

// MakeString copies text into a JSON string (safe for a null, empty string_view).
rapidjson::Value MakeString(std::string_view text, Allocator& alloc);

void AddCell(RowOutput& row, std::string_view text, Allocator& alloc);
void AddCell(RowOutput& row, int64_t number, Allocator& alloc);
void AddNullCell(RowOutput& row, Allocator& alloc);

// --- field access (missing or mistyped fields read as Go zero values) -------------------------

std::string_view Str(const rapidjson::Value& root, std::initializer_list<std::string_view> path);
int64_t Int(const rapidjson::Value& root, std::initializer_list<std::string_view> path);
bool Bool(const rapidjson::Value& root, std::initializer_list<std::string_view> path);
// Arr returns the array at path, or nullptr.
const rapidjson::Value* Arr(const rapidjson::Value& root, std::initializer_list<std::string_view> path);
// Has reports whether path exists and is not null.
bool Has(const rapidjson::Value& root, std::initializer_list<std::string_view> path);

// --- formatters ---------------------------------------------------------------------------------

// Age is translateTimestampSince(metadata.creationTimestamp).
std::string Age(const rapidjson::Value& object, TimePoint now);

// FormatLabels is labels.FormatLabels: "k=v,k2=v2" sorted by key, "<none>" when empty.
std::string FormatLabels(const rapidjson::Value* labels);

// SelectorString is LabelSelectorAsSelector(sel).String(): requirements sorted by key, "" for a
// nil or empty selector. Returns "<error>" for a malformed selector (FormatLabelSelector's text).
std::string SelectorString(const rapidjson::Value* selector);

// FormatLabelSelector is metav1.FormatLabelSelector: SelectorString, "<none>" when empty.
std::string FormatLabelSelector(const rapidjson::Value* selector);

// LayoutContainerCells joins container names and images with "," (layoutContainerCells).
std::pair<std::string, std::string> LayoutContainerCells(const rapidjson::Value* containers);

// IntOrStringText prints an IntOrString field (2 → "2", "50%" → "50%").
std::string IntOrStringText(const rapidjson::Value& value);

}  // namespace berth::kubesim::table
