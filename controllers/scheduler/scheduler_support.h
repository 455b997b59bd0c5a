// controllers/scheduler/scheduler_support.h
//
// Internal helpers shared by the two halves of SchedulerController: scheduler_controller.cc
// (setup, informer handlers, pod scheduling) and reservation_placer.cc (placing Reservations and
// promoting Waiting ones). Not part of the folder's public API.
#pragma once

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

// PodViewJson converts what ReadPodView, PodIsTerminal and the pod handler read of a cached pod
// (metadata, spec, status.phase and status.startTime) and leaves the rest of its status (conditions,
// container statuses) packed: a Running pod's status is a large part of it.
inline rapidjson::Document PodViewJson(const shim::CachedObject& pod) {
  const shim::CachedObject* obj = &pod;
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  rapidjson::Value metadata;
  if (!obj->FindValue({"metadata"}, metadata, a) || !metadata.IsObject()) metadata.SetObject();
  json::SetString(metadata, "name", obj->Name(), a);
  if (!obj->Namespace().empty()) json::SetString(metadata, "namespace", obj->Namespace(), a);
  if (!obj->Uid().empty()) json::SetString(metadata, "uid", obj->Uid(), a);
  doc.AddMember("metadata", metadata, a);
  rapidjson::Value spec;
  if (obj->FindValue({"spec"}, spec, a)) doc.AddMember("spec", spec, a);
  rapidjson::Value status(rapidjson::kObjectType);
  for (const char* field : {"phase", "startTime"}) {
    rapidjson::Value value;
    if (obj->FindValue({"status", field}, value, a)) status.AddMember(rapidjson::StringRef(field), value, a);
  }
  doc.AddMember("status", status, a);
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
