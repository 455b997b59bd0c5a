#include "clientgo-shim/base/log.h"

#include <execinfo.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <mutex>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace berth::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::kInfo)};
std::atomic<int> g_encoder{static_cast<int>(Encoder::kJson)};
std::atomic<int> g_time_encoding{static_cast<int>(TimeEncoding::kEpoch)};
std::atomic<int> g_stacktrace{static_cast<int>(Options::Stacktrace::kError)};
std::mutex g_write_mu;
Sink g_sink;  // guarded by g_write_mu; empty = stderr

// The fields of the ScopedFields alive on this thread, outermost first.
thread_local Fields t_context;

const char* LevelName(Level level, bool capital) {
  switch (level) {
    case Level::kDebug: return capital ? "DEBUG" : "debug";
    case Level::kInfo: return capital ? "INFO" : "info";
    case Level::kWarn: return capital ? "WARN" : "warn";
    case Level::kError: return capital ? "ERROR" : "error";
  }
  return capital ? "INFO" : "info";
}

bool WantsStacktrace(Options::Stacktrace threshold, Level level) {
  switch (threshold) {
    case Options::Stacktrace::kInfo: return level >= Level::kInfo;
    case Options::Stacktrace::kWarn: return level >= Level::kWarn;
    case Options::Stacktrace::kError: return level >= Level::kError;
    case Options::Stacktrace::kNever: return false;
  }
  return false;
}

// CurrentStacktrace: the calling thread's frames, one per line, without the logger's own.
std::string CurrentStacktrace() {
  void* frames[64];
  const int n = backtrace(frames, 64);
  constexpr int kOwnFrames = 2;  // CurrentStacktrace, Write
  std::unique_ptr<char*, decltype(&std::free)> symbols(backtrace_symbols(frames, n), &std::free);
  std::string out;
  for (int i = kOwnFrames; i < n; ++i) {
    if (!out.empty()) out += '\n';
    out += symbols ? symbols.get()[i] : "?";
  }
  return out;
}

