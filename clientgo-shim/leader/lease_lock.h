// clientgo-shim/leader/lease_lock.h
//
// LeaseLock: client-go's resourcelock.LeaseLock — the leader-election record stored in a
// coordination.k8s.io/v1 Lease. Get reads it (and remembers the Lease for its resourceVersion);
// Create and Update write it, Update with the remembered resourceVersion so a concurrent writer
// makes it fail with kConflict instead of being overwritten.
// Lease spec fields: holderIdentity, leaseDurationSeconds, acquireTime, renewTime (MicroTime,
// "2006-01-02T15:04:05.000000Z"), leaseTransitions.
// Thread-safety: one elector thread at a time (the remembered Lease is guarded, but the
// get-then-update protocol assumes a single caller).
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/result.h"
#include "clientgo-shim/client/object_client.h"

namespace berth::shim {

// LeaderElectionRecord: the election state, as client-go's resourcelock.LeaderElectionRecord.
struct LeaderElectionRecord {
  std::string holder_identity;
  int lease_duration_seconds = 0;
  std::optional<TimePoint> acquire_time;
  std::optional<TimePoint> renew_time;
  int lease_transitions = 0;
  bool operator==(const LeaderElectionRecord&) const = default;
};

// RecordFromLease reads the record from a Lease object. Missing fields are zero/empty; a
// malformed MicroTime is ignored (treated as absent), as a nil time would be.
LeaderElectionRecord RecordFromLease(const json::Value& lease);

class LeaseLock {
 public:
  LeaseLock(ObjectClient client, std::string ns, std::string name);

  // Get reads the Lease. Errors: kNotFound when it does not exist; others from the client.
  Result<LeaderElectionRecord> Get();
  // Create creates the Lease holding `record`. Errors: kAlreadyExists when someone was first.
  Status Create(const LeaderElectionRecord& record);
  // Update writes `record` over the Lease last seen by Get/Create/Update.
  // Errors: kConflict when the Lease changed since; kInternal when it was never read.
  Status Update(const LeaderElectionRecord& record);
  // Describe is "namespace/name".
  std::string Describe() const { return ns_ + "/" + name_; }
  const std::string& name() const { return name_; }
  // Uid is metadata.uid of the Lease as last read or written ("" before the first).
  std::string Uid();

 private:
  json::Document ToLease(const LeaderElectionRecord& record, const json::Value* base) const;
  ResourceRef Ref() const;

  ObjectClient client_;
  const std::string ns_;
  const std::string name_;
  std::mutex mu_;
  std::optional<json::Document> last_;  // the Lease as last read or written
};

}  // namespace berth::shim
