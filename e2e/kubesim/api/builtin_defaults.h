// e2e/kubesim/api/builtin_defaults.h
//
// The defaults and validation rules of built-in types that clients can observe: pod defaults
// (restartPolicy, schedulerName, imagePullPolicy, the not-ready/unreachable tolerations),
// namespace finalizers and phase, workload replicas, Secret type and stringData (merged into data
// as base64), and the field errors kubectl users meet
// (a pod without containers, a PDB with both minAvailable and maxUnavailable).
#pragma once

#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/api/registry.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {

void ApplyBuiltinDefaults(const ResourceType& type, rapidjson::Document& object);
std::vector<StatusCause> ValidateBuiltin(const ResourceType& type, const rapidjson::Value& object);

}  // namespace berth::kubesim
