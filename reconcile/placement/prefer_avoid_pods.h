// reconcile/placement/prefer_avoid_pods.h
//
// PreferAvoidPods (the controlled-rescheduling seed): when berth evicts a pod, the node it left
// records the pod's controllerRef, and berth's scheduler gives that node the worst score for pods
// of the same controller, so the replacement does not land back where it was moved from.
// The record is the node annotation scheduler.alpha.kubernetes.io/preferAvoidPods in core/v1's
// AvoidPods wire format (the key and shape kube-scheduler's old NodePreferAvoidPods plugin read):
//   {"preferAvoidPods":[{"podSignature":{"podController":{"apiVersion":"apps/v1",
//     "kind":"ReplicaSet","name":"web-7d4f","uid":"…","controller":true}},
//     "evictionTime":"2026-11-26T10:00:00Z","reason":"BerthMigration","message":"…"}]}
// An entry counts until evictionTime + ttl; the list is bounded (oldest dropped first) and
// pruned of expired entries on every write. One entry per controller uid (a later eviction
// refreshes it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "reconcile/placement/types.h"

namespace berth::reconcile::placement {

inline constexpr std::string_view kPreferAvoidPodsAnnotation = "scheduler.alpha.kubernetes.io/preferAvoidPods";
inline constexpr std::string_view kPreferAvoidPodsReason = "BerthMigration";

struct PreferAvoidEntry {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  Time eviction_time;
  std::string reason;
  std::string message;
  bool operator==(const PreferAvoidEntry&) const = default;
};

struct PreferAvoidOptions {
  Duration ttl = std::chrono::hours(1);  // 0 disables recording and avoidance
  size_t max_entries = 32;
};

// ParsePreferAvoidPods reads the annotation value. Errors (kInvalidArgument, naming the field):
// not JSON, not an object, preferAvoidPods not a list, an entry without podSignature.podController
// kind/name/uid, an evictionTime that is not RFC 3339.
Result<std::vector<PreferAvoidEntry>> ParsePreferAvoidPods(std::string_view text);

// SerializePreferAvoidPods writes the wire format above.
std::string SerializePreferAvoidPods(const std::vector<PreferAvoidEntry>& entries);

// RecordAvoidance: `entries` without those expired at `now` or with `entry`'s uid, plus `entry`,
// capped at options.max_entries by dropping the oldest evictionTime.
std::vector<PreferAvoidEntry> RecordAvoidance(std::vector<PreferAvoidEntry> entries, PreferAvoidEntry entry,
                                              Time now, const PreferAvoidOptions& options);

// RecentlyRecorded: `entries` hold `uid`'s avoidance written less than min(ttl / 10, 1 min) before
// `now`, so another eviction from that controller need not rewrite the node (a drain evicts many
// pods of one controller from one node within seconds). The avoidance then ends at most that much
// earlier than ttl after the last eviction.
bool RecentlyRecorded(const std::vector<PreferAvoidEntry>& entries, std::string_view uid, Time now,
                      const PreferAvoidOptions& options);

// ActiveAvoidances: the entries still in force at `now`, as the scheduler's NodeView keeps them.
std::vector<AvoidedController> ActiveAvoidances(const std::vector<PreferAvoidEntry>& entries, Time now,
                                                const PreferAvoidOptions& options);

// AvoidsPod: the node asks pods of one of the pod's controller ownerReferences to stay away at `now`.
bool AvoidsPod(const NodeView& node, const PodSpecView& pod, Time now);

}  // namespace berth::reconcile::placement
