#include "clientgo-shim/base/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace berth::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::kInfo)};
std::mutex g_write_mu;
Sink g_sink;  // guarded by g_write_mu; empty = stderr

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
  }
  return "info";
}

}  // namespace

Sink SetSink(Sink sink) {
  std::lock_guard lock(g_write_mu);
  std::swap(g_sink, sink);
  return sink;
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

std::string FormatLine(Level level, double ts, std::string_view logger, std::string_view message,
                       const Fields& fields) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("level");
  w.String(LevelName(level));
  w.Key("ts");
  w.Double(ts);
  w.Key("logger");
  w.String(logger.data(), static_cast<rapidjson::SizeType>(logger.size()));
  w.Key("msg");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  for (const auto& [k, v] : fields) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

void Write(Level level, std::string_view logger, std::string_view message, const Fields& fields) {
  if (!Enabled(level)) return;
  double ts = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::string line = FormatLine(level, ts, logger, message, fields);
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
