// OwnerReservation: an Available ReservationView on `node` holding `cpu_milli`, whose owners are
// the pods labelled app=owner (the scheduler-cache and extender tests share it).
#pragma once

#include <string>

#include "clientgo-shim/api/label_selector.h"
#include "clientgo-shim/base/json.h"
#include "reconcile/placement/types.h"

namespace berth::controllers::testing {

inline reconcile::placement::ReservationView OwnerReservation(const std::string& name, const std::string& node,
                                                              int64_t cpu_milli, bool allocate_once) {
  reconcile::placement::ReservationView r;
  r.name = name;
  r.uid = "ruid-" + name;
  r.phase = reconcile::Phase::kAvailable;
  r.node_name = node;
  r.allocatable = {{"cpu", cpu_milli}};
  reconcile::placement::ReservationOwner by_label;
  auto doc = json::Parse(R"({"matchLabels":{"app":"owner"}})");
  by_label.label_selector = *shim::LabelSelector::FromJson(&*doc);
  r.owners = {by_label};
  r.allocate_once = allocate_once;
  return r;
}

}  // namespace berth::controllers::testing
