// unit-tests/reconcile/migration/job_fixtures.h
//
// What the migration tests build their snapshots from: a Running, Ready pod of a ReplicaSet, job-1
// (uid job-uid) migrating default/web-1, and the reservation "job-uid" that job created. Each test
// sets on top what its case is about (status, conditions, PDBs).
#pragma once

#include <chrono>
#include <string>
#include <utility>

#include "reconcile/migration/types.h"

namespace berth::reconcile::migration::testing {

inline const Time kT0 = std::chrono::sys_days{std::chrono::year{2026} / 1 / 1};

// A pod of a ReplicaSet, scheduled by koord-scheduler, Running and Ready.
inline PodFacts ReplicaSetPod(std::string name = "web-1", std::string uid = "pod-uid", std::string node = "node-0") {
  PodFacts p;
  p.namespace_name = "default";
  p.name = std::move(name);
  p.uid = std::move(uid);
  p.node_name = std::move(node);
  p.scheduler_name = "koord-scheduler";
  p.phase = "Running";
  p.ready = true;
  p.has_controller = true;
  p.controller_kind = "ReplicaSet";
  return p;
}

// job-1 (uid job-uid, created at kT0) for the pod default/web-1; no pod facts, status or reservation yet.
inline JobSnapshot JobForWeb1() {
  JobSnapshot j;
  j.name = "job-1";
  j.uid = "job-uid";
  j.creation_time = kT0;
  j.pod_namespace = "default";
  j.pod_name = "web-1";
  return j;
}

// The reservation job-1 created (named after the job's uid), in the given phase on the given node.
inline ReservationFacts JobReservation(Phase phase, std::string node) {
  ReservationFacts r;
  r.name = "job-uid";
  r.phase = phase;
  r.node_name = std::move(node);
  r.created_by_job = true;
  return r;
}

}  // namespace berth::reconcile::migration::testing
