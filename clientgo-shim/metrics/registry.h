// clientgo-shim/metrics/registry.h
//
// berth's metrics API, a thin adapter over prometheus-cpp's core library (prometheus::Registry,
// families, Counter/Gauge/Histogram, TextSerializer). It keeps client_golang's shape, which the
// callers and the dashboards rely on:
//   - a family has a fixed list of label names, children are looked up by values in that order
//     (WithLabelValues), and a wrong number of values never crashes the process;
//   - registering a name again with the same type, label names and buckets returns the existing
//     family, so several controllers share one; a mismatch is an error, never an exception;
//   - Render() writes text format 0.0.4 through prometheus::TextSerializer, with families sorted by
//     name and children by label pairs (client_golang's order, so pages are stable for diffing).
// Thread-safety: everything may be used from any thread; metric handles stay valid as long as the
// Registry lives.
// Example:
//   Registry r;
//   auto* total = *r.AddCounter("controller_runtime_reconcile_total", "Total ...", {"controller", "result"});
//   total->WithLabelValues({"pods", "success"}).Inc();
//   std::string page = r.Render();
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// Counter: a monotonically increasing value.
class Counter {
 public:
  using Impl = prometheus::Counter;
  explicit Counter(Impl& impl) : impl_(&impl) {}
  // Inc adds `v`; negative values and NaN are ignored (counters never go down).
  void Inc(double v = 1.0) {
    if (v >= 0) impl_->Increment(v);
  }
  double Value() const { return impl_->Value(); }

 private:
  Impl* impl_;
};

// Gauge: a value that goes up and down.
class Gauge {
 public:
  using Impl = prometheus::Gauge;
  explicit Gauge(Impl& impl) : impl_(&impl) {}
  void Set(double v) { impl_->Set(v); }
  void Add(double v) { impl_->Increment(v); }
  void Inc() { impl_->Increment(); }
  void Dec() { impl_->Decrement(); }
  double Value() const { return impl_->Value(); }

 private:
  Impl* impl_;
};

// Histogram: counts observations into cumulative buckets (upper bounds, ascending; `le` is
// inclusive).
class Histogram {
 public:
  using Impl = prometheus::Histogram;
  explicit Histogram(Impl& impl) : impl_(&impl) {}
  void Observe(double v) { impl_->Observe(v); }
  struct Snapshot {
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  Impl* impl_;
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
  using Impl = typename M::Impl;
  Family(prometheus::Family<Impl>& impl, std::string name, std::vector<std::string> label_names,
         std::vector<double> buckets);
  Impl& AddImpl(const prometheus::Labels& labels);

  prometheus::Family<Impl>& impl_;
  const std::string name_;
  const std::vector<std::string> label_names_;
  const std::vector<double> buckets_;  // histograms only
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<M>> children_;
  std::unique_ptr<Impl> detached_impl_;  // owned here, never registered
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

  // AddCollectable adds a prometheus-cpp collector that computes its families at scrape time
  // (e.g. the process_* collector). Registering the same pointer twice is a no-op.
  void AddCollectable(std::shared_ptr<prometheus::Collectable> collectable);

  // Render writes every family in text format 0.0.4 (prometheus::TextSerializer).
  std::string Render() const;

 private:
  struct Entry;
  Result<Entry*> Register(std::string_view name, std::string_view help, MetricType type,
                          const std::vector<std::string>& label_names,
                          const std::vector<double>& buckets);
  const std::shared_ptr<prometheus::Registry> impl_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> families_;
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
};

// kTextContentType is the Content-Type of a text-format 0.0.4 page.
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// ExponentialBuckets is client_golang's prometheus.ExponentialBuckets(start, factor, count),
// computed by repeated multiplication so the bounds match Go's bit for bit.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

}  // namespace berth::shim
