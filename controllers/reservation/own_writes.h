// controllers/reservation/own_writes.h
//
// The lifecycle controller's record of its own status writes, so that the watch event carrying
// exactly the resourceVersion it just wrote (the "echo") is not reconciled again: that version
// holds nothing the controller did not just decide. Pods, nodes and deadlines queue the key
// through their own handlers.
// The echo may be skipped only if no reconcile decided on an older cached version while the
// write was in flight: such a pass compared the pods against the status *before* our write and
// may have found nothing to do (e.g. a consumer pod that went away), so the echo is then the only
// event that shows the written status disagreeing with the pods. Read() detects that stale read
// and drops the record, so the echo is reconciled.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "clientgo-shim/cache/cached_object.h"

namespace berth::controllers {

class OwnWrites {
 public:
  // Wrote records that our status write of `name` produced `resource_version`.
  void Wrote(const std::string& name, std::string_view resource_version);
  // IsEcho: `resource_version` is exactly our last recorded write of `name` (the update event may
  // be skipped). Consumes the record: any later version is someone else's news.
  bool IsEcho(const std::string& name, std::string_view resource_version);
  // Read returns `read()` (the cached object `name`, possibly null), called with the records
  // locked so an echo cannot be consumed between the read and the check. When our last write of
  // `name` is not what the read returned (the cache is behind it), the record is dropped so the
  // echo is reconciled.
  shim::ObjectPtr Read(const std::string& name, const std::function<shim::ObjectPtr()>& read);
  // Forget drops the record of `name` (the reservation is gone).
  void Forget(const std::string& name);
  // Size is the number of records (for tests).
  size_t Size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::string> last_write_;  // name → resourceVersion
};

}  // namespace berth::controllers
