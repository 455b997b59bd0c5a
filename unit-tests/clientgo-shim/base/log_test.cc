#include "clientgo-shim/base/log.h"

#include <gtest/gtest.h>

#include <thread>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log_capture.h"

namespace berth::log {
namespace {

TEST(LogTest, LinesAreJsonWithLevelLoggerMessageAndEscapedFields) {
  std::string line = FormatLine(Level::kWarn, 1.5, "reservation", "say \"hi\"\n", {{"name", "r\\1"}});
  auto doc = json::Parse(line);
  ASSERT_TRUE(doc.has_value()) << line;
  EXPECT_EQ(json::GetString(*doc, {"level"}), "warn");
  EXPECT_EQ(json::GetString(*doc, {"logger"}), "reservation");
  EXPECT_EQ(json::GetString(*doc, {"msg"}), "say \"hi\"\n");
  EXPECT_EQ(json::GetString(*doc, {"name"}), "r\\1");
  EXPECT_DOUBLE_EQ((*doc)["ts"].GetDouble(), 1.5);
}

TEST(LogTest, LevelsFilterAndParse) {
  Level l;
  EXPECT_TRUE(ParseLevel("debug", l));
  EXPECT_EQ(l, Level::kDebug);
  EXPECT_FALSE(ParseLevel("loud", l));
  SetLevel(Level::kError);
  EXPECT_FALSE(Enabled(Level::kInfo));
  EXPECT_TRUE(Enabled(Level::kError));
  SetLevel(Level::kInfo);
  EXPECT_TRUE(Enabled(Level::kInfo));
}


// 2026-11-26T10:30:00.123456789Z
constexpr long long kNanos = 1795689000123456789LL;

Options With(Encoder encoder, TimeEncoding time) {
  Options o;
  o.encoder = encoder;
  o.time_encoding = time;
  return o;
}

TEST(LogTest, ConsoleEncoderWritesZapsTabSeparatedLine) {
  EXPECT_EQ(FormatLineWith(With(Encoder::kConsole, TimeEncoding::kIso8601), Level::kInfo, kNanos, "reservation",
                           "Starting workers", {{"controller", "reservation"}, {"worker count", "4"}}),
            "2026-11-26T10:30:00.123Z\tINFO\treservation\tStarting workers\t"
            "{\"controller\":\"reservation\",\"worker count\":\"4\"}");
  EXPECT_EQ(FormatLineWith(With(Encoder::kConsole, TimeEncoding::kRfc3339), Level::kError, kNanos, "", "boom", {},
                           "frame 1\nframe 2"),
            "2026-11-26T10:30:00Z\tERROR\tboom\nframe 1\nframe 2");
  EXPECT_EQ(FormatLineWith(With(Encoder::kConsole, TimeEncoding::kEpoch), Level::kWarn, 1500000000LL, "x", "m", {}),
            "1.5\tWARN\tx\tm");
}

TEST(LogTest, JsonTimeEncodings) {
  auto ts = [](TimeEncoding t) {
    auto doc = json::Parse(FormatLineWith(With(Encoder::kJson, t), Level::kInfo, kNanos, "l", "m", {}));
    EXPECT_TRUE(doc.has_value());
    return std::move(*doc);
  };
  EXPECT_NEAR(ts(TimeEncoding::kEpoch)["ts"].GetDouble(), 1795689000.123456789, 1e-6);
  EXPECT_NEAR(ts(TimeEncoding::kMillis)["ts"].GetDouble(), 1795689000123.456789, 1e-3);
  EXPECT_EQ(ts(TimeEncoding::kNanos)["ts"].GetInt64(), kNanos);
  EXPECT_EQ(json::GetString(ts(TimeEncoding::kIso8601), {"ts"}), "2026-11-26T10:30:00.123Z");
  EXPECT_EQ(json::GetString(ts(TimeEncoding::kRfc3339), {"ts"}), "2026-11-26T10:30:00Z");
  EXPECT_EQ(json::GetString(ts(TimeEncoding::kRfc3339Nano), {"ts"}), "2026-11-26T10:30:00.123456789Z");
  auto trimmed = json::Parse(FormatLineWith(With(Encoder::kJson, TimeEncoding::kRfc3339Nano), Level::kInfo,
                                            1795689000120000000LL, "l", "m", {}));
  EXPECT_EQ(json::GetString(*trimmed, {"ts"}), "2026-11-26T10:30:00.12Z");
  auto whole = json::Parse(FormatLineWith(With(Encoder::kJson, TimeEncoding::kRfc3339Nano), Level::kInfo,
                                          1795689000000000000LL, "l", "m", {}));
  EXPECT_EQ(json::GetString(*whole, {"ts"}), "2026-11-26T10:30:00Z");
}

// ScopedOptions configures the logger and puts the defaults back.
class ScopedOptions {
 public:
  explicit ScopedOptions(const Options& o) { Configure(o); }
  ~ScopedOptions() { Configure(Options{}); }
};

TEST(LogTest, StacktraceFromTheConfiguredLevelOn) {
  testing::LogCapture capture;
  Error("t", "default error");
  Warn("t", "default warn");
  {
    Options o;
    o.stacktrace_level = Options::Stacktrace::kInfo;
    ScopedOptions scoped(o);
    Info("t", "info with info threshold");
  }
  {
    Options o;
    o.stacktrace_level = Options::Stacktrace::kNever;
    ScopedOptions scoped(o);
    Error("t", "error with panic threshold");
  }
  EXPECT_FALSE(capture.Matching("default error").at(0).Get("stacktrace").empty());
  EXPECT_EQ(capture.Matching("default warn").at(0).Get("stacktrace"), "");
  EXPECT_FALSE(capture.Matching("info with info threshold").at(0).Get("stacktrace").empty());
  EXPECT_EQ(capture.Matching("error with panic threshold").at(0).Get("stacktrace"), "");
}

TEST(LogTest, ConfiguredEncoderReachesTheSink) {
  std::vector<std::string> lines;
  Sink previous = SetSink([&](std::string_view l) { lines.emplace_back(l); });
  {
    ScopedOptions scoped(With(Encoder::kConsole, TimeEncoding::kRfc3339));
    Info("reservation", "hello", {{"k", "v"}});
  }
  SetSink(std::move(previous));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].ends_with("Z\tINFO\treservation\thello\t{\"k\":\"v\"}")) << lines[0];
}

