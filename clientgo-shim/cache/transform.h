// clientgo-shim/cache/transform.h
//
// Transforms run on every object the reflector receives, before it is cached: they keep only
// the fields a controller reads. This is the memory lever of the cache (controller-runtime's
// TransformStripManagedFields / kube-rs's pruning before store): what a transform drops is never
// stored. A Transform edits the object in place; an error drops the object from this event
// (the reflector logs it) — it never stops the watch.
// Pure functions; safe from any thread.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/cache/cached_object.h"

namespace berth::shim {

// Transform edits one object (a JSON object with metadata) in place; `alloc` owns the
// object's memory (use it for any value the transform adds). The object may be an item inside a
// LIST page: transforming in place saves a copy per object.
using Transform =
    std::function<Status(rapidjson::Value& object, rapidjson::Document::AllocatorType& alloc)>;

// kLastAppliedAnnotation is the kubectl apply bookkeeping annotation; often the largest field.
inline constexpr char kLastAppliedAnnotation[] =
    "kubectl.kubernetes.io/last-applied-configuration";

// DefaultTransform keeps metadata.{name, namespace, uid, resourceVersion, generation,
// creationTimestamp, deletionTimestamp, labels, annotations (minus last-applied),
// ownerReferences, finalizers}, and spec and status whole. apiVersion and kind are dropped (the
// informer knows its type; LIST items do not carry them anyway); managedFields, selfLink,
// generateName and every other metadata field are dropped.
// Errors: kInvalidArgument when the object is not a JSON object.
Status DefaultTransformFn(rapidjson::Value& object, rapidjson::Document::AllocatorType& alloc);
Transform DefaultTransform();

// StatusSubsetTransform is DefaultTransform keeping of `status` only the members named in
// `keep_status` (the rest of the object as DefaultTransform keeps it). For kinds whose status is
// mostly what no controller of the process reads: a Running pod's containerStatuses, IPs and
// QoS class were ~40 % of its status and ~20 % of its cached bytes, and packing them cost CPU on
// every list and event. A status that is not an object is left as it is.
// Errors: as DefaultTransformFn.
Transform StatusSubsetTransform(std::vector<std::string> keep_status);

// PodViewTransform keeps what schedulers and most pod controllers read: the DefaultTransform's
// metadata, spec.{nodeName, schedulerName, priority, containers[].{name, resources.requests}},
// status.{phase, conditions[type=Ready].{type,status}}. Everything else is dropped.
// Errors: kInvalidArgument when the object is not a JSON object.
Status PodViewTransformFn(rapidjson::Value& object, rapidjson::Document::AllocatorType& alloc);
Transform PodViewTransform();

// IdentityTransform keeps everything (for tests and small caches).
Transform IdentityTransform();

// PodView: typed access to a pod cached with either transform above.
struct PodView {
  struct Container {
    std::string name;
    std::map<std::string, std::string> requests;  // resource name → quantity text
  };
  std::string name;
  std::string namespace_name;
  std::string node_name;
  std::string scheduler_name;
  std::string phase;
  bool ready = false;  // conditions[type=Ready].status == "True"
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<Container> containers;
};

// ReadPodView decodes the fields of PodView from a cached pod. Missing fields stay empty.
// Errors: kDecode when the cached object cannot be decoded.
Result<PodView> ReadPodView(const CachedObject& pod);

}  // namespace berth::shim
