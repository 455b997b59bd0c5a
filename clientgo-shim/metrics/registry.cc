// clientgo-shim/metrics/registry.cc — see registry.h.
#include "clientgo-shim/metrics/registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "clientgo-shim/base/go_format.h"

namespace berth::shim {

void Counter::Inc(double v) {
  if (!(v >= 0)) return;  // also drops NaN
  value_.fetch_add(v);
}

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double v) {
  // The first bucket whose upper bound is >= v (Prometheus buckets are "less or equal").
  const size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  std::lock_guard<std::mutex> l(mu_);
  ++counts_[i];
  sum_ += v;
  ++count_;
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  std::lock_guard<std::mutex> l(mu_);
  s.cumulative.resize(counts_.size());
  std::partial_sum(counts_.begin(), counts_.end(), s.cumulative.begin());
  s.sum = sum_;
  s.count = count_;
  return s;
}

template <class M>
Family<M>::Family(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> buckets)
    : name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)),
      buckets_(std::move(buckets)) {
  detached_ = Make();
  // A family without labels has exactly one child, always exported (client_golang's plain
  // Counter/Gauge).
  if (label_names_.empty()) children_[{}] = Make();
}

template <class M>
std::unique_ptr<M> Family<M>::Make() const {
  if constexpr (std::is_same_v<M, Histogram>) {
    return std::make_unique<Histogram>(buckets_);
  } else {
    return std::make_unique<M>();
  }
}

template <class M>
M& Family<M>::WithLabelValues(const std::vector<std::string>& values) {
  if (values.size() != label_names_.size()) return *detached_;
  std::lock_guard<std::mutex> l(mu_);
  auto& slot = children_[values];
  if (!slot) slot = Make();
  return *slot;
}

template <class M>
bool Family<M>::Remove(const std::vector<std::string>& values) {
  std::lock_guard<std::mutex> l(mu_);
  return children_.erase(values) > 0;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

struct Registry::Entry {
  std::string name, help;
  MetricType type;
  std::vector<std::string> label_names;
  std::vector<double> buckets;
  std::unique_ptr<CounterFamily> counter;
  std::unique_ptr<GaugeFamily> gauge;
  std::unique_ptr<HistogramFamily> histogram;
};

Registry::Registry() = default;
Registry::~Registry() = default;

namespace {

bool ValidMetricName(std::string_view n) {
  if (n.empty()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool ValidLabelName(std::string_view n) {
  if (n.empty() || n.starts_with("__")) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

const char* TypeName(MetricType t) {
  switch (t) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
  }
  return "untyped";
}

// LabelPairs renders {a="x",b="y"} with pairs sorted by label name, plus an optional trailing
// `le` pair (client_golang puts le last).
std::string LabelPairs(const std::vector<std::string>& names,
                       const std::vector<std::string>& values, const std::string* le) {
  std::vector<size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return names[a] < names[b]; });
  std::string out;
  if (order.empty() && le == nullptr) return out;
  out += '{';
  bool first = true;
  for (size_t i : order) {
    if (!first) out += ',';
    first = false;
    out += names[i] + "=\"" + EscapeLabelValue(values[i]) + '"';
  }
  if (le != nullptr) {
    if (!first) out += ',';
    out += "le=\"" + *le + '"';
  }
  out += '}';
  return out;
}

// SortedChildren orders children by their label pairs sorted by name (client_golang's order).
template <class M>
std::vector<std::pair<std::vector<std::string>, const M*>> SortedChildren(
    const std::vector<std::string>& names,
    const std::map<std::vector<std::string>, std::unique_ptr<M>>& children) {
  std::vector<size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return names[a] < names[b]; });
  std::vector<std::pair<std::vector<std::string>, const M*>> out;
  for (const auto& [values, m] : children) out.emplace_back(values, m.get());
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    for (size_t i : order) {
      if (a.first[i] != b.first[i]) return a.first[i] < b.first[i];
    }
    return false;
  });
  return out;
}

}  // namespace

