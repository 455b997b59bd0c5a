// clientgo-shim/metrics/registry.cc — see registry.h.
#include "clientgo-shim/metrics/registry.h"

#include <algorithm>
#include <cmath>

#include <prometheus/check_names.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

namespace berth::shim {

Histogram::Snapshot Histogram::Read() const {
  const prometheus::ClientMetric m = impl_->Collect();
  Snapshot s;
  for (const auto& b : m.histogram.bucket) s.cumulative.push_back(b.cumulative_count);
  s.sum = m.histogram.sample_sum;
  s.count = m.histogram.sample_count;
  return s;
}

template <class M>
Family<M>::Family(prometheus::Family<Impl>& impl, std::string name,
                  std::vector<std::string> label_names, std::vector<double> buckets)
    : impl_(impl),
      name_(std::move(name)),
      label_names_(std::move(label_names)),
      buckets_(std::move(buckets)) {
  if constexpr (std::is_same_v<M, Histogram>) {
    detached_impl_ = std::make_unique<Impl>(buckets_);
  } else {
    detached_impl_ = std::make_unique<Impl>();
  }
  detached_ = std::make_unique<M>(*detached_impl_);
  // A family without labels has exactly one child, always exported (client_golang's plain
  // Counter/Gauge).
  if (label_names_.empty()) children_[{}] = std::make_unique<M>(AddImpl({}));
}

template <class M>
typename Family<M>::Impl& Family<M>::AddImpl(const prometheus::Labels& labels) {
  if constexpr (std::is_same_v<M, Histogram>) {
    return impl_.Add(labels, buckets_);
  } else {
    return impl_.Add(labels);
  }
}

template <class M>
M& Family<M>::WithLabelValues(const std::vector<std::string>& values) {
  if (values.size() != label_names_.size()) return *detached_;
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = children_[values];
  if (!slot) {
    prometheus::Labels labels;
    for (size_t i = 0; i < values.size(); ++i) labels.emplace(label_names_[i], values[i]);
    try {
      slot = std::make_unique<M>(AddImpl(labels));
    } catch (const std::exception&) {
      // prometheus-cpp rejects what it cannot export; the caller keeps counting, unexported.
      children_.erase(values);
      return *detached_;
    }
  }
  return *slot;
}

template <class M>
bool Family<M>::Remove(const std::vector<std::string>& values) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = children_.find(values);
  if (it == children_.end()) return false;
  prometheus::Labels labels;
  for (size_t i = 0; i < values.size(); ++i) labels.emplace(label_names_[i], values[i]);
  // Family::Remove takes the metric pointer; Add with the same labels returns that metric.
  impl_.Remove(&AddImpl(labels));
  children_.erase(it);
  return true;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

struct Registry::Entry {
  MetricType type;
  std::vector<std::string> label_names;
  std::vector<double> buckets;
  std::unique_ptr<CounterFamily> counter;
  std::unique_ptr<GaugeFamily> gauge;
  std::unique_ptr<HistogramFamily> histogram;
};

Registry::Registry() : impl_(std::make_shared<prometheus::Registry>()) {}
Registry::~Registry() = default;

namespace {

// prometheus-cpp 1.0.1's TextSerializer writes HELP verbatim, so a newline would end the line
// and corrupt the page; escape as the format requires (\\ and \n).
std::string EscapedHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace

Result<Registry::Entry*> Registry::Register(std::string_view name, std::string_view help,
                                            MetricType type,
                                            const std::vector<std::string>& label_names,
                                            const std::vector<double>& buckets) {
  const std::string name_str(name);
  if (!prometheus::CheckMetricName(name_str)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "metric name \"" + name_str + "\" is not a valid Prometheus name");
  }
  for (const auto& l : label_names) {
    if (!prometheus::CheckLabelName(l) || (type == MetricType::kHistogram && l == "le")) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "metric " + name_str + ": label name \"" + l + "\" is not valid");
    }
  }
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (!std::isfinite(buckets[i]) || (i > 0 && buckets[i] <= buckets[i - 1])) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "metric " + name_str + ": buckets must be finite and ascending");
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    Entry* e = it->second.get();
    if (e->type != type || e->label_names != label_names || e->buckets != buckets) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "metric " + name_str +
                           " is already registered with a different type, labels or buckets");
    }
    return e;
  }
  auto e = std::make_unique<Entry>();
  e->type = type;
  e->label_names = label_names;
  e->buckets = buckets;
  const std::string escaped_help = EscapedHelp(help);
  try {
    switch (type) {
      case MetricType::kCounter:
        e->counter.reset(new CounterFamily(
            prometheus::BuildCounter().Name(name_str).Help(escaped_help).Register(*impl_),
            name_str, label_names, {}));
        break;
      case MetricType::kGauge:
        e->gauge.reset(new GaugeFamily(
            prometheus::BuildGauge().Name(name_str).Help(escaped_help).Register(*impl_),
            name_str, label_names, {}));
        break;
      case MetricType::kHistogram:
        e->histogram.reset(new HistogramFamily(
            prometheus::BuildHistogram().Name(name_str).Help(escaped_help).Register(*impl_),
            name_str, label_names, buckets));
        break;
    }
  } catch (const std::exception& ex) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "metric " + name_str + ": prometheus-cpp rejected it: " + ex.what());
  }
  Entry* raw = e.get();
  families_.emplace(name_str, std::move(e));
  return raw;
}

Result<CounterFamily*> Registry::AddCounter(std::string_view name, std::string_view help,
                                            std::vector<std::string> label_names) {
  auto e = Register(name, help, MetricType::kCounter, label_names, {});
  if (!e) return std::unexpected(e.error());
  return (*e)->counter.get();
}

Result<GaugeFamily*> Registry::AddGauge(std::string_view name, std::string_view help,
                                        std::vector<std::string> label_names) {
  auto e = Register(name, help, MetricType::kGauge, label_names, {});
  if (!e) return std::unexpected(e.error());
  return (*e)->gauge.get();
}

Result<HistogramFamily*> Registry::AddHistogram(std::string_view name, std::string_view help,
                                                std::vector<std::string> label_names,
                                                std::vector<double> buckets) {
  auto e = Register(name, help, MetricType::kHistogram, label_names, buckets);
  if (!e) return std::unexpected(e.error());
  return (*e)->histogram.get();
}

void Registry::AddCollectable(std::shared_ptr<prometheus::Collectable> collectable) {
  std::lock_guard<std::mutex> l(mu_);
  if (std::find(collectables_.begin(), collectables_.end(), collectable) == collectables_.end()) {
    collectables_.push_back(std::move(collectable));
  }
}

std::string Registry::Render() const {
  std::vector<prometheus::MetricFamily> families = impl_->Collect();
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& c : collectables_) {
      for (auto& f : c->Collect()) families.push_back(std::move(f));
    }
  }
  // prometheus-cpp collects by type, then registration order, and children in hash order;
  // client_golang's order (by name, then by label pairs) keeps pages stable and diffable.
  std::stable_sort(families.begin(), families.end(),
                   [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& f : families) {
    std::sort(f.metric.begin(), f.metric.end(),
              [](const auto& a, const auto& b) { return a.label < b.label; });
  }
  return prometheus::TextSerializer().Serialize(families);
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(start);
    start *= factor;
  }
  return out;
}

}  // namespace berth::shim
