// Tests for clientgo-shim/metrics/process_metrics.h: the /proc parsers (including malformed
// input) and the collector against this test process.
#include "clientgo-shim/metrics/process_metrics.h"

#include <chrono>
#include <map>

#include <gtest/gtest.h>

namespace berth::shim {
namespace {

// A real line shape: pid, (comm), state, then fields 4… of proc(5).
constexpr std::string_view kStat =
    "4242 (berth ) (mgr) S 1 4242 4242 0 -1 4194560 1500 0 0 0 "
    "250 130 0 0 20 0 12 0 987654 123456789 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 "
    "17 1 0 0 0 0 0\n";

TEST(ParseProcStatTest, ReadsFieldsAfterTheLastParenthesis) {
  auto s = ParseProcStat(kStat);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->utime_ticks, 250u);
  EXPECT_EQ(s->stime_ticks, 130u);
  EXPECT_EQ(s->start_time_ticks, 987654u);
  EXPECT_EQ(s->virtual_memory_bytes, 123456789u);
  EXPECT_EQ(s->resident_pages, 2048);
}

TEST(ParseProcStatTest, MalformedInputNamesTheProblem) {
  auto no_paren = ParseProcStat("4242 berth S 1 2 3");
  ASSERT_FALSE(no_paren);
  EXPECT_NE(no_paren.error().message.find("')'"), std::string::npos);

  auto short_line = ParseProcStat("4242 (berth) S 1 4242 4242 0 -1 4194560 1500 0 0 0 250");
  ASSERT_FALSE(short_line);
  EXPECT_NE(short_line.error().message.find("stime is missing"), std::string::npos);

  std::string bad(kStat);
  bad.replace(bad.find(" 250 "), 5, " 2x0 ");
  auto not_number = ParseProcStat(bad);
  ASSERT_FALSE(not_number);
  EXPECT_NE(not_number.error().message.find("utime is not a number: \"2x0\""), std::string::npos);

  std::string negative_vsize(kStat);
  negative_vsize.replace(negative_vsize.find(" 123456789 "), 11, " -5 ");
  EXPECT_FALSE(ParseProcStat(negative_vsize));
  EXPECT_FALSE(ParseProcStat(""));
}

TEST(ParseBootTimeTest, FindsBtimeAndRejectsGarbage) {
  auto ok = ParseBootTime("cpu  1 2 3\nintr 5\nbtime 1764140000\nprocesses 9\n");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 1764140000u);
  EXPECT_FALSE(ParseBootTime("cpu 1 2 3\n"));
  EXPECT_FALSE(ParseBootTime("btime soon\n"));
  EXPECT_FALSE(ParseBootTime("btime \n"));
  EXPECT_FALSE(ParseBootTime(""));
}

TEST(ProcessCollectorTest, ValuesOfThisProcessArePlausible) {
  const auto families = ProcessCollector().Collect();
  std::map<std::string, prometheus::MetricFamily> by_name;
  for (const auto& f : families) by_name[f.name] = f;
  for (const char* name :
       {"process_cpu_seconds_total", "process_resident_memory_bytes",
        "process_virtual_memory_bytes", "process_virtual_memory_max_bytes", "process_open_fds",
        "process_max_fds", "process_start_time_seconds"}) {
    ASSERT_TRUE(by_name.count(name)) << name;
    ASSERT_EQ(by_name[name].metric.size(), 1u) << name;
  }
  auto gauge = [&](const char* n) { return by_name[n].metric[0].gauge.value; };
  EXPECT_EQ(by_name["process_cpu_seconds_total"].type, prometheus::MetricType::Counter);
  EXPECT_GE(by_name["process_cpu_seconds_total"].metric[0].counter.value, 0);
  EXPECT_GT(gauge("process_resident_memory_bytes"), 0);
  EXPECT_GE(gauge("process_virtual_memory_bytes"), gauge("process_resident_memory_bytes"));
  EXPECT_GE(gauge("process_open_fds"), 3);  // stdin, stdout, stderr at least
  EXPECT_GE(gauge("process_max_fds"), gauge("process_open_fds"));
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(gauge("process_start_time_seconds"), now + 1);
  EXPECT_GT(gauge("process_start_time_seconds"), now - 3600);
}

}  // namespace
}  // namespace berth::shim
