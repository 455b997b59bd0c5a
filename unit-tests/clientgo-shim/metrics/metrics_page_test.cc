// /metrics end to end: every standard family registered, served by HttpServer, fetched over
// loopback and parsed back; each family must carry its type, its label names and its buckets.
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/metrics/http_server.h"
#include "clientgo-shim/metrics/probes.h"
#include "clientgo-shim/metrics/process_metrics.h"
#include "clientgo-shim/metrics/standard_metrics.h"
#include "unit-tests/clientgo-shim/metrics/raw_http_client.h"

namespace berth::shim {
namespace {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;
};
struct ParsedFamily {
  std::string help, type;
  std::vector<Sample> samples;
};

// ParsePage reads text format 0.0.4 strictly enough that a malformed line fails the test.
std::map<std::string, ParsedFamily> ParsePage(const std::string& page) {
  std::map<std::string, ParsedFamily> out;
  std::string current;
  size_t pos = 0;
  while (pos < page.size()) {
    const size_t end = page.find('\n', pos);
    EXPECT_NE(end, std::string::npos) << "page does not end in a newline";
    if (end == std::string::npos) break;
    const std::string line = page.substr(pos, end - pos);
    pos = end + 1;
    if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
      const size_t sp = line.find(' ', 7);
      current = line.substr(7, sp - 7);
      (line[2] == 'H' ? out[current].help : out[current].type) = line.substr(sp + 1);
      continue;
    }
    Sample s;
    size_t i = line.find_first_of("{ ");
    s.name = line.substr(0, i);
    if (line[i] == '{') {
      ++i;
      while (line[i] != '}') {
        const size_t eq = line.find('=', i);
        const std::string key = line.substr(i, eq - i);
        EXPECT_EQ(line[eq + 1], '"') << line;
        std::string value;
        for (i = eq + 2; line[i] != '"'; ++i) {
          if (line[i] == '\\') ++i;
          value += line[i];
        }
        s.labels[key] = value;
        ++i;
        if (line[i] == ',') ++i;
      }
      ++i;
    }
    EXPECT_EQ(line[i], ' ') << line;
    s.value = line.substr(i + 1);
    EXPECT_FALSE(s.value.empty()) << line;
    EXPECT_TRUE(s.name.starts_with(current)) << "sample " << s.name << " outside its family";
    out[current].samples.push_back(std::move(s));
  }
  return out;
}

std::set<std::string> LabelNames(const Sample& s) {
  std::set<std::string> names;
  for (const auto& [k, v] : s.labels) names.insert(k);
  return names;
}

