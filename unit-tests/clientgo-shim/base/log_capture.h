// unit-tests/clientgo-shim/base/log_capture.h
//
// LogCapture: collects every log line written while it lives (log::SetSink) and restores the
// previous sink afterwards. Lines are parsed back from JSON so tests assert on fields.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"

namespace berth::testing {

// LogLine: one captured line; `fields` holds every string member (level, logger, msg, …).
struct LogLine {
  std::string raw;
  std::map<std::string, std::string> fields;
  std::string Get(const std::string& key) const {
    auto it = fields.find(key);
    return it == fields.end() ? std::string() : it->second;
  }
};

class LogCapture {
 public:
  LogCapture() {
    previous_ = log::SetSink([this](std::string_view line) {
      LogLine parsed;
      parsed.raw = std::string(line);
      if (auto doc = json::Parse(line); doc && doc->IsObject()) {
        for (auto& m : doc->GetObject()) {
          if (m.value.IsString()) {
            parsed.fields[m.name.GetString()] = std::string(m.value.GetString(), m.value.GetStringLength());
          }
        }
      }
      {
        std::lock_guard lock(mu_);
        lines_.push_back(std::move(parsed));
      }
      cv_.notify_all();
    });
  }
  ~LogCapture() { log::SetSink(std::move(previous_)); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<LogLine> Lines() const {
    std::lock_guard lock(mu_);
    return lines_;
  }
  // Matching: the lines whose msg is `msg`.
  std::vector<LogLine> Matching(const std::string& msg) const {
    std::vector<LogLine> out;
    for (auto& l : Lines()) {
      if (l.Get("msg") == msg) out.push_back(l);
    }
    return out;
  }
  // WaitFor blocks until a line satisfies `pred` or `timeout` passes; returns that line, or an
  // empty LogLine.
  LogLine WaitFor(const std::function<bool(const LogLine&)>& pred,
                  std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mu_);
    LogLine found;
    cv_.wait_for(lock, timeout, [&] {
      for (const auto& l : lines_) {
        if (pred(l)) {
          found = l;
          return true;
        }
      }
      return false;
    });
    return found;
  }

 private:
  log::Sink previous_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<LogLine> lines_;
};

// ScopedLogLevel sets the process log level and puts back kInfo (the default) when it ends.
class ScopedLogLevel {
 public:
  explicit ScopedLogLevel(log::Level level) { log::SetLevel(level); }
  ~ScopedLogLevel() { log::SetLevel(log::Level::kInfo); }
  ScopedLogLevel(const ScopedLogLevel&) = delete;
  ScopedLogLevel& operator=(const ScopedLogLevel&) = delete;
};

}  // namespace berth::testing
