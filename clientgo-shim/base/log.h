// clientgo-shim/base/log.h
//
// Structured logging as controller-runtime's zap logger writes it. Default (production): one JSON
// object per line on stderr, {"level","ts","logger","msg", key: value..., "stacktrace"} with ts in
// epoch seconds and a stack trace on error lines. Configure() switches to zap's console encoder
// (tab-separated "time LEVEL logger msg {fields}"), other time encodings, levels and stack-trace
// levels (--zap-* flags: log_flags.h). Thread-safe; a line is written with one call.
// Example:  log::Info("reservation", "reservation expired", {{"reservation", name}, {"lag_ms", "12"}});
// ScopedFields adds fields to every line the current thread writes while it lives (a reconcile's
// controller and reconcileID).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

using Fields = std::vector<std::pair<std::string, std::string>>;

enum class Encoder { kJson, kConsole };
// zap's time encoders: epoch (float seconds), millis (float), nanos (integer), iso8601
// (2006-01-02T15:04:05.000Z0700), rfc3339, rfc3339nano; all in UTC.
enum class TimeEncoding { kEpoch, kMillis, kNanos, kIso8601, kRfc3339, kRfc3339Nano };

// Options: the whole logger configuration; each field says its default (zap's production config).
struct Options {
  Level level = Level::kInfo;
  Encoder encoder = Encoder::kJson;
  TimeEncoding time_encoding = TimeEncoding::kEpoch;
  // Lines at this level or above carry a "stacktrace". kNever: none (zap's "panic": berth never
  // logs at panic level).
  enum class Stacktrace { kInfo, kWarn, kError, kNever };
  Stacktrace stacktrace_level = Stacktrace::kError;
};

// Configure replaces the whole configuration (the level included).
void Configure(const Options& options);
Options CurrentOptions();

// SetLevel sets the minimum level written. Default: kInfo.
void SetLevel(Level level);
// ParseLevel accepts debug, info, warn (or warning), error; false on anything else.
bool ParseLevel(std::string_view text, Level& out);
bool Enabled(Level level);

// Write emits one line if `level` is enabled. `logger` names the component ("reservation").
void Write(Level level, std::string_view logger, std::string_view message, const Fields& fields = {});

inline void Debug(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kDebug, logger, msg, f); }
inline void Info(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kInfo, logger, msg, f); }
inline void Warn(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kWarn, logger, msg, f); }
inline void Error(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kError, logger, msg, f); }

// ScopedFields: while it lives, every line this thread writes carries `fields` (before the line's
// own), as logr's WithValues on the logger a reconcile gets. Scopes nest.
class ScopedFields {
 public:
  explicit ScopedFields(Fields fields);
  ~ScopedFields();
  ScopedFields(const ScopedFields&) = delete;
  ScopedFields& operator=(const ScopedFields&) = delete;

 private:
  size_t previous_size_;
};

// Sink receives each rendered line (no trailing newline), under the writer lock.
using Sink = std::function<void(std::string_view line)>;
// SetSink sends lines to `sink` instead of stderr (nullptr restores stderr) and returns the
// previous sink. Tests capture log output with it.
Sink SetSink(Sink sink);

// FormatLine renders a JSON line with epoch time and no stack trace (for tests). `ts` is seconds
// since the epoch.
std::string FormatLine(Level level, double ts, std::string_view logger, std::string_view message,
                       const Fields& fields);
// FormatLineWith renders a line as `options` say; `unix_nanos` is the time, `stacktrace` is added
// when not empty.
std::string FormatLineWith(const Options& options, Level level, long long unix_nanos, std::string_view logger,
                           std::string_view message, const Fields& fields, std::string_view stacktrace = {});

}  // namespace berth::log
