#include "e2e/kubesim/table/printer_support.h"

#include <algorithm>
#include <map>
#include <vector>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::table {

const BuiltinPrinter* FindBuiltinPrinter(std::string_view group, std::string_view resource) {
  for (auto table : {CorePrinters(), ServicePrinters(), WorkloadPrinters(), RbacPrinters()}) {
    for (const BuiltinPrinter& p : table) {
      if (p.group == group && p.resource == resource) return &p;
    }
  }
  return nullptr;
}

rapidjson::Value MakeString(std::string_view text, Allocator& alloc) {
  // A default-constructed string_view has a null data(), which RapidJSON rejects.
  if (text.empty()) return rapidjson::Value("", 0, alloc);
  return rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

void AddCell(RowOutput& row, std::string_view text, Allocator& alloc) {
  row.cells.PushBack(MakeString(text, alloc), alloc);
}

void AddCell(RowOutput& row, int64_t number, Allocator& alloc) {
  row.cells.PushBack(rapidjson::Value(number), alloc);
}

void AddNullCell(RowOutput& row, Allocator& alloc) {
  row.cells.PushBack(rapidjson::Value(rapidjson::kNullType), alloc);
}

std::string_view Str(const rapidjson::Value& root, std::initializer_list<std::string_view> path) {
  return json::GetString(root, path);
}

int64_t Int(const rapidjson::Value& root, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = json::Find(root, path);
  if (v == nullptr || !v->IsNumber()) return 0;
  if (v->IsInt64()) return v->GetInt64();
  return static_cast<int64_t>(v->GetDouble());
}

bool Bool(const rapidjson::Value& root, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = json::Find(root, path);
  return v != nullptr && v->IsBool() && v->GetBool();
}

const rapidjson::Value* Arr(const rapidjson::Value& root,
                            std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = json::Find(root, path);
  return v != nullptr && v->IsArray() ? v : nullptr;
}

bool Has(const rapidjson::Value& root, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = json::Find(root, path);
  return v != nullptr && !v->IsNull();
}

std::string Age(const rapidjson::Value& object, TimePoint now) {
  return TimestampSince(json::Find(object, {"metadata", "creationTimestamp"}), now);
}

std::string FormatLabels(const rapidjson::Value* labels) {
  std::map<std::string_view, std::string_view> sorted;
  if (labels != nullptr && labels->IsObject()) {
    for (const auto& m : labels->GetObject()) {
      sorted[std::string_view(m.name.GetString(), m.name.GetStringLength())] =
          m.value.IsString() ? std::string_view(m.value.GetString(), m.value.GetStringLength())
                             : std::string_view();
    }
  }
  std::string out;
  for (const auto& [k, v] : sorted) {
    if (!out.empty()) out += ',';
    out.append(k).append("=").append(v);
  }
  return out.empty() ? "<none>" : out;
}

std::string SelectorString(const rapidjson::Value* selector) {
  if (selector == nullptr || !selector->IsObject()) return "";
  // (key, rendered requirement); a stable sort by key keeps matchLabels before expressions on
  // equal keys, as labels.Selector.Add does.
  std::vector<std::pair<std::string, std::string>> reqs;
  if (const rapidjson::Value* ml = json::Member(*selector, "matchLabels"); ml && ml->IsObject()) {
    for (const auto& m : ml->GetObject()) {
      std::string key(m.name.GetString(), m.name.GetStringLength());
      std::string value = m.value.IsString() ? m.value.GetString() : "";
      reqs.emplace_back(key, key + "=" + value);
    }
  }
  if (const rapidjson::Value* me = json::Member(*selector, "matchExpressions"); me && me->IsArray()) {
    for (const auto& expr : me->GetArray()) {
      const std::string key(Str(expr, {"key"}));
      const std::string_view op = Str(expr, {"operator"});
      std::vector<std::string> values;
      if (const rapidjson::Value* vs = Arr(expr, {"values"})) {
        for (const auto& v : vs->GetArray()) {
          if (v.IsString()) values.emplace_back(v.GetString(), v.GetStringLength());
        }
      }
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      std::string joined;
      for (const auto& v : values) joined += (joined.empty() ? "" : ",") + v;
      if (op == "In" || op == "NotIn") {
        if (values.empty()) return "<error>";
        reqs.emplace_back(key, key + (op == "In" ? " in (" : " notin (") + joined + ")");
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (!values.empty()) return "<error>";
        reqs.emplace_back(key, (op == "Exists" ? "" : "!") + key);
      } else {
        return "<error>";
      }
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& r : reqs) out += (out.empty() ? "" : ",") + r.second;
  return out;
}

std::string FormatLabelSelector(const rapidjson::Value* selector) {
  std::string s = SelectorString(selector);
  return s.empty() ? "<none>" : s;
}

std::pair<std::string, std::string> LayoutContainerCells(const rapidjson::Value* containers) {
  std::string names, images;
  if (containers != nullptr && containers->IsArray()) {
    bool first = true;
    for (const auto& c : containers->GetArray()) {
      if (!first) {
        names += ',';
        images += ',';
      }
      first = false;
      names += Str(c, {"name"});
      images += Str(c, {"image"});
    }
  }
  return {names, images};
}

std::string IntOrStringText(const rapidjson::Value& value) {
  if (value.IsString()) return std::string(value.GetString(), value.GetStringLength());
  if (value.IsInt64()) return std::to_string(value.GetInt64());
  if (value.IsNumber()) return std::to_string(static_cast<int64_t>(value.GetDouble()));
  return "";
}

}  // namespace berth::kubesim::table
