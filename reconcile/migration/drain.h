// reconcile/migration/drain.h
//
// Node drain by label, as pure decisions: `kubectl label node NODE berth.dev/drain=true` cordons
// the node (spec.unschedulable, remembered in annotation berth.dev/cordoned-by-drain so only a
// cordon berth made is undone) and gives every evictable pod on it a PodMigrationJob
// (ReservationFirst; EvictDirectly for a pod another scheduler places, which could not use a
// reservation). The node's drain is reported in annotation berth.dev/drain-status (a condition:
// status Draining or Drained, podsRemaining, message, lastTransitionTime), as node Events and as
// berth_drain_pods_remaining{node}. It is Drained when no evictable pod is left on the node; pods
// the evictability rules protect (DaemonSet, mirror, …) stay and are named. A job that fails is
// replaced after `retry_after`. Removing the label (or setting "false") deletes the drain's jobs
// that have not started, uncordons the node if berth cordoned it and clears the status.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "reconcile/migration/evictability.h"
#include "reconcile/migration/types.h"

namespace berth::reconcile::migration {

inline constexpr std::string_view kDrainLabel = "berth.dev/drain";
inline constexpr std::string_view kDrainNodeLabel = "berth.dev/drain-node";  // on the drain's jobs
inline constexpr std::string_view kCordonedByDrainAnnotation = "berth.dev/cordoned-by-drain";
inline constexpr std::string_view kDrainStatusAnnotation = "berth.dev/drain-status";
inline constexpr std::string_view kDrainTrigger = "Drain";  // the jobs' koordinator.sh/evict-trigger
inline constexpr std::string_view kDrainDraining = "Draining";
inline constexpr std::string_view kDrainDrained = "Drained";

struct DrainOptions {
  EvictabilityOptions evictability;
  std::vector<std::string> scheduler_names = {"koord-scheduler"};
  Duration retry_after = std::chrono::seconds(10);  // a failed job's replacement waits this long
  // The status annotation's podsRemaining/message are rewritten at most this often while the node
  // stays Draining (a 1,000-pod drain changes them with every pod); Draining → Drained and the
  // first status are written at once.
  Duration status_interval = std::chrono::seconds(1);
};

struct DrainPod {
  PodFacts pod;
  bool has_active_job = false;          // a Pending/Running job migrates it
  int jobs_so_far = 0;                  // the drain's jobs for this pod uid, any phase
  std::optional<Time> last_failed_at;   // when the newest of them failed, if it did
  std::string last_failure;             // its reason and message
};

struct DrainStatus {
  std::string status;  // Draining | Drained
  int64_t pods_remaining = 0;
  std::string message;
  Time last_transition_time;
  bool operator==(const DrainStatus&) const = default;
};

struct DrainSnapshot {
  std::string node;
  std::optional<std::string> label;  // berth.dev/drain, when present
  bool unschedulable = false;
  bool cordoned_by_berth = false;
  std::optional<DrainStatus> status;  // the annotation as read (nullopt: absent or unreadable)
  std::vector<DrainPod> pods;         // pods bound to the node
  std::vector<std::string> pending_jobs;  // the drain's jobs of this node still Pending
  // Jobs this process created that the job cache does not show yet: not created again.
  std::set<std::string> jobs_being_created;
  std::optional<Time> status_written_at;  // when this process last wrote the status annotation
};

struct JobToCreate {
  std::string name;
  std::string pod_namespace, pod_name, pod_uid;
  JobMode mode = JobMode::kReservationFirst;
  bool operator==(const JobToCreate&) const = default;
};

struct DrainDecision {
  std::optional<bool> set_unschedulable;        // cordon (true) / uncordon (false)
  std::optional<bool> set_cordoned_by_berth;    // write (true) / remove (false) the annotation
  std::optional<DrainStatus> status;            // write the status annotation (changed)
  bool remove_status = false;
  std::vector<JobToCreate> create_jobs;
  std::vector<std::string> delete_jobs;
  std::vector<EventNote> events;
  std::optional<int64_t> pods_remaining;        // the metric; nullopt removes the node's series
  std::optional<Duration> requeue_after;        // a failed job's replacement, a held-back status write
};

// DrainJobName: "drain-<pod uid>" for the first job, "drain-<pod uid>-<n>" after n failed ones.
std::string DrainJobName(const std::string& pod_uid, int jobs_so_far);

DrainDecision DecideDrain(const DrainSnapshot& node, Time now, const DrainOptions& options);

}  // namespace berth::reconcile::migration
