// e2e/kubesim/patch/builtin_schema.h
//
// Strategic-merge list strategies of the built-in kinds kubesim serves, transcribed from the
// patchStrategy / patchMergeKey tags of k8s.io/api (core/v1, apps/v1, policy/v1,
// coordination.k8s.io/v1, events.k8s.io/v1). Lists without a tag (tolerations, taints, envFrom,
// command, args, volumeClaimTemplates, ...) are atomic, exactly as on a real apiserver.
#pragma once

#include <string_view>

#include "e2e/kubesim/patch/patch_schema.h"

namespace berth::kubesim::patch {

// BuiltinPatchSchema returns the schema of `kind` in `api_version` ("v1", "apps/v1", ...):
// Pod, Node, Service, ConfigMap, Namespace, Event, PodDisruptionBudget, Lease, PodTemplate,
// Deployment, ReplicaSet, StatefulSet. Any other kind gets AtomicPatchSchema(). The reference
// stays valid for the life of the process.
const PatchSchema& BuiltinPatchSchema(std::string_view api_version, std::string_view kind);

}  // namespace berth::kubesim::patch