Result<Registry::Entry*> Registry::Register(std::string_view name, std::string_view help,
                                            MetricType type,
                                            const std::vector<std::string>& label_names,
                                            const std::vector<double>& buckets) {
  if (!ValidMetricName(name)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "metric name \"" + std::string(name) + "\" is not a valid Prometheus name");
  }
  for (const auto& l : label_names) {
    if (!ValidLabelName(l) || (type == MetricType::kHistogram && l == "le")) {
      return MakeError(ErrorCode::kInvalidArgument, "metric " + std::string(name) +
                                                        ": label name \"" + l + "\" is not valid");
    }
  }
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (!std::isfinite(buckets[i]) || (i > 0 && buckets[i] <= buckets[i - 1])) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "metric " + std::string(name) + ": buckets must be finite and ascending");
    }
  }
  std::lock_guard<std::mutex> l(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    Entry* e = it->second.get();
    if (e->type != type || e->label_names != label_names || e->buckets != buckets) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "metric " + std::string(name) +
                           " is already registered with a different type, labels or buckets");
    }
    return e;
  }
  auto e = std::make_unique<Entry>();
  e->name = std::string(name);
  e->help = std::string(help);
  e->type = type;
  e->label_names = label_names;
  e->buckets = buckets;
  switch (type) {
    case MetricType::kCounter:
      e->counter.reset(new CounterFamily(e->name, e->help, label_names, {}));
      break;
    case MetricType::kGauge:
      e->gauge.reset(new GaugeFamily(e->name, e->help, label_names, {}));
      break;
    case MetricType::kHistogram:
      e->histogram.reset(new HistogramFamily(e->name, e->help, label_names, buckets));
      break;
  }
  Entry* raw = e.get();
  families_.emplace(e->name, std::move(e));
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

std::string Registry::Render() const {
  std::string out;
  std::lock_guard<std::mutex> l(mu_);
  for (const auto& [name, e] : families_) {  // std::map: sorted by name
    std::string body;
    const auto& names = e->label_names;
    if (e->counter || e->gauge) {
      auto render = [&](const auto& family) {
        std::lock_guard<std::mutex> fl(family.mu_);
        for (const auto& [values, m] : SortedChildren(names, family.children_)) {
          body += name + LabelPairs(names, values, nullptr) + ' ' +
                  FormatMetricValue(m->Value()) + '\n';
        }
      };
      if (e->counter) render(*e->counter);
      if (e->gauge) render(*e->gauge);
    } else {
      const auto& family = *e->histogram;
      std::lock_guard<std::mutex> fl(family.mu_);
      for (const auto& [values, h] : SortedChildren(names, family.children_)) {
        const Histogram::Snapshot s = h->Read();
        for (size_t i = 0; i <= e->buckets.size(); ++i) {
          const std::string le =
              i < e->buckets.size() ? FormatMetricValue(e->buckets[i]) : std::string("+Inf");
          body += name + "_bucket" + LabelPairs(names, values, &le) + ' ' +
                  FormatMetricValue(static_cast<double>(s.cumulative[i])) + '\n';
        }
        const std::string labels = LabelPairs(names, values, nullptr);
        body += name + "_sum" + labels + ' ' + FormatMetricValue(s.sum) + '\n';
        body += name + "_count" + labels + ' ' + FormatMetricValue(static_cast<double>(s.count)) + '\n';
      }
    }
    if (body.empty()) continue;
    out += "# HELP " + name + ' ' + EscapeHelp(e->help) + '\n';
    out += "# TYPE " + name + ' ' + TypeName(e->type) + '\n';
    out += body;
  }
  return out;
}

std::string FormatMetricValue(double v) {
  if (v == 0) return "0";  // expfmt writes -0 as "0" too
  return FormatFloatG(v);
}

std::string EscapeLabelValue(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string EscapeHelp(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
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
