// clientgo-shim/base/rate_limited_log.cc — see rate_limited_log.h.
#include "clientgo-shim/base/rate_limited_log.h"

#include <utility>

namespace berth::log {

RateLimitedLog::RateLimitedLog(std::chrono::milliseconds interval, Now now)
    : interval_(interval), now_(now ? std::move(now) : Now([] {
                                        return std::chrono::steady_clock::now();
                                      })) {}

bool RateLimitedLog::Write(Level level, std::string_view logger, std::string_view key,
                           std::string_view message, Fields fields) {
  if (!Enabled(level)) return false;
  const auto now = now_();
  uint64_t suppressed = 0;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(std::string(key));
    if (it != entries_.end()) {
      if (interval_.count() > 0 && now - it->second.last < interval_) {
        ++it->second.suppressed;
        return false;
      }
      suppressed = std::exchange(it->second.suppressed, 0);
      it->second.last = now;
    } else {
      if (entries_.size() >= kMaxKeys) {
        // Forget the key logged longest ago; losing its suppressed count only shortens a line.
        auto oldest = entries_.begin();
        for (auto e = entries_.begin(); e != entries_.end(); ++e) {
          if (e->second.last < oldest->second.last) oldest = e;
        }
        entries_.erase(oldest);
      }
      entries_.emplace(std::string(key), Entry{now, 0});
    }
  }
  if (suppressed > 0) fields.emplace_back("suppressed", std::to_string(suppressed));
  log::Write(level, logger, message, fields);
  return true;
}

}  // namespace berth::log
