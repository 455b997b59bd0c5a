// clientgo-shim/queue/queue_metrics.h
//
// WorkQueueMetrics: the hooks a WorkQueue calls so that metrics can be kept without the queue
// depending on the metrics library. manager/ adapts them to the Prometheus names
// workqueue_depth, workqueue_adds_total, workqueue_queue_duration_seconds,
// workqueue_work_duration_seconds, workqueue_retries_total, workqueue_unfinished_work_seconds and
// workqueue_longest_running_processor_seconds (label name=<queue name>).
// Hooks are called with the queue's lock held: implementations must be quick and must not call
// back into the queue.
#pragma once

#include <cstddef>

namespace berth::shim {

class WorkQueueMetrics {
 public:
  virtual ~WorkQueueMetrics() = default;
  // SetDepth reports the number of ready keys after every change.
  virtual void SetDepth(size_t depth) = 0;
  // IncAdds counts one key that became queued (not a de-duplicated Add).
  virtual void IncAdds() = 0;
  // ObserveQueueDuration: seconds a key waited in the queue before Get handed it out.
  virtual void ObserveQueueDuration(double seconds) = 0;
  // ObserveWorkDuration: seconds between Get and Done.
  virtual void ObserveWorkDuration(double seconds) = 0;
  // IncRetries counts one AddAfter with a positive delay.
  virtual void IncRetries() = 0;
  // SetUnfinishedWork reports the summed and the longest age of in-flight keys, in seconds.
  virtual void SetUnfinishedWork(double total_seconds, double longest_seconds) = 0;
};

}  // namespace berth::shim
