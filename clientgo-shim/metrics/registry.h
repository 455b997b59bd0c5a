// clientgo-shim/metrics/registry.h
//
// A small Prometheus registry (prometheus-cpp is not packaged on Debian bookworm): counter, gauge
// and histogram families with labels, rendered in the text exposition format 0.0.4 exactly as
// client_golang writes it:
//   - families sorted by name, each with "# HELP" (\ and newline escaped) and "# TYPE";
//   - label pairs sorted by label name, values escaped (\\, \", \n); children sorted by labels;
//   - histograms as cumulative name_bucket{...,le="…"} lines ending in le="+Inf", then _sum, _count;
//   - numbers as Go's strconv.FormatFloat(v, 'g', -1, 64) ("1e-08", "0.005", "+Inf", "NaN");
//   - families with labels but no children yet are not written.
// Registering a name again with the same type and label names returns the existing family, so
// several controllers can share one family; a mismatch is an error.
// Thread-safety: everything may be used from any thread; metric handles stay valid as long as the
// Registry lives.
// Example:
//   Registry r;
//   auto* total = *r.AddCounter("controller_runtime_reconcile_total", "Total ...", {"controller", "result"});
//   total->WithLabelValues({"pods", "success"}).Inc();
//   std::string page = r.Render();
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// Counter: a monotonically increasing value.
class Counter {
 public:
  // Inc adds `v`; negative values are ignored (counters never go down).
  void Inc(double v = 1.0);
  double Value() const { return value_.load(); }

 private:
  std::atomic<double> value_{0.0};
};

// Gauge: a value that goes up and down.
class Gauge {
 public:
  void Set(double v) { value_.store(v); }
  void Add(double v) { value_.fetch_add(v); }
  void Inc() { Add(1.0); }
  void Dec() { Add(-1.0); }
  double Value() const { return value_.load(); }

 private:
  std::atomic<double> value_{0.0};
};

// Histogram: counts observations into cumulative buckets (upper bounds, ascending).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);
  struct Snapshot {
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;  // per bucket, non-cumulative; last = above every bound
  double sum_ = 0;
  uint64_t count_ = 0;
};

enum class MetricType { kCounter, kGauge, kHistogram };

// Family<M>: one metric name with a fixed list of label names; children per label-value tuple.
template <class M>
class Family {
 public:
  // WithLabelValues returns the child for the values, given in the order of label_names(),
  // creating it at zero. A wrong number of values returns a detached child that is never
  // rendered (client_golang would panic; berth never crashes on caller mistakes).
  M& WithLabelValues(const std::vector<std::string>& values);
  // Remove deletes one child (e.g. a controller that went away). Returns whether it existed.
  bool Remove(const std::vector<std::string>& values);
  const std::string& name() const { return name_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

 private:
  friend class Registry;
  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> buckets);
  std::unique_ptr<M> Make() const;

  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const std::vector<double> buckets_;  // histograms only
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<M>> children_;
  std::unique_ptr<M> detached_;
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

// Registry: see the file comment.
class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // AddCounter/AddGauge/AddHistogram register a family (or return the same-shaped existing one).
  // Errors: kInvalidArgument for a bad metric or label name, or when the name is already
  // registered with another type, label names or buckets.
  Result<CounterFamily*> AddCounter(std::string_view name, std::string_view help,
                                    std::vector<std::string> label_names = {});
  Result<GaugeFamily*> AddGauge(std::string_view name, std::string_view help,
                                std::vector<std::string> label_names = {});
  // `buckets` must be strictly ascending and finite; +Inf is implied.
  Result<HistogramFamily*> AddHistogram(std::string_view name, std::string_view help,
                                        std::vector<std::string> label_names,
                                        std::vector<double> buckets);

  // Render writes every family in text format 0.0.4.
  std::string Render() const;

 private:
  struct Entry;
  Result<Entry*> Register(std::string_view name, std::string_view help, MetricType type,
                          const std::vector<std::string>& label_names,
                          const std::vector<double>& buckets);
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> families_;
};

// kTextContentType is the Content-Type of a text-format 0.0.4 page.
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// FormatMetricValue formats like Go's strconv.FormatFloat(v, 'g', -1, 64), with "+Inf", "-Inf"
// and "NaN" as Prometheus writes them.
std::string FormatMetricValue(double v);

// EscapeLabelValue escapes \, " and newline; EscapeHelp escapes \ and newline.
std::string EscapeLabelValue(std::string_view v);
std::string EscapeHelp(std::string_view v);

// ExponentialBuckets is client_golang's prometheus.ExponentialBuckets(start, factor, count),
// computed by repeated multiplication so the bounds match Go's bit for bit.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

}  // namespace berth::shim
