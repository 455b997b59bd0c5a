#include "reconcile/migration/drain.h"

#include <algorithm>

namespace berth::reconcile::migration {
namespace {

bool Finished(const PodFacts& p) { return p.phase == "Succeeded" || p.phase == "Failed"; }

std::string Key(const PodFacts& p) { return p.namespace_name + "/" + p.name; }

// List: up to 5 names, then "and N more".
std::string List(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < 5; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > 5) out += " and " + std::to_string(items.size() - 5) + " more";
  return out;
}

}  // namespace

std::string DrainJobName(const std::string& pod_uid, int jobs_so_far) {
  return jobs_so_far == 0 ? "drain-" + pod_uid : "drain-" + pod_uid + "-" + std::to_string(jobs_so_far);
}

DrainDecision DecideDrain(const DrainSnapshot& n, Time now, const DrainOptions& o) {
  DrainDecision d;
  const bool draining = n.label && *n.label == "true";
  if (n.label && !draining && *n.label != "false") {
    // Neither started nor stopped: a typo must not uncordon a node someone is draining.
    d.events.push_back({"Warning", "InvalidDrainLabel",
                        "label " + std::string(kDrainLabel) + "=\"" + *n.label +
                            "\" is neither \"true\" nor \"false\"; the drain is left as it is"});
    if (n.status) d.pods_remaining = n.status->pods_remaining;
    return d;
  }
  if (!draining) {
    d.delete_jobs = n.pending_jobs;
    if (n.cordoned_by_berth) {
      d.set_cordoned_by_berth = false;
      if (n.unschedulable) d.set_unschedulable = false;
      d.events.push_back({"Normal", "DrainStopped",
                          "label " + std::string(kDrainLabel) + " removed: node " + n.node + " uncordoned"});
    } else if (n.status) {
      d.events.push_back({"Normal", "DrainStopped", "label " + std::string(kDrainLabel) + " removed"});
    }
    d.remove_status = n.status.has_value();
    return d;  // pods_remaining nullopt: the series goes
  }

  if (!n.unschedulable) {
    d.set_unschedulable = true;
    d.set_cordoned_by_berth = true;
  }
  std::vector<std::string> remaining, protected_pods, failures;
  std::optional<Time> next_retry;
  std::vector<int64_t> priorities;  // of create_jobs' pods
  for (const DrainPod& dp : n.pods) {
    const PodFacts& p = dp.pod;
    if (Finished(p)) continue;
    if (auto why = NotEvictableReason(p, o.evictability)) {
      protected_pods.push_back(*why);
      continue;
    }
    remaining.push_back(Key(p));
    if (p.deleting || dp.has_active_job) continue;
    if (dp.last_failed_at) {
      failures.push_back(Key(p) + ": " + dp.last_failure);
      Time due = *dp.last_failed_at + o.retry_after;
      if (due > now) {
        next_retry = next_retry ? std::min(*next_retry, due) : due;
        continue;
      }
    }
    JobToCreate job;
    job.name = DrainJobName(p.uid, dp.jobs_so_far);
    if (n.jobs_being_created.contains(job.name)) continue;
    job.pod_namespace = p.namespace_name;
    job.pod_name = p.name;
    job.pod_uid = p.uid;
    const bool ours = std::find(o.scheduler_names.begin(), o.scheduler_names.end(), p.scheduler_name) !=
                      o.scheduler_names.end();
    job.mode = ours ? JobMode::kReservationFirst : JobMode::kEvictDirectly;
    d.create_jobs.push_back(std::move(job));
    priorities.push_back(p.priority.value_or(0));
  }
  // Lower priority is evicted first (the seed): jobs are created, and so first arbitrated, in that
  // order; the pods' order otherwise.
  std::vector<size_t> order(d.create_jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return priorities[a] < priorities[b]; });
  std::vector<JobToCreate> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back(std::move(d.create_jobs[i]));
  d.create_jobs = std::move(sorted);
  DrainStatus s;
  s.pods_remaining = static_cast<int64_t>(remaining.size());
  if (remaining.empty()) {
    s.status = std::string(kDrainDrained);
    s.message = "no evictable pod is left on node " + n.node;
  } else {
    s.status = std::string(kDrainDraining);
    s.message = std::to_string(remaining.size()) + " evictable pod" + (remaining.size() == 1 ? "" : "s") +
                " left: " + List(remaining);
    if (!failures.empty()) s.message += "; failed migrations (retried): " + List(failures);
  }
  if (!protected_pods.empty()) s.message += "; not evicted: " + List(protected_pods);
  const bool changed_status = !n.status || n.status->status != s.status;
  s.last_transition_time = changed_status ? now : n.status->last_transition_time;
  if (!n.status || !(*n.status == s)) {
    d.status = s;
    if (!changed_status && n.status_written_at && now - *n.status_written_at < o.status_interval) {
      // Only the count or the message moved: written with a later change, or when the interval ends.
      d.status.reset();
      Duration wait = *n.status_written_at + o.status_interval - now;
      next_retry = next_retry ? std::min(*next_retry, now + wait) : now + wait;
    }
  }
  if (changed_status) {
    if (s.status == kDrainDrained) {
      d.events.push_back({"Normal", "Drained", "node " + n.node + " drained: " + s.message});
    } else {
      d.events.push_back({"Normal", "DrainStarted",
                          std::string(n.unschedulable ? "node " + n.node + " was already cordoned; "
                                                      : "cordoned node " + n.node + "; ") +
                              "migrating " + std::to_string(remaining.size()) + " pod" +
                              (remaining.size() == 1 ? "" : "s")});
    }
  }
  d.pods_remaining = s.pods_remaining;
  if (next_retry) d.requeue_after = *next_retry - now;
  return d;
}

}  // namespace berth::reconcile::migration
