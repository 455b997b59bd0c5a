// clientgo-shim/base/log.h
//
// Structured logging: one JSON object per line on stderr, like controller-runtime's zap
// production encoder ({"level","ts","logger","msg", key: value...}). The level is process-wide
// and settable (--log-level / --zap-log-level). Thread-safe; a line is written with one call.
// Example:  log::Info("reservation expired", {{"reservation", name}, {"lag_ms", "12"}});
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace berth::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

using Fields = std::vector<std::pair<std::string, std::string>>;

// SetLevel sets the minimum level written. Default: kInfo.
void SetLevel(Level level);
// ParseLevel accepts debug, info, warn, error; nullopt-like false on anything else.
bool ParseLevel(std::string_view text, Level& out);
bool Enabled(Level level);

// Write emits one line if `level` is enabled. `logger` names the component ("reservation").
void Write(Level level, std::string_view logger, std::string_view message, const Fields& fields = {});

inline void Debug(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kDebug, logger, msg, f); }
inline void Info(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kInfo, logger, msg, f); }
inline void Warn(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kWarn, logger, msg, f); }
inline void Error(std::string_view logger, std::string_view msg, const Fields& f = {}) { Write(Level::kError, logger, msg, f); }

// Sink receives each rendered line (no trailing newline), under the writer lock.
using Sink = std::function<void(std::string_view line)>;
// SetSink sends lines to `sink` instead of stderr (nullptr restores stderr) and returns the
// previous sink. Tests capture log output with it.
Sink SetSink(Sink sink);

// FormatLine renders a line without writing it (for tests). `ts` is seconds since the epoch.
std::string FormatLine(Level level, double ts, std::string_view logger, std::string_view message,
                       const Fields& fields);

}  // namespace berth::log
