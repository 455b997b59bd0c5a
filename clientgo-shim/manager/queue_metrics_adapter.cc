// clientgo-shim/manager/queue_metrics_adapter.cc — see queue_metrics_adapter.h.
#include "clientgo-shim/manager/queue_metrics_adapter.h"

namespace berth::shim {
namespace {

class PrometheusQueueMetrics final : public WorkQueueMetrics {
 public:
  PrometheusQueueMetrics(const WorkqueueMetricFamilies& f, const std::string& name,
                         const std::string& controller)
      : depth_(f.depth->WithLabelValues({name, controller, ""})),
        adds_(f.adds_total->WithLabelValues({name, controller})),
        queue_duration_(f.queue_duration_seconds->WithLabelValues({name, controller})),
        work_duration_(f.work_duration_seconds->WithLabelValues({name, controller})),
        retries_(f.retries_total->WithLabelValues({name, controller})),
        unfinished_(f.unfinished_work_seconds->WithLabelValues({name, controller})),
        longest_(f.longest_running_processor_seconds->WithLabelValues({name, controller})) {}

  void SetDepth(size_t depth) override { depth_.Set(static_cast<double>(depth)); }
  void IncAdds() override { adds_.Inc(); }
  void ObserveQueueDuration(double s) override { queue_duration_.Observe(s); }
  void ObserveWorkDuration(double s) override { work_duration_.Observe(s); }
  void IncRetries() override { retries_.Inc(); }
  void SetUnfinishedWork(double total, double longest) override {
    unfinished_.Set(total);
    longest_.Set(longest);
  }

 private:
  Gauge& depth_;
  Counter& adds_;
  Histogram& queue_duration_;
  Histogram& work_duration_;
  Counter& retries_;
  Gauge& unfinished_;
  Gauge& longest_;
};

}  // namespace

Result<std::shared_ptr<WorkQueueMetrics>> MakeWorkqueueMetrics(Registry& registry,
                                                               const std::string& name,
                                                               const std::string& controller) {
  auto families = RegisterWorkqueueMetrics(registry);
  if (!families) return std::unexpected(families.error());
  return std::make_shared<PrometheusQueueMetrics>(*families, name, controller);
}

}  // namespace berth::shim