TEST(LogTest, ScopedFieldsTagThisThreadsLinesUntilTheyEnd) {
  testing::LogCapture capture;
  {
    ScopedFields outer(Fields{{"controller", "reservation"}, {"reconcileID", "id-1"}});
    Info("t", "inside", {{"own", "x"}});
    {
      ScopedFields inner(Fields{{"step", "2"}});
      Info("t", "nested");
    }
    std::thread([] { Info("t", "other thread"); }).join();
    Info("t", "after nested");
  }
  Info("t", "outside");
  auto inside = capture.Matching("inside").at(0);
  EXPECT_EQ(inside.Get("controller"), "reservation");
  EXPECT_EQ(inside.Get("reconcileID"), "id-1");
  EXPECT_EQ(inside.Get("own"), "x");
  EXPECT_LT(inside.raw.find("reconcileID"), inside.raw.find("own"));  // scope fields first, as WithValues
  EXPECT_EQ(capture.Matching("nested").at(0).Get("step"), "2");
  EXPECT_EQ(capture.Matching("nested").at(0).Get("reconcileID"), "id-1");
  EXPECT_EQ(capture.Matching("after nested").at(0).Get("step"), "");
  EXPECT_EQ(capture.Matching("other thread").at(0).Get("reconcileID"), "");
  EXPECT_EQ(capture.Matching("outside").at(0).Get("controller"), "");
}

}  // namespace
}  // namespace berth::log