TEST(MetricsPageTest, EveryStandardFamilyIsServedWithItsLabelsAndBuckets) {
  Registry registry;
  auto cr = RegisterControllerRuntimeMetrics(registry);
  ASSERT_TRUE(cr);
  cr->InitController("reservation", 2);
  auto wq = RegisterWorkqueueMetrics(registry);
  ASSERT_TRUE(wq);
  wq->depth->WithLabelValues({"reservation", "reservation", ""}).Set(1);
  wq->adds_total->WithLabelValues({"reservation", "reservation"}).Inc();
  wq->queue_duration_seconds->WithLabelValues({"reservation", "reservation"}).Observe(0.002);
  wq->work_duration_seconds->WithLabelValues({"reservation", "reservation"}).Observe(0.02);
  wq->retries_total->WithLabelValues({"reservation", "reservation"}).Inc();
  wq->unfinished_work_seconds->WithLabelValues({"reservation", "reservation"}).Set(0);
  wq->longest_running_processor_seconds->WithLabelValues({"reservation", "reservation"}).Set(0);
  auto observe = MakeRestClientObserver(registry, "127.0.0.1:6443");
  ASSERT_TRUE(observe);
  (*observe)("GET", 200, std::chrono::milliseconds(3));
  auto le = RegisterLeaderElectionMetrics(registry);
  ASSERT_TRUE(le);
  le->master_status->WithLabelValues({"berth"}).Set(1);
  le->slowpath_total->WithLabelValues({"berth"});
  RegisterProcessMetrics(registry);

  HttpServer server("127.0.0.1:0");
  ServeMetrics(server, registry);
  auto port = server.Start();
  ASSERT_TRUE(port) << port.error().message;
  const auto reply = testing::Exchange(*port, testing::GetRequest("/metrics"),
                                       std::chrono::seconds(10));
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.header("content-type"), kTextContentType);
  const auto page = ParsePage(reply.body);

  struct Expect {
    const char* name;
    const char* type;
    std::set<std::string> labels;
    std::vector<double> buckets;  // histograms
  };
  const std::vector<Expect> expected = {
      {"controller_runtime_reconcile_total", "counter", {"controller", "result"}, {}},
      {"controller_runtime_reconcile_errors_total", "counter", {"controller"}, {}},
      {"controller_runtime_terminal_reconcile_errors_total", "counter", {"controller"}, {}},
      {"controller_runtime_reconcile_panics_total", "counter", {"controller"}, {}},
      {"controller_runtime_reconcile_timeouts_total", "counter", {"controller"}, {}},
      {"controller_runtime_reconcile_time_seconds", "histogram", {"controller"},
       ReconcileTimeBuckets()},
      {"controller_runtime_max_concurrent_reconciles", "gauge", {"controller"}, {}},
      {"controller_runtime_active_workers", "gauge", {"controller"}, {}},
      {"workqueue_depth", "gauge", {"name", "controller", "priority"}, {}},
      {"workqueue_adds_total", "counter", {"name", "controller"}, {}},
      {"workqueue_queue_duration_seconds", "histogram", {"name", "controller"},
       WorkqueueDurationBuckets()},
      {"workqueue_work_duration_seconds", "histogram", {"name", "controller"},
       WorkqueueDurationBuckets()},
      {"workqueue_retries_total", "counter", {"name", "controller"}, {}},
      {"workqueue_unfinished_work_seconds", "gauge", {"name", "controller"}, {}},
      {"workqueue_longest_running_processor_seconds", "gauge", {"name", "controller"}, {}},
      {"rest_client_requests_total", "counter", {"code", "method", "host"}, {}},
      {"rest_client_request_duration_seconds", "histogram", {"verb", "host"},
       RestClientLatencyBuckets()},
      {"leader_election_master_status", "gauge", {"name"}, {}},
      {"leader_election_slowpath_total", "counter", {"name"}, {}},
      {"process_cpu_seconds_total", "counter", {}, {}},
      {"process_resident_memory_bytes", "gauge", {}, {}},
      {"process_virtual_memory_bytes", "gauge", {}, {}},
      {"process_virtual_memory_max_bytes", "gauge", {}, {}},
      {"process_open_fds", "gauge", {}, {}},
      {"process_max_fds", "gauge", {}, {}},
      {"process_start_time_seconds", "gauge", {}, {}},
  };
  for (const auto& e : expected) {
    SCOPED_TRACE(e.name);
    auto it = page.find(e.name);
    ASSERT_NE(it, page.end());
    const ParsedFamily& f = it->second;
    EXPECT_EQ(f.type, e.type);
    EXPECT_FALSE(f.help.empty());
    ASSERT_FALSE(f.samples.empty());
    if (e.buckets.empty()) {
      for (const auto& s : f.samples) {
        EXPECT_EQ(s.name, e.name);
        EXPECT_EQ(LabelNames(s), e.labels);
      }
      continue;
    }
    std::vector<double> bounds;
    int sums = 0, counts = 0;
    for (const auto& s : f.samples) {
      std::set<std::string> labels = LabelNames(s);
      if (s.name == std::string(e.name) + "_bucket") {
        ASSERT_EQ(labels.erase("le"), 1u);
        bounds.push_back(std::stod(s.labels.at("le")));
      } else if (s.name == std::string(e.name) + "_sum") {
        ++sums;
      } else {
        EXPECT_EQ(s.name, std::string(e.name) + "_count");
        ++counts;
      }
      EXPECT_EQ(labels, e.labels);
    }
    std::vector<double> want = e.buckets;
    want.push_back(std::numeric_limits<double>::infinity());
    EXPECT_EQ(bounds, want);  // one child per family here
    EXPECT_EQ(sums, 1);
    EXPECT_EQ(counts, 1);
  }
  // Values survive the round trip.
  const auto& adds = page.at("workqueue_adds_total").samples;
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0].value, "1");
  EXPECT_GT(std::stod(page.at("process_resident_memory_bytes").samples[0].value), 0);
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
  const double started = std::stod(page.at("process_start_time_seconds").samples[0].value);
  EXPECT_GT(started, now - 3600);
  EXPECT_LE(started, now + 1);
}

}  // namespace
}  // namespace berth::shim
