// e2e/kubesim/disruption/pod_facts.h
//
// The few facts about a pod (JSON as stored) that PDB maths and eviction need: name, phase,
// readiness, whether it is terminating, and its controller owner reference.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace berth::kubesim::disruption {

// OwnerRef is a metav1.OwnerReference with controller=true.
struct OwnerRef {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
};

// PodName returns metadata.name ("" when absent).
std::string_view PodName(const rapidjson::Value& pod);

// PodPhase returns status.phase ("" when absent).
std::string_view PodPhase(const rapidjson::Value& pod);

// IsPodReady: a status.conditions entry {type: Ready, status: "True"} exists.
bool IsPodReady(const rapidjson::Value& pod);

// IsPodDeleting: metadata.deletionTimestamp is set (any non-null value).
bool IsPodDeleting(const rapidjson::Value& pod);

// ControllerOf returns the ownerReferences entry with controller: true, if any.
std::optional<OwnerRef> ControllerOf(const rapidjson::Value& pod);

}  // namespace berth::kubesim::disruption
