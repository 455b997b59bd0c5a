// Tests for clientgo-shim/base/log_flags.h: controller-runtime's --zap-* flags.
#include "clientgo-shim/base/log_flags.h"

#include <gtest/gtest.h>

namespace berth::log {
namespace {

Result<std::vector<std::string>> Apply(std::vector<std::string> args, Options& o) { return ApplyLogFlags(args, o); }

TEST(LogFlagsTest, NoFlagsKeepZapProductionDefaultsAndOtherArgumentsInOrder) {
  Options o;
  auto rest = Apply({"--kubeconfig", "k", "--zap-encoder=console", "--leader-elect"}, o);
  ASSERT_TRUE(rest.has_value()) << rest.error().message;
  EXPECT_EQ(*rest, (std::vector<std::string>{"--kubeconfig", "k", "--leader-elect"}));
  EXPECT_EQ(o.encoder, Encoder::kConsole);
  Options d;
  ASSERT_TRUE(Apply({}, d).has_value());
  EXPECT_EQ(d.level, Level::kInfo);
  EXPECT_EQ(d.encoder, Encoder::kJson);
  EXPECT_EQ(d.time_encoding, TimeEncoding::kEpoch);
  EXPECT_EQ(d.stacktrace_level, Options::Stacktrace::kError);
}

TEST(LogFlagsTest, LevelsByNameOrPositiveIntegerInBothForms) {
  for (auto [args, want] : std::vector<std::pair<std::vector<std::string>, Level>>{
           {{"--zap-log-level=debug"}, Level::kDebug},
           {{"--zap-log-level", "error"}, Level::kError},
           {{"--zap-log-level=WARN"}, Level::kWarn},
           {{"--zap-log-level=2"}, Level::kDebug},  // V(2): berth has one debug verbosity
           {{"--log-level", "error"}, Level::kError},
           {{"--log-level=info", "--zap-log-level=debug"}, Level::kDebug}}) {
    Options o;
    auto rest = Apply(args, o);
    ASSERT_TRUE(rest.has_value()) << args[0] << ": " << rest.error().message;
    EXPECT_TRUE(rest->empty());
    EXPECT_EQ(o.level, want) << args[0];
  }
}

TEST(LogFlagsTest, MalformedValuesAreRefusedWithUpstreamsReason) {
  for (auto [arg, message] : std::vector<std::pair<std::string, std::string>>{
           {"--zap-log-level=loud", "invalid value \"loud\" for flag --zap-log-level: invalid log level \"loud\""},
           {"--zap-log-level=0", "invalid value \"0\" for flag --zap-log-level: invalid log level \"0\""},
           {"--zap-log-level=-1", "invalid value \"-1\" for flag --zap-log-level: invalid log level \"-1\""},
           {"--zap-log-level=2x", "invalid value \"2x\" for flag --zap-log-level: invalid log level \"2x\""},
           {"--log-level=verbose", "invalid value \"verbose\" for flag --log-level: invalid log level \"verbose\""},
           {"--zap-encoder=text", "invalid value \"text\" for flag --zap-encoder: invalid encoder value \"text\""},
           {"--zap-time-encoding=unix",
            "invalid value \"unix\" for flag --zap-time-encoding: invalid time-encoding value \"unix\""},
           {"--zap-stacktrace-level=warn",
            "invalid value \"warn\" for flag --zap-stacktrace-level: invalid stacktrace level \"warn\""},
           {"--zap-devel=maybe", "invalid boolean value \"maybe\" for --zap-devel"},
           {"--zap-encoder", "flag needs an argument: --zap-encoder"}}) {
    Options o;
    auto rest = Apply({arg}, o);
    ASSERT_FALSE(rest.has_value()) << arg;
    EXPECT_EQ(rest.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(rest.error().message, message);
  }
}

TEST(LogFlagsTest, TimeEncodingsAndStacktraceLevels) {
  for (auto [value, want] : std::vector<std::pair<std::string, TimeEncoding>>{
           {"epoch", TimeEncoding::kEpoch}, {"millis", TimeEncoding::kMillis}, {"nanos", TimeEncoding::kNanos},
           {"ISO8601", TimeEncoding::kIso8601}, {"rfc3339", TimeEncoding::kRfc3339},
           {"rfc3339nano", TimeEncoding::kRfc3339Nano}}) {
    Options o;
    ASSERT_TRUE(Apply({"--zap-time-encoding", value}, o).has_value()) << value;
    EXPECT_EQ(o.time_encoding, want) << value;
  }
  for (auto [value, want] : std::vector<std::pair<std::string, Options::Stacktrace>>{
           {"info", Options::Stacktrace::kInfo}, {"error", Options::Stacktrace::kError},
           {"panic", Options::Stacktrace::kNever}}) {
    Options o;
    ASSERT_TRUE(Apply({"--zap-stacktrace-level=" + value}, o).has_value()) << value;
    EXPECT_EQ(o.stacktrace_level, want) << value;
  }
}

TEST(LogFlagsTest, DevelSetsDevelopmentDefaultsThatExplicitFlagsOverrideInAnyOrder) {
  Options o;
  ASSERT_TRUE(Apply({"--zap-devel"}, o).has_value());
  EXPECT_EQ(o.encoder, Encoder::kConsole);
  EXPECT_EQ(o.level, Level::kDebug);
  EXPECT_EQ(o.stacktrace_level, Options::Stacktrace::kWarn);
  EXPECT_EQ(o.time_encoding, TimeEncoding::kIso8601);
  Options p;
  ASSERT_TRUE(Apply({"--zap-log-level=info", "--zap-encoder=json", "--zap-devel=true"}, p).has_value());
  EXPECT_EQ(p.level, Level::kInfo);
  EXPECT_EQ(p.encoder, Encoder::kJson);
  EXPECT_EQ(p.stacktrace_level, Options::Stacktrace::kWarn);
  Options q;
  ASSERT_TRUE(Apply({"--zap-devel", "--zap-devel=false"}, q).has_value());
  EXPECT_EQ(q.encoder, Encoder::kJson);
  EXPECT_EQ(q.level, Level::kInfo);
}

TEST(LogFlagsTest, UsageNamesEveryFlag) {
  const std::string usage = LogFlagsUsage();
  for (const char* flag : {"--zap-devel", "--zap-encoder", "--zap-log-level", "--zap-stacktrace-level",
                           "--zap-time-encoding", "--log-level"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace berth::log
