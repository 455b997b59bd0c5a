// clientgo-shim/metrics/standard_metrics.cc — see standard_metrics.h.
#include "clientgo-shim/metrics/standard_metrics.h"

namespace berth::shim {

std::vector<double> ReconcileTimeBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0,  4.5, 5,
          6,     7,    8,     9,    10,   15,  20,   25,  30,  40,  50,  60};
}

std::vector<double> WorkqueueDurationBuckets() { return ExponentialBuckets(10e-9, 10, 12); }

std::vector<double> RestClientLatencyBuckets() {
  return {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0};
}

#define BERTH_ASSIGN(dst, expr)                         \
  do {                                                  \
    auto r_ = (expr);                                   \
    if (!r_) return std::unexpected(std::move(r_.error())); \
    dst = *r_;                                          \
  } while (0)

Result<ControllerRuntimeMetrics> RegisterControllerRuntimeMetrics(Registry& r) {
  ControllerRuntimeMetrics m;
  BERTH_ASSIGN(m.reconcile_total,
               r.AddCounter("controller_runtime_reconcile_total",
                            "Total number of reconciliations per controller",
                            {"controller", "result"}));
  BERTH_ASSIGN(m.reconcile_errors_total,
               r.AddCounter("controller_runtime_reconcile_errors_total",
                            "Total number of reconciliation errors per controller", {"controller"}));
  BERTH_ASSIGN(m.terminal_reconcile_errors_total,
               r.AddCounter("controller_runtime_terminal_reconcile_errors_total",
                            "Total number of terminal reconciliation errors per controller",
                            {"controller"}));
  BERTH_ASSIGN(m.reconcile_panics_total,
               r.AddCounter("controller_runtime_reconcile_panics_total",
                            "Total number of reconciliation panics per controller", {"controller"}));
  BERTH_ASSIGN(m.reconcile_timeouts_total,
               r.AddCounter("controller_runtime_reconcile_timeouts_total",
                            "Total number of reconciliation timeouts per controller", {"controller"}));
  BERTH_ASSIGN(m.reconcile_time_seconds,
               r.AddHistogram("controller_runtime_reconcile_time_seconds",
                              "Length of time per reconciliation per controller", {"controller"},
                              ReconcileTimeBuckets()));
  BERTH_ASSIGN(m.max_concurrent_reconciles,
               r.AddGauge("controller_runtime_max_concurrent_reconciles",
                          "Maximum number of concurrent reconciles per controller", {"controller"}));
  BERTH_ASSIGN(m.active_workers,
               r.AddGauge("controller_runtime_active_workers",
                          "Number of currently used workers per controller", {"controller"}));
  return m;
}

void ControllerRuntimeMetrics::InitController(const std::string& controller,
                                              int max_concurrent) const {
  for (const char* result : {"success", "error", "requeue", "requeue_after"}) {
    reconcile_total->WithLabelValues({controller, result});
  }
  reconcile_errors_total->WithLabelValues({controller});
  terminal_reconcile_errors_total->WithLabelValues({controller});
  reconcile_panics_total->WithLabelValues({controller});
  reconcile_timeouts_total->WithLabelValues({controller});
  reconcile_time_seconds->WithLabelValues({controller});
  max_concurrent_reconciles->WithLabelValues({controller}).Set(max_concurrent);
  active_workers->WithLabelValues({controller}).Set(0);
}

Result<WorkqueueMetricFamilies> RegisterWorkqueueMetrics(Registry& r) {
  WorkqueueMetricFamilies m;
  BERTH_ASSIGN(m.depth, r.AddGauge("workqueue_depth", "Current depth of workqueue",
                                   {"name", "controller", "priority"}));
  BERTH_ASSIGN(m.adds_total, r.AddCounter("workqueue_adds_total",
                                          "Total number of adds handled by workqueue",
                                          {"name", "controller"}));
  BERTH_ASSIGN(m.queue_duration_seconds,
               r.AddHistogram("workqueue_queue_duration_seconds",
                              "How long in seconds an item stays in workqueue before being "
                              "requested",
                              {"name", "controller"}, WorkqueueDurationBuckets()));
  BERTH_ASSIGN(m.work_duration_seconds,
               r.AddHistogram("workqueue_work_duration_seconds",
                              "How long in seconds processing an item from workqueue takes.",
                              {"name", "controller"}, WorkqueueDurationBuckets()));
  BERTH_ASSIGN(m.retries_total, r.AddCounter("workqueue_retries_total",
                                             "Total number of retries handled by workqueue",
                                             {"name", "controller"}));
  BERTH_ASSIGN(m.unfinished_work_seconds,
               r.AddGauge("workqueue_unfinished_work_seconds",
                          "How many seconds of work has been done that is in progress and hasn't "
                          "been observed by work_duration. Large values indicate stuck threads. "
                          "One can deduce the number of stuck threads by observing the rate at "
                          "which this increases.",
                          {"name", "controller"}));
  BERTH_ASSIGN(m.longest_running_processor_seconds,
               r.AddGauge("workqueue_longest_running_processor_seconds",
                          "How many seconds has the longest running processor for workqueue been "
                          "running.",
                          {"name", "controller"}));
  return m;
}

Result<RestClientMetrics> RegisterRestClientMetrics(Registry& r) {
  RestClientMetrics m;
  BERTH_ASSIGN(m.requests_total,
               r.AddCounter("rest_client_requests_total",
                            "Number of HTTP requests, partitioned by status code, method, and host.",
                            {"code", "method", "host"}));
  BERTH_ASSIGN(m.request_duration_seconds,
               r.AddHistogram("rest_client_request_duration_seconds",
                              "Request latency in seconds. Broken down by verb, and host.",
                              {"verb", "host"}, RestClientLatencyBuckets()));
  return m;
}

Result<LeaderElectionMetrics> RegisterLeaderElectionMetrics(Registry& r) {
  LeaderElectionMetrics m;
  BERTH_ASSIGN(m.master_status,
               r.AddGauge("leader_election_master_status",
                          "Gauge of if the reporting system is master of the relevant lease, 0 "
                          "indicates backup, 1 indicates master. 'name' is the string used to "
                          "identify the lease. Please make sure to group by name.",
                          {"name"}));
  BERTH_ASSIGN(m.slowpath_total,
               r.AddCounter("leader_election_slowpath_total",
                            "Total number of slow path exercised in renewing leader leases. 'name' "
                            "is the string used to identify the lease. Please make sure to group "
                            "by name.",
                            {"name"}));
  return m;
}

Result<RestRequestObserver> MakeRestClientObserver(Registry& registry, std::string host) {
  auto m = RegisterRestClientMetrics(registry);
  if (!m) return std::unexpected(m.error());
  RestClientMetrics families = *m;
  return RestRequestObserver([families, host](std::string_view method, int code,
                                              std::chrono::duration<double> latency) {
    const std::string verb(method);
    families.requests_total
        ->WithLabelValues({code == 0 ? "<error>" : std::to_string(code), verb, host})
        .Inc();
    families.request_duration_seconds->WithLabelValues({verb, host}).Observe(latency.count());
  });
}

#undef BERTH_ASSIGN

}  // namespace berth::shim