std::string ShortestFixed(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

// CalendarTime renders UTC time as Go's layouts for iso8601 (millis, "Z"), rfc3339 (seconds) and
// rfc3339nano (trailing zeros of the fraction trimmed).
std::string CalendarTime(TimeEncoding encoding, long long unix_nanos) {
  long long secs = unix_nanos / 1000000000LL;
  long long frac = unix_nanos % 1000000000LL;
  if (frac < 0) {
    frac += 1000000000LL;
    --secs;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out = date;
  char digits[16];
  switch (encoding) {
    case TimeEncoding::kIso8601:
      std::snprintf(digits, sizeof(digits), ".%03lld", frac / 1000000LL);
      out += digits;
      break;
    case TimeEncoding::kRfc3339Nano:
      if (frac != 0) {
        std::snprintf(digits, sizeof(digits), ".%09lld", frac);
        std::string f = digits;
        while (f.back() == '0') f.pop_back();
        out += f;
      }
      break;
    default:
      break;
  }
  return out + "Z";
}

template <typename Writer>
void WriteTime(Writer& w, TimeEncoding encoding, long long unix_nanos) {
  switch (encoding) {
    case TimeEncoding::kEpoch: w.Double(static_cast<double>(unix_nanos) / 1e9); return;
    case TimeEncoding::kMillis: w.Double(static_cast<double>(unix_nanos) / 1e6); return;
    case TimeEncoding::kNanos: w.Int64(unix_nanos); return;
    default: {
      const std::string s = CalendarTime(encoding, unix_nanos);
      w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    }
  }
}

std::string ConsoleTime(TimeEncoding encoding, long long unix_nanos) {
  switch (encoding) {
    case TimeEncoding::kEpoch: return ShortestFixed(static_cast<double>(unix_nanos) / 1e9);
    case TimeEncoding::kMillis: return ShortestFixed(static_cast<double>(unix_nanos) / 1e6);
    case TimeEncoding::kNanos: return std::to_string(unix_nanos);
    default: return CalendarTime(encoding, unix_nanos);
  }
}

template <typename Writer>
void WriteString(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

}  // namespace

Sink SetSink(Sink sink) {
  std::lock_guard lock(g_write_mu);
  std::swap(g_sink, sink);
  return sink;
}

void Configure(const Options& options) {
  g_level.store(static_cast<int>(options.level));
  g_encoder.store(static_cast<int>(options.encoder));
  g_time_encoding.store(static_cast<int>(options.time_encoding));
  g_stacktrace.store(static_cast<int>(options.stacktrace_level));
}

Options CurrentOptions() {
  Options o;
  o.level = static_cast<Level>(g_level.load());
  o.encoder = static_cast<Encoder>(g_encoder.load());
  o.time_encoding = static_cast<TimeEncoding>(g_time_encoding.load());
  o.stacktrace_level = static_cast<Options::Stacktrace>(g_stacktrace.load());
  return o;
}

void SetLevel(Level level) { g_level.store(static_cast<int>(level)); }

bool ParseLevel(std::string_view text, Level& out) {
  if (text == "debug") out = Level::kDebug;
  else if (text == "info") out = Level::kInfo;
  else if (text == "warn" || text == "warning") out = Level::kWarn;
  else if (text == "error") out = Level::kError;
  else return false;
  return true;
}

bool Enabled(Level level) { return static_cast<int>(level) >= g_level.load(); }

ScopedFields::ScopedFields(Fields fields) : previous_size_(t_context.size()) {
  for (auto& f : fields) t_context.push_back(std::move(f));
}

ScopedFields::~ScopedFields() { t_context.resize(previous_size_); }

std::string FormatLineWith(const Options& options, Level level, long long unix_nanos, std::string_view logger,
                           std::string_view message, const Fields& fields, std::string_view stacktrace) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  if (options.encoder == Encoder::kConsole) {
    // zap's console encoder: time, LEVEL, logger, message tab-separated, then the fields as JSON,
    // then the stack trace on the lines below.
    std::string line = ConsoleTime(options.time_encoding, unix_nanos);
    line += '\t';
    line += LevelName(level, /*capital=*/true);
    if (!logger.empty()) {
      line += '\t';
      line += logger;
    }
    line += '\t';
    line += message;
    if (!fields.empty()) {
      w.StartObject();
      for (const auto& [k, v] : fields) {
        WriteString(w, k);
        WriteString(w, v);
      }
      w.EndObject();
      line += '\t';
      line.append(buf.GetString(), buf.GetSize());
    }
    if (!stacktrace.empty()) {
      line += '\n';
      line += stacktrace;
    }
    return line;
  }
  w.StartObject();
  w.Key("level");
  w.String(LevelName(level, /*capital=*/false));
  w.Key("ts");
  WriteTime(w, options.time_encoding, unix_nanos);
  w.Key("logger");
  WriteString(w, logger);
  w.Key("msg");
  WriteString(w, message);
  for (const auto& [k, v] : fields) {
    WriteString(w, k);
    WriteString(w, v);
  }
  if (!stacktrace.empty()) {
    w.Key("stacktrace");
    WriteString(w, stacktrace);
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string FormatLine(Level level, double ts, std::string_view logger, std::string_view message,
                       const Fields& fields) {
  return FormatLineWith(Options{}, level, static_cast<long long>(ts * 1e9), logger, message, fields);
}

void Write(Level level, std::string_view logger, std::string_view message, const Fields& fields) {
  if (!Enabled(level)) return;
  const Options options = CurrentOptions();
  const long long now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  const std::string stack = WantsStacktrace(options.stacktrace_level, level) ? CurrentStacktrace() : std::string();
  std::string line;
  if (t_context.empty()) {
    line = FormatLineWith(options, level, now, logger, message, fields, stack);
  } else {
    Fields all = t_context;
    all.insert(all.end(), fields.begin(), fields.end());
    line = FormatLineWith(options, level, now, logger, message, all, stack);
  }
  std::lock_guard lock(g_write_mu);
  if (g_sink) {
    g_sink(line);
    return;
  }
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace berth::log
