// e2e/kubesim/sim/workload_support.h
//
// Small facts shared by kubesim's workload controllers (ReplicaSet, Deployment): reading stored
// objects, pod activity and availability as kube-controller-manager judges them, and the
// controller ownerReference they write. Pure functions over JSON; no I/O.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <rapidjson/document.h>

#include "clientgo-shim/api/timestamp.h"
#include "e2e/kubesim/store/object_store.h"

namespace berth::kubesim::workload {

// ParseStored returns the stored object's JSON as a document (an empty object if unparsable).
rapidjson::Document ParseStored(const StoredObject& obj);

// ParsedCache: the parsed documents of stored objects, reused while an object's stored version is
// the same one (a StoredObject never changes; a write stores a new one). The sim thread's pod
// readers (a namespace's PDB status, a ReplicaSet's pods) read every pod on each pass: parsing
// 1,000 pods again each time made a pass tens of milliseconds, and pod readiness, deletions and
// every controller of the one sim thread waited behind it. Not thread-safe: one per reader.
class ParsedCache {
 public:
  // Get: the object's document (an empty object if unparsable), valid until the Sweep after the
  // next one.
  const rapidjson::Document& Get(const ObjectPtr& obj);
  // Sweep drops the entries not read since the last Sweep (deleted objects, replaced versions),
  // and everything when more than `max_kept` were read: a pass over more pods than that (a
  // 150,000-pod scale seed) parses them each time, as before, instead of keeping them all parsed.
  void Sweep();
  size_t size() const { return entries_.size(); }
  size_t max_kept = 20000;

 private:
  struct Entry {
    ObjectPtr object;  // held, so its address is not reused while cached
    std::unique_ptr<rapidjson::Document> doc;
    bool used = true;
  };
  std::unordered_map<const StoredObject*, Entry> entries_;
};

// IntAt returns the integer at `path`, or `fallback` when absent or not an integer.
int64_t IntAt(const rapidjson::Value& root, std::initializer_list<std::string_view> path, int64_t fallback);

// IsActivePod: controller.FilterActivePods' rule — not Succeeded, not Failed, not being deleted.
bool IsActivePod(const rapidjson::Value& pod);

// ReadySince returns the Ready condition's lastTransitionTime when the pod is Ready.
std::optional<shim::TimePoint> ReadySince(const rapidjson::Value& pod);

// IsPodAvailable: podutil.IsPodAvailable — Ready, and Ready for longer than min_ready_seconds
// (always when it is 0). When Ready but not yet available, *available_at gets the instant it
// becomes available.
bool IsPodAvailable(const rapidjson::Value& pod, int64_t min_ready_seconds, shim::TimePoint now,
                    std::optional<shim::TimePoint>* available_at = nullptr);

// ControllerUid returns the uid of the ownerReference with controller: true ("" if none).
std::string_view ControllerUid(const rapidjson::Value& obj);

// MakeControllerRef builds {apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true}.
rapidjson::Value MakeControllerRef(std::string_view api_version, std::string_view kind, std::string_view name,
                                   std::string_view uid, rapidjson::Document::AllocatorType& alloc);

// LabelsContain: every label of `want` (an object of strings, may be null) is in `have` with the
// same value.
bool LabelsContain(const rapidjson::Value* have, const rapidjson::Value* want);

}  // namespace berth::kubesim::workload
