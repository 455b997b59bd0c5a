// e2e/kubesim/api/pod_scheduling_validation.h
//
// The part of kube-apiserver's ValidatePodSpec that covers scheduling constraints:
// spec.affinity (node affinity required and preferred terms, pod (anti-)affinity terms) and
// spec.topologySpreadConstraints, with the apiserver's field paths and wording, so a pod berth's
// scheduler could not read is refused at create as on a real cluster. Label-key syntax and
// label-selector contents are not checked here.
#pragma once

#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {

// ValidatePodScheduling appends a cause per invalid field of the pod spec `spec` at `path`
// ("spec", or "spec.template.spec" for a workload's template).
void ValidatePodScheduling(const rapidjson::Value& spec, const std::string& path, std::vector<StatusCause>& causes);

}  // namespace berth::kubesim
