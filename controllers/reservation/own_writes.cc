// controllers/reservation/own_writes.cc — see own_writes.h.
#include "controllers/reservation/own_writes.h"

namespace berth::controllers {

void OwnWrites::Wrote(const std::string& name, std::string_view resource_version) {
  if (resource_version.empty()) return;
  std::lock_guard lock(mu_);
  last_write_[name] = std::string(resource_version);
}

bool OwnWrites::IsEcho(const std::string& name, std::string_view resource_version) {
  std::lock_guard lock(mu_);
  auto it = last_write_.find(name);
  if (it == last_write_.end()) return false;
  bool echo = !resource_version.empty() && it->second == resource_version;
  last_write_.erase(it);
  return echo;
}

shim::ObjectPtr OwnWrites::Read(const std::string& name, const std::function<shim::ObjectPtr()>& read) {
  std::lock_guard lock(mu_);
  // Lock order: mu_ before the store's own lock. The store calls handlers (IsEcho) only after
  // releasing its lock, so this cannot deadlock.
  shim::ObjectPtr obj = read();
  auto it = last_write_.find(name);
  if (it != last_write_.end() && (!obj || obj->ResourceVersion() != it->second)) {
    // The cache is behind our write (or the object is gone): this pass decides on the status
    // before our write, so the echo must be reconciled, not skipped.
    last_write_.erase(it);
  }
  return obj;
}

void OwnWrites::Forget(const std::string& name) {
  std::lock_guard lock(mu_);
  last_write_.erase(name);
}

size_t OwnWrites::Size() const {
  std::lock_guard lock(mu_);
  return last_write_.size();
}

}  // namespace berth::controllers
