// e2e/kubesim/api/priority_admission.h
//
// kube-apiserver's Priority admission plugin for pod creation: spec.priority (and
// spec.preemptionPolicy) resolved from spec.priorityClassName, from the globalDefault
// PriorityClass when the pod names none, or 0. The built-in classes system-cluster-critical
// (2000000000) and system-node-critical (2000001000) are served as objects like in a cluster
// (KubesimInstance creates them at start).
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "e2e/kubesim/store/object_store.h"
#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

inline constexpr char kPriorityClassesKey[] = "scheduling.k8s.io/priorityclasses";

// AdmitPodPriority mutates a pod being created. Errors: 403 Forbidden with upstream's text when
// the class does not exist ("no PriorityClass with name gold was found") or the pod sets
// spec.priority / spec.preemptionPolicy to something else than the class gives.
std::optional<HttpResponse> AdmitPodPriority(const ObjectStore& store, const std::string& pod_name,
                                             rapidjson::Document& pod);

// BuiltinPriorityClasses: the two system classes as JSON objects, for bootstrap.
const char* const* BuiltinPriorityClasses();

}  // namespace berth::kubesim
