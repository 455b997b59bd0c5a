// unit-tests/e2e/kubesim/patch/builtin_schema_test.cc
#include "e2e/kubesim/patch/builtin_schema.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace berth::kubesim::patch {
namespace {

std::vector<std::string> P(std::initializer_list<const char*> parts) {
  return {parts.begin(), parts.end()};
}

void ExpectMerge(const PatchSchema& s, const std::vector<std::string>& path, const char* key) {
  ListStrategy st = s.ForList(path);
  EXPECT_TRUE(st.IsMerge()) << path.back();
  EXPECT_EQ(st.merge_key, key) << path.back();
}

TEST(BuiltinPatchSchema, PodListsCarryTheUpstreamMergeKeys) {
  const PatchSchema& pod = BuiltinPatchSchema("v1", "Pod");
  ExpectMerge(pod, P({"spec", "containers"}), "name");
  ExpectMerge(pod, P({"spec", "initContainers"}), "name");
  ExpectMerge(pod, P({"spec", "ephemeralContainers"}), "name");
  ExpectMerge(pod, P({"spec", "volumes"}), "name");
  EXPECT_TRUE(pod.ForList(P({"spec", "volumes"})).retain_keys);
  ExpectMerge(pod, P({"spec", "containers", "env"}), "name");
  ExpectMerge(pod, P({"spec", "containers", "volumeMounts"}), "mountPath");
  ExpectMerge(pod, P({"spec", "containers", "ports"}), "containerPort");
  ExpectMerge(pod, P({"spec", "imagePullSecrets"}), "name");
  ExpectMerge(pod, P({"spec", "hostAliases"}), "ip");
  ExpectMerge(pod, P({"spec", "topologySpreadConstraints"}), "topologyKey");
  ExpectMerge(pod, P({"status", "conditions"}), "type");
  ExpectMerge(pod, P({"metadata", "finalizers"}), "");
  ExpectMerge(pod, P({"metadata", "ownerReferences"}), "uid");
}

TEST(BuiltinPatchSchema, UntaggedListsAreAtomic) {
  const PatchSchema& pod = BuiltinPatchSchema("v1", "Pod");
  EXPECT_FALSE(pod.ForList(P({"spec", "tolerations"})).IsMerge());
  EXPECT_FALSE(pod.ForList(P({"spec", "containers", "envFrom"})).IsMerge());
  EXPECT_FALSE(pod.ForList(P({"spec", "containers", "command"})).IsMerge());
  EXPECT_FALSE(pod.ForList(P({"spec", "containerStatuses"})).IsMerge());
  EXPECT_FALSE(BuiltinPatchSchema("v1", "Node").ForList(P({"spec", "taints"})).IsMerge());
}

TEST(BuiltinPatchSchema, WorkloadsCarryThePodSpecUnderTheirTemplate) {
  for (const char* kind : {"Deployment", "ReplicaSet", "StatefulSet"}) {
    const PatchSchema& s = BuiltinPatchSchema("apps/v1", kind);
    ExpectMerge(s, P({"spec", "template", "spec", "containers"}), "name");
    ExpectMerge(s, P({"spec", "template", "spec", "containers", "env"}), "name");
    ExpectMerge(s, P({"status", "conditions"}), "type");
    EXPECT_FALSE(s.ForList(P({"spec", "containers"})).IsMerge()) << kind;
  }
  ExpectMerge(BuiltinPatchSchema("v1", "PodTemplate"), P({"template", "spec", "volumes"}), "name");
}

TEST(BuiltinPatchSchema, CoversNodeServiceAndConditionKinds) {
  ExpectMerge(BuiltinPatchSchema("v1", "Node"), P({"status", "addresses"}), "type");
  ExpectMerge(BuiltinPatchSchema("v1", "Node"), P({"spec", "podCIDRs"}), "");
  ExpectMerge(BuiltinPatchSchema("v1", "Service"), P({"spec", "ports"}), "port");
  ExpectMerge(BuiltinPatchSchema("v1", "Namespace"), P({"status", "conditions"}), "type");
  ExpectMerge(BuiltinPatchSchema("policy/v1", "PodDisruptionBudget"), P({"status", "conditions"}),
              "type");
  ExpectMerge(BuiltinPatchSchema("coordination.k8s.io/v1", "Lease"), P({"metadata", "finalizers"}),
              "");
}

TEST(BuiltinPatchSchema, FallsBackToAtomicForUnknownKindsAndWrongGroups) {
  EXPECT_EQ(&BuiltinPatchSchema("example.com/v1", "Widget"), &AtomicPatchSchema());
  EXPECT_EQ(&BuiltinPatchSchema("v1", "Deployment"), &AtomicPatchSchema());
  EXPECT_FALSE(BuiltinPatchSchema("example.com/v1", "Widget")
                   .ForList(P({"metadata", "finalizers"}))
                   .IsMerge());
}

}  // namespace
}  // namespace berth::kubesim::patch
