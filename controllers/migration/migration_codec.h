// controllers/migration/migration_codec.h
//
// JSON ↔ the migration snapshot: PodMigrationJob spec/status, the facts read of pods,
// Reservations and PodDisruptionBudgets, and the status write body. A value berth cannot read is
// a spec error (the job fails InvalidSpec with the field named), never a default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/cache/cached_object.h"
#include "reconcile/migration/types.h"

namespace berth::controllers {

inline constexpr char kReservationOrderLabel[] = "scheduling.koordinator.sh/reservation-order";
inline constexpr char kPodMigrationJobsPath[] = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs";

// ReadJob fills the job's own fields (spec, status); the world (pod, reservation, PDBs) is the
// controller's to add.
reconcile::migration::JobSnapshot ReadJob(const rapidjson::Value& job);

reconcile::migration::PodFacts ReadPodFacts(const rapidjson::Value& pod);

// PodPriorityValue: a pod's spec.priority from that value (`priority`, nullptr when absent);
// nullopt when absent or not an integer. The one reading of it for the job's facts and the
// held-job order.
std::optional<int64_t> PodPriorityValue(const rapidjson::Value* priority);

// ReadReservationFacts: `job_uid` decides created_by_job (its controller ownerReference).
reconcile::migration::ReservationFacts ReadReservationFacts(const rapidjson::Value& reservation,
                                                            const std::string& job_uid);

reconcile::migration::PdbFacts ReadPdbFacts(const rapidjson::Value& pdb);

// PdbSelects: whether a policy/v1 PDB selects a pod with these labels (an empty selector selects
// every pod of the namespace; a selector that does not parse selects none, as in the apiserver).
bool PdbSelects(const rapidjson::Value& pdb, const rapidjson::Value& pod);

// BudgetUpdateMayUnblock: whether a PDB update may let a job whose eviction its budget held go
// now: false only when the new status allows no disruption and the spec (selector, limits) is
// unchanged. An absent or unreadable disruptionsAllowed may unblock (the API server decides).
bool BudgetUpdateMayUnblock(const shim::CachedObject& old_pdb, const shim::CachedObject& new_pdb);

// JobStatusBody: the object to PUT to podmigrationjobs/status with the cached resourceVersion.
// PhaseOf: a job's status.phase, "Pending" when absent or empty (null object: "Pending").
std::string PhaseOf(const shim::ObjectPtr& obj);

rapidjson::Document JobStatusBody(const shim::CachedObject& cached, const reconcile::migration::JobStatus& status);

}  // namespace berth::controllers
