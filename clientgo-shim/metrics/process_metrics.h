// clientgo-shim/metrics/process_metrics.h
//
// The process_* families of client_golang's process collector, which controller-runtime's
// registry always includes, computed from /proc/self at each scrape:
//   process_cpu_seconds_total          counter  utime + stime of /proc/self/stat
//   process_resident_memory_bytes      gauge    rss pages × page size
//   process_virtual_memory_bytes       gauge    vsize
//   process_virtual_memory_max_bytes   gauge    RLIMIT_AS soft limit
//   process_open_fds                   gauge    entries of /proc/self/fd
//   process_max_fds                    gauge    RLIMIT_NOFILE soft limit
//   process_start_time_seconds         gauge    btime of /proc/stat + starttime / clock ticks
// A source that cannot be read or parsed drops its families from that scrape and logs why
// (rate-limited); it is never reported as 0.
// Thread-safety: Collect may run on any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

class Registry;

// ProcStat: the fields of /proc/<pid>/stat the collector needs, in the kernel's units.
struct ProcStat {
  uint64_t utime_ticks = 0;
  uint64_t stime_ticks = 0;
  uint64_t start_time_ticks = 0;  // since boot
  uint64_t virtual_memory_bytes = 0;
  int64_t resident_pages = 0;
};
// ParseProcStat reads one /proc/<pid>/stat line (the command name may hold spaces and ')').
// Errors: kInvalidArgument naming the field that is missing or not a number.
Result<ProcStat> ParseProcStat(std::string_view text);
// ParseBootTime reads `btime` (seconds since the epoch) from /proc/stat.
// Errors: kInvalidArgument when the line is missing or not a number.
Result<uint64_t> ParseBootTime(std::string_view proc_stat);

class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override;
};

// RegisterProcessMetrics adds the process collector to `registry` (once; later calls are no-ops).
void RegisterProcessMetrics(Registry& registry);

}  // namespace berth::shim
