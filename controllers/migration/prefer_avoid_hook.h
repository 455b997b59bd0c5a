// controllers/migration/prefer_avoid_hook.h
//
// PreferAvoidPods recording (the seed's /evict + PreferAvoidPods): after the API server accepted
// the eviction of a migrated pod, the node it left gets the pod's controllerRef in its annotation
// scheduler.alpha.kubernetes.io/preferAvoidPods (reconcile/placement/prefer_avoid_pods.h: bounded,
// entries expire after --prefer-avoid-pods-ttl), so berth's scheduler keeps the replacement off it.
// Best effort: the eviction has happened whatever this write does; a conflict is retried a few
// times against a fresh read, other failures are logged. A malformed annotation on the node is
// replaced (logged), since berth owns what it writes there. The node is read from `nodes` (the
// cache) first, and a controller recorded moments ago (placement::RecentlyRecorded) is not written
// again, so a drain of many pods of one controller costs a write a minute, not one per pod.
#pragma once

#include <rapidjson/document.h>

#include "clientgo-shim/client/object_client.h"
#include "clientgo-shim/informer/shared_informer.h"
#include "reconcile/placement/prefer_avoid_pods.h"

namespace berth::controllers {

// RecordPreferAvoidPods records `pod`'s controller on the node in its spec.nodeName. Pods without
// a controller ownerReference or a node, and options.ttl 0, record nothing.
void RecordPreferAvoidPods(const shim::ObjectClient& client, const shim::SharedInformer* nodes,
                           const rapidjson::Value& pod, std::string_view job_name, reconcile::Time now,
                           const reconcile::placement::PreferAvoidOptions& options);

}  // namespace berth::controllers
