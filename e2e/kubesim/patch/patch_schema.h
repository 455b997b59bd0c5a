// e2e/kubesim/patch/patch_schema.h
//
// What strategic merge patch needs to know about a kind: for each list field, whether it is
// replaced as a whole (atomic, the default) or merged element by element, and on which key.
// This stands in for the Go struct tags `patchStrategy` / `patchMergeKey` that kube-apiserver
// reads by reflection. Maps always merge recursively.
//
// Paths are the field names from the object root; list elements add no component, so the
// container ports of a Deployment are at {"spec", "template", "spec", "containers", "ports"}.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace berth::kubesim::patch {

// ListStrategy: how strategic merge patch combines a list field with the patch's list.
struct ListStrategy {
  enum class Kind {
    kReplace,  // atomic: the patch's list replaces the stored one (no patchStrategy tag)
    kMerge,    // patchStrategy:"merge"
  };
  Kind kind = Kind::kReplace;
  // patchMergeKey: the member that identifies an element of a list of objects. Empty for lists
  // of scalars, which merge as an ordered set union.
  std::string merge_key;
  // patchStrategy also lists "retainKeys". Informational: a `$retainKeys` directive in a patch is
  // honoured wherever it appears, as upstream does.
  bool retain_keys = false;

  static ListStrategy Replace() { return {}; }
  static ListStrategy Merge(std::string key, bool retain_keys = false) {
    return {Kind::kMerge, std::move(key), retain_keys};
  }
  bool IsMerge() const { return kind == Kind::kMerge; }
};

// PatchSchema answers ForList for one kind.
class PatchSchema {
 public:
  virtual ~PatchSchema() = default;
  // ForList returns the strategy of the list at `path`; kReplace for any path it does not know.
  virtual ListStrategy ForList(const std::vector<std::string>& path) const = 0;
};

// TablePatchSchema is a PatchSchema backed by a table keyed by dotted paths
// ("spec.containers.ports"); every other list is atomic.
class TablePatchSchema : public PatchSchema {
 public:
  TablePatchSchema() = default;
  TablePatchSchema(std::initializer_list<std::pair<std::string_view, ListStrategy>> entries);

  // Set records (or overwrites) the strategy at a dotted path.
  void Set(std::string_view dotted_path, ListStrategy strategy);

  ListStrategy ForList(const std::vector<std::string>& path) const override;

 private:
  std::unordered_map<std::string, ListStrategy> lists_;
};

// AtomicPatchSchema returns a schema that knows no list: every list is replaced, maps merge.
// Unknown kinds (and custom resources, were anyone to send them a strategic patch) use it.
const PatchSchema& AtomicPatchSchema();

}  // namespace berth::kubesim::patch
