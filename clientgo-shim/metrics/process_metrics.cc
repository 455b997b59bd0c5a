// clientgo-shim/metrics/process_metrics.cc — see process_metrics.h.
#include "clientgo-shim/metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "clientgo-shim/base/rate_limited_log.h"
#include "clientgo-shim/metrics/registry.h"

namespace berth::shim {
namespace {

template <class T>
bool ParseNumber(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

Result<std::string> ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorCode::kInternal, std::string("cannot open ") + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

prometheus::MetricFamily One(const char* name, const char* help, prometheus::MetricType type,
                             double value) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(std::move(m));
  return f;
}

// RLIM_INFINITY is reported as client_golang does (procfs reads "unlimited" as the max uint64).
double Limit(int resource, bool* ok) {
  rlimit l{};
  *ok = getrlimit(resource, &l) == 0;
  if (l.rlim_cur == RLIM_INFINITY) return static_cast<double>(std::numeric_limits<uint64_t>::max());
  return static_cast<double>(l.rlim_cur);
}

log::RateLimitedLog& FailureLog() {
  static log::RateLimitedLog l(std::chrono::minutes(5));
  return l;
}

}  // namespace

Result<ProcStat> ParseProcStat(std::string_view text) {
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument, "proc stat: no ')' after the command name");
  }
  std::vector<std::string_view> fields;  // fields[0] is field 3 (state) of proc(5)
  std::string_view rest = text.substr(close + 1);
  while (!rest.empty()) {
    const size_t start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const size_t end = std::min(rest.find_first_of(" \n"), rest.size());
    fields.push_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  ProcStat s;
  struct Field {
    int number;  // as numbered in proc(5)
    const char* name;
  };
  auto get = [&](Field f, auto* out) -> Result<void> {
    const size_t i = static_cast<size_t>(f.number - 3);
    if (i >= fields.size()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       std::string("proc stat: field ") + f.name + " is missing");
    }
    if (!ParseNumber(fields[i], out)) {
      return MakeError(ErrorCode::kInvalidArgument, std::string("proc stat: field ") + f.name +
                                                        " is not a number: \"" +
                                                        std::string(fields[i]) + "\"");
    }
    return {};
  };
  for (auto r : {get({14, "utime"}, &s.utime_ticks), get({15, "stime"}, &s.stime_ticks),
                 get({22, "starttime"}, &s.start_time_ticks),
                 get({23, "vsize"}, &s.virtual_memory_bytes), get({24, "rss"}, &s.resident_pages)}) {
    if (!r) return std::unexpected(r.error());
  }
  return s;
}

Result<uint64_t> ParseBootTime(std::string_view proc_stat) {
  size_t pos = 0;
  while (pos < proc_stat.size()) {
    const size_t end = std::min(proc_stat.find('\n', pos), proc_stat.size());
    std::string_view line = proc_stat.substr(pos, end - pos);
    pos = end + 1;
    if (!line.starts_with("btime ")) continue;
    line.remove_prefix(6);
    uint64_t v = 0;
    if (!ParseNumber(line, &v)) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "proc stat: btime is not a number: \"" + std::string(line) + "\"");
    }
    return v;
  }
  return MakeError(ErrorCode::kInvalidArgument, "proc stat: no btime line");
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  auto fail = [](std::string_view what, const std::string& why) {
    FailureLog().Write(log::Level::kWarn, "metrics", what, "process metrics unavailable",
                       {{"source", std::string(what)}, {"error", why}});
  };
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  auto stat_text = ReadFile("/proc/self/stat");
  Result<ProcStat> stat = stat_text ? ParseProcStat(*stat_text)
                                    : Result<ProcStat>(std::unexpected(stat_text.error()));
  if (stat && ticks > 0) {
    out.push_back(One("process_cpu_seconds_total",
                      "Total user and system CPU time spent in seconds.", MetricType::Counter,
                      static_cast<double>(stat->utime_ticks + stat->stime_ticks) / ticks));
    out.push_back(One("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                      MetricType::Gauge, static_cast<double>(stat->virtual_memory_bytes)));
    out.push_back(One("process_resident_memory_bytes", "Resident memory size in bytes.",
                      MetricType::Gauge,
                      static_cast<double>(stat->resident_pages) *
                          static_cast<double>(sysconf(_SC_PAGESIZE))));
    auto boot = ReadFile("/proc/stat");
    Result<uint64_t> btime =
        boot ? ParseBootTime(*boot) : Result<uint64_t>(std::unexpected(boot.error()));
    if (btime) {
      out.push_back(One("process_start_time_seconds",
                        "Start time of the process since unix epoch in seconds.",
                        MetricType::Gauge,
                        static_cast<double>(*btime) +
                            static_cast<double>(stat->start_time_ticks) / ticks));
    } else {
      fail("/proc/stat", btime.error().message);
    }
  } else if (!stat) {
    fail("/proc/self/stat", stat.error().message);
  }
  std::error_code ec;
  size_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  if (!ec) {
    out.push_back(One("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
                      static_cast<double>(fds)));
  } else {
    fail("/proc/self/fd", ec.message());
  }
  bool ok = false;
  const double max_fds = Limit(RLIMIT_NOFILE, &ok);
  if (ok) {
    out.push_back(One("process_max_fds", "Maximum number of open file descriptors.",
                      MetricType::Gauge, max_fds));
  }
  const double max_vm = Limit(RLIMIT_AS, &ok);
  if (ok) {
    out.push_back(One("process_virtual_memory_max_bytes",
                      "Maximum amount of virtual memory available in bytes.", MetricType::Gauge,
                      max_vm));
  }
  return out;
}

void RegisterProcessMetrics(Registry& registry) {
  static const auto collector = std::make_shared<ProcessCollector>();
  registry.AddCollectable(collector);
}

}  // namespace berth::shim
