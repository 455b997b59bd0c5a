// clientgo-shim/base/log_flags.cc — see log_flags.h.
#include "clientgo-shim/base/log_flags.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "clientgo-shim/base/go_bool.h"

namespace berth::log {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// ParseZapLevel: zap's level names (plus warn, which --log-level always took) or a positive
// integer V-level.
std::optional<Level> ParseZapLevel(const std::string& value) {
  Level level;
  if (ParseLevel(Lower(value), level)) return level;
  int v = 0;
  const char* end = value.data() + value.size();
  auto r = std::from_chars(value.data(), end, v);
  if (r.ec == std::errc() && r.ptr == end && v > 0) return Level::kDebug;
  return std::nullopt;
}

berth::Error Invalid(const std::string& flag, const std::string& value, const std::string& reason) {
  return berth::Error{ErrorCode::kInvalidArgument,
               "invalid value \"" + value + "\" for flag " + flag + ": " + reason + " \"" + value + "\"",
               0, {}, {}};
}

}  // namespace

Result<std::vector<std::string>> ApplyLogFlags(const std::vector<std::string>& args, Options& options) {
  std::vector<std::string> rest;
  bool devel = false;
  std::optional<Level> level;
  std::optional<Encoder> encoder;
  std::optional<TimeEncoding> time_encoding;
  std::optional<Options::Stacktrace> stacktrace;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string name = a, value;
    bool has_value = false;
    if (const size_t eq = a.find('='); a.starts_with("--") && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (name == "--zap-devel") {
      // Go's flag package: named alone is true, `=` takes strconv.ParseBool's forms.
      if (!has_value) devel = true;
      else if (auto parsed = ParseGoBool(value)) devel = *parsed;
      else return MakeError(ErrorCode::kInvalidArgument, "invalid boolean value \"" + value + "\" for --zap-devel");
      continue;
    }
    if (name != "--zap-log-level" && name != "--log-level" && name != "--zap-encoder" &&
        name != "--zap-time-encoding" && name != "--zap-stacktrace-level") {
      rest.push_back(a);
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) return MakeError(ErrorCode::kInvalidArgument, "flag needs an argument: " + name);
      value = args[++i];
    }
    const std::string v = Lower(value);
    if (name == "--zap-log-level" || name == "--log-level") {
      level = ParseZapLevel(value);
      if (!level) return std::unexpected(Invalid(name, value, "invalid log level"));
    } else if (name == "--zap-encoder") {
      if (v == "json") encoder = Encoder::kJson;
      else if (v == "console") encoder = Encoder::kConsole;
      else return std::unexpected(Invalid(name, value, "invalid encoder value"));
    } else if (name == "--zap-time-encoding") {
      if (v == "epoch") time_encoding = TimeEncoding::kEpoch;
      else if (v == "millis") time_encoding = TimeEncoding::kMillis;
      else if (v == "nanos") time_encoding = TimeEncoding::kNanos;
      else if (v == "iso8601") time_encoding = TimeEncoding::kIso8601;
      else if (v == "rfc3339") time_encoding = TimeEncoding::kRfc3339;
      else if (v == "rfc3339nano") time_encoding = TimeEncoding::kRfc3339Nano;
      else return std::unexpected(Invalid(name, value, "invalid time-encoding value"));
    } else {  // --zap-stacktrace-level
      if (v == "info") stacktrace = Options::Stacktrace::kInfo;
      else if (v == "error") stacktrace = Options::Stacktrace::kError;
      else if (v == "panic") stacktrace = Options::Stacktrace::kNever;
      else return std::unexpected(Invalid(name, value, "invalid stacktrace level"));
    }
  }
  if (devel) {
    options.encoder = Encoder::kConsole;
    options.level = Level::kDebug;
    options.stacktrace_level = Options::Stacktrace::kWarn;
    options.time_encoding = TimeEncoding::kIso8601;
  }
  if (level) options.level = *level;
  if (encoder) options.encoder = *encoder;
  if (time_encoding) options.time_encoding = *time_encoding;
  if (stacktrace) options.stacktrace_level = *stacktrace;
  return rest;
}

std::string LogFlagsUsage() {
  return "  --zap-devel                          Development defaults: console encoder, debug level,\n"
         "                                       stack traces from warn (default false: json, info, error)\n"
         "  --zap-encoder encoder                json or console (default json)\n"
         "  --zap-log-level level                debug, info, warn, error, or an integer > 0 (debug)\n"
         "                                       (default info)\n"
         "  --zap-stacktrace-level level         info, error or panic (none) (default error)\n"
         "  --zap-time-encoding time-encoding    epoch, millis, nanos, iso8601, rfc3339 or rfc3339nano\n"
         "                                       (default epoch)\n"
         "  --log-level string                   Same as --zap-log-level\n";
}

}  // namespace berth::log
