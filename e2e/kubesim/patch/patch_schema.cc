// e2e/kubesim/patch/patch_schema.cc
#include "e2e/kubesim/patch/patch_schema.h"

namespace berth::kubesim::patch {

TablePatchSchema::TablePatchSchema(
    std::initializer_list<std::pair<std::string_view, ListStrategy>> entries) {
  for (const auto& [path, strategy] : entries) Set(path, strategy);
}

void TablePatchSchema::Set(std::string_view dotted_path, ListStrategy strategy) {
  lists_[std::string(dotted_path)] = std::move(strategy);
}

ListStrategy TablePatchSchema::ForList(const std::vector<std::string>& path) const {
  std::string dotted;
  for (const std::string& part : path) {
    if (!dotted.empty()) dotted.push_back('.');
    dotted += part;
  }
  auto it = lists_.find(dotted);
  return it == lists_.end() ? ListStrategy::Replace() : it->second;
}

const PatchSchema& AtomicPatchSchema() {
  static const TablePatchSchema* const kSchema = new TablePatchSchema();
  return *kSchema;
}

}  // namespace berth::kubesim::patch
