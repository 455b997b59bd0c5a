// controllers/scheduler/reservation_change.cc — see reservation_change.h.
#include "controllers/scheduler/reservation_change.h"

#include "clientgo-shim/base/json.h"
#include "controllers/reservation/reservation_codec.h"
#include "controllers/scheduler/pre_allocation_codec.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "reconcile/common/resources.h"

namespace berth::controllers {
namespace {

// A missing or non-string field reads as "" (json::GetString's rule, which the scheduler uses).
std::string StringOf(const shim::CachedObject& o, std::initializer_list<std::string_view> path) {
  return o.FindString(path).value_or("");
}

int64_t GenerationOf(const shim::CachedObject& o) {
  auto v = o.FindJson({"metadata", "generation"});
  return v && v->IsInt64() ? v->GetInt64() : int64_t{-1};
}

bool HasOwners(const shim::CachedObject& o) {
  auto v = o.FindJson({"status", "currentOwners"});
  return v && v->IsArray() && !v->Empty();
}

std::string LabelsOf(const shim::CachedObject& o) {
  auto v = o.FindJson({"metadata", "labels"});
  return v ? json::Serialize(*v) : std::string();
}

reconcile::ResourceAmounts AllocatableOf(const shim::CachedObject& o) {
  auto v = o.FindJson({"status", "allocatable"});
  return ReadAmounts(v ? &*v : nullptr);
}

}  // namespace

ReservationChange DiffReservation(const shim::CachedObject* before, const shim::CachedObject& after) {
  ReservationChange change;
  if (!before) {
    change.capacity = true;
    return change;
  }
  change.capacity = StringOf(*before, {"status", "phase"}) != StringOf(after, {"status", "phase"}) ||
                    StringOf(*before, {"status", "nodeName"}) != StringOf(after, {"status", "nodeName"}) ||
                    GenerationOf(*before) != GenerationOf(after) || HasOwners(*before) != HasOwners(after) ||
                    LabelsOf(*before) != LabelsOf(after) ||
                    !reconcile::EqualAmounts(AllocatableOf(*before), AllocatableOf(after));
  for (const char* key : {kReservationRestrictedOptionsAnnotation, kPreAllocatedPodsAnnotation}) {
    if (StringOf(*before, {"metadata", "annotations", key}) != StringOf(after, {"metadata", "annotations", key})) {
      change.annotations = true;
    }
  }
  return change;
}

}  // namespace berth::controllers
