// reconcile/provisioning/pod_builder.cc
#include "reconcile/provisioning/pod_builder.h"

namespace berth::reconcile::provisioning {

std::string ConsumerKey(std::string_view namespace_name, std::string_view name) {
  std::string key(namespace_name);
  key.append("/").append(name);
  return key;
}

void CopyLimitsIntoRequests(ContainerResources& container) {
  for (const auto& [resource, limit] : container.limits) container.requests.try_emplace(resource, limit);
}

BuiltPods BuildPods(const ProvisioningRequestView& request, const TemplateLookup& lookup) {
  BuiltPods out;
  out.referenced = static_cast<int>(request.pod_sets.size());
  std::vector<const PodTemplateView*> templates;
  for (const PodSetRef& set : request.pod_sets) {
    const PodTemplateView* found = lookup(set.template_name);
    // One entry per podSet, as upstream's errMissingPodTemplates: two podSets naming the same
    // missing template count as two.
    if (found == nullptr) out.missing.push_back(set.template_name);
    templates.push_back(found);
  }
  if (!out.missing.empty()) return out;
  for (size_t i = 0; i < request.pod_sets.size(); ++i) {
    const PodSetRef& set = request.pod_sets[i];
    const PodTemplateView& tmpl = *templates[i];
    const std::string where = "podSets[" + std::to_string(i) + "] (podTemplate \"" + set.template_name + "\"): ";
    if (!tmpl.errors.empty()) {
      out.error = where + tmpl.errors.front();
      out.pod_sets.clear();
      return out;
    }
    if (tmpl.containers.empty()) {
      out.error = where + "template.spec.containers is empty: a pod needs at least one container";
      out.pod_sets.clear();
      return out;
    }
    PodResources resources;
    for (ContainerResources c : tmpl.containers) {
      CopyLimitsIntoRequests(c);
      resources.containers.push_back(std::move(c.requests));
    }
    for (ContainerResources c : tmpl.init_containers) {
      CopyLimitsIntoRequests(c);
      resources.init_containers.push_back({std::move(c.requests), c.sidecar});
    }
    resources.overhead = tmpl.overhead;
    PodSetPods pods;
    pods.index = static_cast<int>(i);
    pods.template_name = set.template_name;
    pods.count = set.count;
    pods.pod = tmpl.pod;
    pods.pod.namespace_name = request.namespace_name;
    pods.pod.requests = EffectiveRequests(resources);
    pods.pod.owner_references = {
        {"autoscaling.x-k8s.io/v1", "ProvisioningRequest", request.name, request.uid, true}};
    pods.pod.consumes_provisioning_request = ConsumerKey(request.namespace_name, request.name);
    // A template's reservation annotations do not bind the request's pods to other reservations.
    pods.pod.reservation_uid.clear();
    pods.pod.name = request.name + "-" + std::to_string(i) + "-0";
    pods.pod.uid = request.namespace_name + "/" + pods.pod.name;
    out.pod_sets.push_back(std::move(pods));
  }
  return out;
}

std::string MissingTemplatesMessage(const BuiltPods& built) {
  std::string names;
  for (const std::string& n : built.missing) {
    if (!names.empty()) names += ",";
    names += n;
  }
  return "missing pod templates, " + std::to_string(built.referenced) +
         " pod templates were referenced, " + std::to_string(built.missing.size()) +
         " templates were missing: " + names;
}

placement::PodSpecView PodForIndex(const ProvisioningRequestView& request, const PodSetPods& set,
                                   int64_t j) {
  placement::PodSpecView pod = set.pod;
  pod.name = request.name + "-" + std::to_string(set.index) + "-" + std::to_string(j);
  pod.uid = request.namespace_name + "/" + pod.name;
  return pod;
}

}  // namespace berth::reconcile::provisioning
