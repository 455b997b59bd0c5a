// controllers/scheduler/scheduler_support.h
//
// Internal helpers shared by the two halves of SchedulerController: scheduler_controller.cc
// (setup, informer handlers, pod scheduling) and reservation_placer.cc (placing Reservations and
// promoting Waiting ones). Not part of the folder's public API.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/cached_object.h"
#include "rapidjson/document.h"
#include "reconcile/placement/types.h"

namespace berth::controllers::scheduler_support {

inline constexpr char kLogger[] = "scheduler";
inline constexpr char kGroup[] = "scheduling.koordinator.sh";
inline constexpr char kVersion[] = "v1alpha1";
inline constexpr std::string_view kReasonUnschedulable = "Unschedulable";
// kube-scheduler truncates event notes; the API limit is 1 KiB.
inline constexpr size_t kMaxEventMessage = 1024;

// ToJson converts a cached object. Returns nullopt for a null pointer or a failed conversion.
inline std::optional<rapidjson::Document> ToJson(const shim::ObjectPtr& obj) {
  if (!obj) return std::nullopt;
  auto doc = obj->ToJson();
  if (!doc) return std::nullopt;
  return std::move(*doc);
}

// PodViewFilter: what ReadPodView, PodIsTerminal and the pod handler read of a cached pod —
// metadata, spec and of the status phase, startTime and nominatedNodeName — less what none of
// them reads and a real pod has plenty of: volumes, and of each container all but its name,
// image, ports, resources and restartPolicy (env, probes, mounts, commands). The conditions are
// read only for a pod being deleted (FillPodViewJson adds them), the container statuses never.
inline const shim::PackedFilter& PodViewFilter() {
  static const shim::PackedFilter container{.keep = {"name", "image", "ports", "resources", "restartPolicy"}};
  static const shim::PackedFilter annotations{.drop = {"kubectl.kubernetes.io/last-applied-configuration"}};
  static const shim::PackedFilter metadata{.drop = {"managedFields"}, .nested = {{"annotations", &annotations}}};
  static const shim::PackedFilter spec{.drop = {"volumes", "ephemeralContainers"},
                                       .nested = {{"containers", &container}, {"initContainers", &container}}};
  static const shim::PackedFilter status{.keep = {"phase", "startTime", "nominatedNodeName"}};
  static const shim::PackedFilter pod{.keep = {"metadata", "spec", "status"},
                                      .nested = {{"metadata", &metadata}, {"spec", &spec}, {"status", &status}}};
  return pod;
}

// FillPodViewJson decodes a cached pod through PodViewFilter into `doc`, with metadata.name,
// namespace and uid. The caller may give `doc` an allocator over a reused buffer. With
// `reference_strings` the strings point into `pod` (FindFilteredView): `doc` is then valid only
// while the caller holds `pod`.
inline void FillPodViewJson(const shim::CachedObject& pod, rapidjson::Document& doc, bool reference_strings = false) {
  auto& a = doc.GetAllocator();
  const auto filled = reference_strings ? pod.FindFilteredView(PodViewFilter(), doc, a)
                                        : pod.FindFiltered(PodViewFilter(), doc, a);
  if (!filled || !doc.IsObject()) doc.SetObject();
  rapidjson::Value* metadata = json::FindMutable(doc, {"metadata"});
  if (metadata == nullptr || !metadata->IsObject()) {
    json::SetMember(doc, "metadata", rapidjson::Value(rapidjson::kObjectType), a);
    metadata = json::FindMutable(doc, {"metadata"});
  }
  json::SetString(*metadata, "name", pod.Name(), a);
  if (!pod.Namespace().empty()) json::SetString(*metadata, "namespace", pod.Namespace(), a);
  if (!pod.Uid().empty()) json::SetString(*metadata, "uid", pod.Uid(), a);
  rapidjson::Value* status = json::FindMutable(doc, {"status"});
  if (status == nullptr || !status->IsObject()) {
    json::SetMember(doc, "status", rapidjson::Value(rapidjson::kObjectType), a);
    status = json::FindMutable(doc, {"status"});
  }
  // A pod being deleted may be a preemption's victim (ReadPodPriority's DisruptionTarget check).
  if (json::Find(*metadata, {"deletionTimestamp"}) != nullptr) {
    rapidjson::Value conditions;
    if (pod.FindValue({"status", "conditions"}, conditions, a)) json::SetMember(*status, "conditions", std::move(conditions), a);
  }
}

// WithPodViewJson returns fn(doc) for the pod's view DOM built in a per-thread buffer: a cold
// start reads 150,000 pods, and each DOM would otherwise allocate (and free) rapidjson's 64 KB
// first chunk. Its strings point into `pod` (no copies; `pod` outlives the call), so `fn` must
// copy what it keeps. `fn` must not call WithPodViewJson again (the buffer is the thread's one).
template <typename Fn>
auto WithPodViewJson(const shim::CachedObject& pod, Fn&& fn) {
  // rapidjson puts its chunk header at the buffer's start: it must be aligned like one.
  alignas(std::max_align_t) thread_local std::array<char, 16384> buffer;
  rapidjson::MemoryPoolAllocator<> allocator(buffer.data(), buffer.size());
  rapidjson::Document doc(&allocator);
  FillPodViewJson(pod, doc, /*reference_strings=*/true);
  return fn(static_cast<const rapidjson::Document&>(doc));
}

inline rapidjson::Document PodViewJson(const shim::CachedObject& pod) {
  rapidjson::Document doc;
  FillPodViewJson(pod, doc);
  return doc;
}

// ReservationAllocatedValue: the scheduling.koordinator.sh/reservation-allocated annotation's
// value, {"name":…,"uid":…}.
std::string ReservationAllocatedValue(const reconcile::placement::ReservationRef& ref);

// Truncate cuts an Event message to the API's limit.
inline std::string Truncate(std::string text) {
  if (text.size() > kMaxEventMessage) text.resize(kMaxEventMessage);
  return text;
}

}  // namespace berth::controllers::scheduler_support
