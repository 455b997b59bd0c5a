// clientgo-shim/base/rate_limited_log.h
//
// RateLimitedLog: a failure that repeats (a wrong CA, a 401, a watch that keeps failing) is
// logged once per key per interval instead of on every attempt, so the log stays readable and
// nothing is hidden: the first line after a quiet period carries "suppressed": N, the number of
// identical lines dropped since the previous one. The key names what makes two failures "the
// same" (e.g. server + reason); the text of the line may differ between them.
// Time comes from an injectable function so tests never sleep.
// Thread-safety: Write from any thread.
// Example:
//   RateLimitedLog failures(std::chrono::seconds(30));
//   failures.Write(log::Level::kError, "transport", server + "|tls|" + why,
//                  "TLS handshake with the API server failed",
//                  {{"server", server}, {"reason", why}});
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "clientgo-shim/base/log.h"

namespace berth::log {

class RateLimitedLog {
 public:
  using Now = std::function<std::chrono::steady_clock::time_point()>;
  // `interval` <= 0 logs every line. `now` defaults to steady_clock::now.
  explicit RateLimitedLog(std::chrono::milliseconds interval = std::chrono::seconds(30),
                          Now now = {});

  // Write logs the line unless `key` was logged less than `interval` ago (then it only counts
  // it). Lines below the process log level are neither written nor counted. Returns whether a
  // line was written.
  bool Write(Level level, std::string_view logger, std::string_view key, std::string_view message,
             Fields fields = {});

 private:
  struct Entry {
    std::chrono::steady_clock::time_point last;
    uint64_t suppressed = 0;
  };
  // Keys are few (servers × reasons); past this many the oldest quiet ones are forgotten.
  static constexpr size_t kMaxKeys = 1024;

  std::chrono::milliseconds interval_;
  Now now_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace berth::log
