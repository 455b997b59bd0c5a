// reconcile/provisioning/pod_builder.h
//
// The pods a ProvisioningRequest stands for, built as upstream's PodsForProvisioningRequest does:
// podSet i holds `count` copies of its PodTemplate's pod, named "<request>-<i>-<j>", owned by the
// request, annotated as its consumers, with container limits copied into missing requests
// (SetDefaults_Pod). The copies of one podSet are identical, so the builder returns one pod per
// podSet with its count; PodForIndex names copy j.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "reconcile/provisioning/types.h"

namespace berth::reconcile::provisioning {

struct PodSetPods {
  int index = 0;
  std::string template_name;
  int64_t count = 0;
  placement::PodSpecView pod;  // copy 0; requests are the effective requests
};

struct BuiltPods {
  std::vector<PodSetPods> pod_sets;
  // The template of each podSet whose template does not exist, in podSet order (a name twice
  // when two podSets share it, as upstream counts them). When non-empty,
  // pod_sets is empty.
  std::vector<std::string> missing;
  int referenced = 0;  // len(podSets)
  // A template that exists but cannot give a pod (no containers, a bad quantity): the message
  // names the podSet and the field. When set, pod_sets is empty.
  std::string error;
};

// TemplateLookup returns the PodTemplate <request namespace>/<name>, or nullptr.
using TemplateLookup = std::function<const PodTemplateView*(std::string_view name)>;

BuiltPods BuildPods(const ProvisioningRequestView& request, const TemplateLookup& lookup);

// MissingTemplatesMessage: upstream's error text, e.g. "missing pod templates, 2 pod templates
// were referenced, 1 templates were missing: a".
std::string MissingTemplatesMessage(const BuiltPods& built);

// CopyLimitsIntoRequests: every resource with a limit and no request gets the limit as request.
void CopyLimitsIntoRequests(ContainerResources& container);

// PodForIndex: copy j of the podSet: name "<request>-<i>-<j>", uid "<namespace>/<that name>".
placement::PodSpecView PodForIndex(const ProvisioningRequestView& request, const PodSetPods& set,
                                   int64_t j);

// ConsumerKey: "<namespace>/<name>", the key consumer pods and booking Reservations share.
std::string ConsumerKey(std::string_view namespace_name, std::string_view name);

}  // namespace berth::reconcile::provisioning
