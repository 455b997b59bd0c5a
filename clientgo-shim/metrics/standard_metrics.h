// clientgo-shim/metrics/standard_metrics.h
//
// The metric families that existing controller-runtime / client-go dashboards query, with their
// exact names, label names, help texts and default buckets (operator-runtime.md §1.8):
//   controller_runtime_reconcile_total{controller,result}      result ∈ success|error|requeue|requeue_after
//   controller_runtime_reconcile_errors_total{controller}
//   controller_runtime_terminal_reconcile_errors_total{controller}
//   controller_runtime_reconcile_panics_total{controller}        a reconciler that threw
//   controller_runtime_reconcile_timeouts_total{controller}      stays 0: berth sets no
//     ReconciliationTimeout (controller-runtime's default), but dashboards and "must stay zero"
//     checks list the family
//   controller_runtime_reconcile_time_seconds{controller}      40 buckets 0.005 … 60
//   controller_runtime_max_concurrent_reconciles{controller}
//   controller_runtime_active_workers{controller}
//   workqueue_depth{controller,name,priority}, workqueue_adds_total{controller,name},
//   workqueue_queue_duration_seconds / workqueue_work_duration_seconds{controller,name}
//     (ExponentialBuckets(10e-9, 10, 12)), workqueue_retries_total{controller,name},
//   workqueue_unfinished_work_seconds / workqueue_longest_running_processor_seconds{controller,name}
//   rest_client_requests_total{code,host,method}, rest_client_request_duration_seconds{host,verb}
//   leader_election_master_status{name}, leader_election_slowpath_total{name}
// Each Register* is idempotent on one Registry.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/metrics/registry.h"

namespace berth::shim {

// Default bucket sets, as upstream declares them.
std::vector<double> ReconcileTimeBuckets();      // controller-runtime, 40 buckets
std::vector<double> WorkqueueDurationBuckets();  // ExponentialBuckets(10e-9, 10, 12)
std::vector<double> RestClientLatencyBuckets();  // .005 … 60, 12 buckets

struct ControllerRuntimeMetrics {
  CounterFamily* reconcile_total = nullptr;
  CounterFamily* reconcile_errors_total = nullptr;
  CounterFamily* terminal_reconcile_errors_total = nullptr;
  CounterFamily* reconcile_panics_total = nullptr;
  CounterFamily* reconcile_timeouts_total = nullptr;
  HistogramFamily* reconcile_time_seconds = nullptr;
  GaugeFamily* max_concurrent_reconciles = nullptr;
  GaugeFamily* active_workers = nullptr;

  // InitController pre-creates every series of one controller at zero, as controller-runtime
  // does, so rate() works from the first scrape; sets max_concurrent_reconciles.
  void InitController(const std::string& controller, int max_concurrent) const;
};
Result<ControllerRuntimeMetrics> RegisterControllerRuntimeMetrics(Registry& registry);

struct WorkqueueMetricFamilies {
  GaugeFamily* depth = nullptr;  // {controller,name,priority}
  CounterFamily* adds_total = nullptr;
  HistogramFamily* queue_duration_seconds = nullptr;
  HistogramFamily* work_duration_seconds = nullptr;
  CounterFamily* retries_total = nullptr;
  GaugeFamily* unfinished_work_seconds = nullptr;
  GaugeFamily* longest_running_processor_seconds = nullptr;
};
Result<WorkqueueMetricFamilies> RegisterWorkqueueMetrics(Registry& registry);

struct RestClientMetrics {
  CounterFamily* requests_total = nullptr;            // {code,method,host}
  HistogramFamily* request_duration_seconds = nullptr;  // {verb,host}
};
Result<RestClientMetrics> RegisterRestClientMetrics(Registry& registry);

// RestRequestObserver matches HttpsRestClientOptions::on_request: method, HTTP code (0 = no
// response) and latency of one attempt.
using RestRequestObserver =
    std::function<void(std::string_view method, int code, std::chrono::duration<double> latency)>;
// MakeRestClientObserver counts rest_client_requests_total{code,method,host} (code "<error>"
// when no response arrived, as client-go) and observes rest_client_request_duration_seconds
// {verb,host}. Errors: registration conflicts.
Result<RestRequestObserver> MakeRestClientObserver(Registry& registry, std::string host);

struct LeaderElectionMetrics {
  GaugeFamily* master_status = nullptr;    // {name}
  CounterFamily* slowpath_total = nullptr; // {name}
};
Result<LeaderElectionMetrics> RegisterLeaderElectionMetrics(Registry& registry);

}  // namespace berth::shim
