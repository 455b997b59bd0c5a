// clientgo-shim/manager/queue_metrics_adapter.h
//
// Bridges WorkQueue's metric hooks (queue/queue_metrics.h) to the Prometheus workqueue_*
// families (metrics/standard_metrics.h), labelled name=<queue>, controller=<controller>
// (priority="" on workqueue_depth, as controller-runtime's plain queue).
#pragma once

#include <memory>
#include <string>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/metrics/standard_metrics.h"
#include "clientgo-shim/queue/queue_metrics.h"

namespace berth::shim {

// MakeWorkqueueMetrics registers the workqueue_* families on `registry` (idempotent) and returns
// hooks for one queue. Errors: registration conflicts.
Result<std::shared_ptr<WorkQueueMetrics>> MakeWorkqueueMetrics(Registry& registry,
                                                               const std::string& name,
                                                               const std::string& controller);

}  // namespace berth::shim
