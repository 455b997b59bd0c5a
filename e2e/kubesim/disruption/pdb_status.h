// e2e/kubesim/disruption/pdb_status.h
//
// The disruption controller's status maths for one policy/v1 PodDisruptionBudget: which pods it
// selects, how many are expected and healthy, how many disruptions are allowed, which
// disruptedPods entries survive, and the DisruptionAllowed condition. Pure: the caller supplies
// the pods, a controller-scale lookup and the clock, and writes the returned status itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/disruption/pod_facts.h"
#include "e2e/kubesim/disruption/time_format.h"

namespace berth::kubesim::disruption {

// kDeletionTimeout: how long an eviction-approved pod may stay undeleted before the controller
// stops counting it as disrupted (upstream DeletionTimeout).
inline constexpr std::chrono::minutes kDeletionTimeout{2};

// ControllerScale is the resolved top controller of a pod (e.g. the Deployment owning its
// ReplicaSet): its uid, used to count each controller once, and its spec.replicas.
struct ControllerScale {
  std::string uid;
  int32_t replicas = 0;
};

// ScaleLookup resolves a pod's controllerRef in namespace `ns`; nullopt means "no such
// controller" (the sync then fails with "found no controllers for pod ...").
using ScaleLookup =
    std::function<std::optional<ControllerScale>(std::string_view ns, const OwnerRef& controller_ref)>;

// EventNote is an event the controller would record; the caller turns it into an Event object.
struct EventNote {
  std::string type;         // "Normal" or "Warning"
  std::string reason;       // e.g. "NoPods", "UnmanagedPods", "NotDeleted"
  std::string message;
  std::string object_kind;  // "PodDisruptionBudget" or "Pod"
  std::string object_name;  // in the PDB's namespace
};

// PdbStatusResult is the new policy/v1 PodDisruptionBudgetStatus plus side effects.
struct PdbStatusResult {
  rapidjson::Document status;           // complete status object, in upstream field order
  std::vector<EventNote> events;
  std::optional<TimePoint> recheck_at;  // earliest disruptedPods expiry still pending
  bool changed = false;                 // status differs from the PDB's current status
  bool sync_failed = false;             // failSafe path (DisruptionAllowed False/SyncFailed)
};

// ComputePdbStatus recomputes the status of `pdb` from the pods of its namespace.
// On a sync error (invalid selector, unknown controller, bad minAvailable/maxUnavailable) it
// returns the previous status with disruptionsAllowed = 0 and condition False/SyncFailed carrying
// the error text, as the controller's failSafe does. Never throws; malformed fields read as absent.
PdbStatusResult ComputePdbStatus(const rapidjson::Value& pdb,
                                 const std::vector<const rapidjson::Value*>& pods_in_namespace,
                                 const ScaleLookup& scale, TimePoint now);

}  // namespace berth::kubesim::disruption
