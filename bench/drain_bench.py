#!/usr/bin/env python3
"""Drain benchmark: berth-manager drains one node of --pods pods (one Deployment, PDB maxUnavailable 10%) on kubesim.

Measures: the time from the moment `kubectl label node node-0 berth.dev/drain=true` lands (seen on a watch of the
          nodes) until the node's berth.dev/drain-status is Drained and every replacement is Ready (the event that
          completes it, on watches of the pods and nodes; also printed from the start of the kubectl command), against the budget-bound minimum
          ceil(pods / allowed disruptions) x pod-ready delay (each wave of evictions waits for its replacements to turn
          Ready before the PDB allows the next); and berth-manager's API requests per migrated pod (kubesim's
          --audit-log, berth's user agent, from the label to the end; watches counted once each), by verb/resource.
Run:      BERTH_BIN=build/bin PYTHONPATH=e2e/lib python3 bench/drain_bench.py [--pods 1000] [--nodes 11]
          [--ready-delay 1s] [--max-unavailable 10%] [--evict-qps 0] [--per-node 0] [--reserve-ahead true|false] [--workers N] [--keep-audit]
Prints:   one JSON line: {"pods":…, "seconds":…, "budget_bound_s":…, "ratio":…, "api_calls_per_pod":…, "calls":{…}}
Method:   pods start on node-0 (the other nodes are cordoned while they come up). berth-manager runs with the given
          eviction rate and per-node migration limit (defaults 0 = off here, so only the PDB and koordinator's
          per-workload defaults bound the drain: 10% of 1,000 = 100, the PDB's own number); berth's defaults (10 qps,
          2 per node) would bound it instead at pods/10 s and pods/2 waves.
Loopback only; bounded by --timeout.
"""
import argparse
import collections
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "lib"))
import yaml  # noqa: E402

from collection_watcher import Watcher  # noqa: E402
from kubesim_fixture import BerthManager, Kubesim, wait_until  # noqa: E402
from workloads import ready  # noqa: E402

PODS_PATH = "/api/v1/namespaces/default/pods"


class DrainProgress:
    """Follows the pods and node-0 through their watches: the drain starts when node-0's label lands and ends at the
    event after which node-0 is Drained and all pods are Ready (timed as the events arrive, so the figure carries no
    polling interval and the measurement puts no LIST load on kubesim)."""

    def __init__(self, pods):
        self.pods = pods
        self.ready = set()  # uids of the pods Ready and not terminating (len() per event, not a sum)
        self.evicted_at = []  # when each pod on node-0 was seen terminating, in order
        self.replaced_at = []  # when each pod elsewhere was first seen Ready, in order
        self.seen_terminating = set()
        self.seen_ready_elsewhere = set()
        self.drained = False
        self.labelled_at = None
        self.done_at = None
        self.done = threading.Event()
        self.lock = threading.Lock()

    def seed(self, items):
        self.ready = {p["metadata"]["uid"] for p in items if ready(p)}

    def on_pod(self, kind, pod):
        now = time.monotonic()
        uid = pod["metadata"]["uid"]
        with self.lock:
            if pod["spec"].get("nodeName") == "node-0":
                if (kind == "DELETED" or pod["metadata"].get("deletionTimestamp")) and uid not in self.seen_terminating:
                    self.seen_terminating.add(uid)
                    self.evicted_at.append(now)
            elif ready(pod) and uid not in self.seen_ready_elsewhere:
                self.seen_ready_elsewhere.add(uid)
                self.replaced_at.append(now)
            if kind != "DELETED" and ready(pod):
                self.ready.add(uid)
            else:
                self.ready.discard(uid)
            self.check()

    def on_node(self, kind, node):
        if node["metadata"]["name"] != "node-0":
            return
        annotations = node["metadata"].get("annotations", {})
        with self.lock:
            if self.labelled_at is None and node["metadata"].get("labels", {}).get("berth.dev/drain") == "true":
                self.labelled_at = time.monotonic()
            text = annotations.get("berth.dev/drain-status")
            self.drained = bool(text) and json.loads(text)["status"] == "Drained"
            self.check()

    def check(self):
        if self.done_at is None and self.drained and len(self.ready) == self.pods:
            self.done_at = time.monotonic()
            self.done.set()

    def pipeline(self, allowed):
        """Where the time beyond the budget-bound minimum goes: when the first wave had gone (the `allowed`-th
        eviction), and the gaps of the pipeline: eviction i follows the Ready of replacement i - allowed, and
        replacement i turns Ready a pod-ready delay after its eviction."""
        def stats(values):
            values = sorted(values)
            if not values:
                return None
            return {"median_ms": round(values[len(values) // 2] * 1000), "p90_ms": round(values[int(len(values) * 0.9)] * 1000)}
        ev = [t - self.labelled_at for t in self.evicted_at]
        rd = [t - self.labelled_at for t in self.replaced_at]
        return {"first_wave_s": round(ev[min(allowed, len(ev)) - 1], 3) if ev else None,
                "ready_to_next_eviction": stats([ev[i] - rd[i - allowed] for i in range(allowed, min(len(ev), len(rd) + allowed))]),
                "eviction_to_replacement_ready": stats([rd[i] - ev[i] for i in range(min(len(ev), len(rd)))])}

    def describe(self):
        with self.lock:
            return f"{len(self.ready)}/{self.pods} Ready, node-0 drained={self.drained}"


def seconds(text):
    return float(text[:-2]) / 1000 if text.endswith("ms") else float(text.rstrip("s"))


def unfinished_jobs(sim):
    """The jobs that have not succeeded, each with its reservation and pod: what a stuck drain waits for."""
    lines = []
    for job in sim.get_json("/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs")["items"]:
        if job.get("status", {}).get("phase") == "Succeeded":
            continue
        lines.append("job " + json.dumps({k: job.get(k) for k in ("metadata", "spec", "status")}))
        ref = ((job["spec"].get("reservationOptions") or {}).get("reservationRef") or {}).get("name")
        if ref:
            r = sim.http("GET", f"/apis/scheduling.koordinator.sh/v1alpha1/reservations/{ref}")
            lines.append(f"  reservation {ref}: {r.status_code} {r.text[:3000]}")
        pod_ref = job["spec"].get("podRef") or {}
        r = sim.http("GET", f"/api/v1/namespaces/{pod_ref.get('namespace')}/pods/{pod_ref.get('name')}")
        lines.append(f"  pod: {r.status_code} {r.text[:2000]}")
    return "\n".join(lines[:60])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=11)
    ap.add_argument("--ready-delay", default="1s")
    ap.add_argument("--max-unavailable", default="10%")
    ap.add_argument("--evict-qps", default="0")
    ap.add_argument("--per-node", default="0")
    ap.add_argument("--reserve-ahead", choices=["true", "false"],
                    help="berth-manager's --migration-reserve-ahead (default: not passed, berth's default)")
    ap.add_argument("--workers", help="berth-manager's --migration-workers (default: not passed, berth's default)")
    ap.add_argument("--keep-audit", action="store_true", help="keep kubesim's audit log (its path is printed)")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    n = args.pods

    audit_dir = tempfile.mkdtemp(prefix="drain-bench-")
    audit = os.path.join(audit_dir, "audit.log")
    sim = Kubesim(nodes=args.nodes, node_cpu="64", node_pods=str(n + 10), pod_ready_delay=args.ready_delay,
                  audit_log=audit, history_window=max(50000, n * 40))
    mgr = None
    try:
        sim.install_crds()
        extra = ["--migration-reserve-ahead", args.reserve_ahead] if args.reserve_ahead else []
        extra += ["--migration-workers", args.workers] if args.workers else []
        mgr = BerthManager(sim, extra_args=["--migration-evict-qps", args.evict_qps,
                                            "--migration-max-migrating-per-node", args.per_node,
                                            "--log-level", "warn", *extra])
        sim.kubectl("cordon", *[f"node-{i}" for i in range(1, args.nodes)])
        sim.apply_text(yaml.safe_dump_all([
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "bench", "namespace": "default"},
             "spec": {"replicas": n, "selector": {"matchLabels": {"app": "bench"}},
                      "template": {"metadata": {"labels": {"app": "bench"}},
                                   "spec": {"schedulerName": "koord-scheduler",
                                            "containers": [{"name": "c", "image": "x",
                                                            "resources": {"requests": {"cpu": "10m"}}}]}}}},
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
             "metadata": {"name": "bench", "namespace": "default"},
             "spec": {"maxUnavailable": args.max_unavailable, "selector": {"matchLabels": {"app": "bench"}}}}]))

        def ready_on_node_0():
            return sum(1 for p in sim.get_json(PODS_PATH)["items"] if ready(p) and p["spec"].get("nodeName") == "node-0")
        wait_until(lambda: ready_on_node_0() == n, timeout=args.timeout, interval=0.5, message=f"{n} Ready pods")
        allowed = wait_until(lambda: (sim.get_json("/apis/policy/v1/namespaces/default/poddisruptionbudgets/bench")
                                      .get("status") or {}).get("disruptionsAllowed"),
                             timeout=30, message="the PDB's status")
        sim.kubectl("uncordon", *[f"node-{i}" for i in range(1, args.nodes)])
        with open(audit) as f:
            start_line = sum(1 for _ in f)

        progress = DrainProgress(n)
        listed = sim.get_json(PODS_PATH)
        progress.seed(listed["items"])
        pod_watch = Watcher(sim, PODS_PATH, listed["metadata"]["resourceVersion"], progress.on_pod, keep_events=False)
        node_watch = Watcher(sim, "/api/v1/nodes", sim.get_json("/api/v1/nodes")["metadata"]["resourceVersion"],
                             progress.on_node, keep_events=False)
        kubectl_started = time.monotonic()
        sim.kubectl("label", "node", "node-0", "berth.dev/drain=true")
        if not progress.done.wait(timeout=args.timeout):
            raise AssertionError(f"not drained in {args.timeout}s: {progress.describe()}\n{unfinished_jobs(sim)}")
        pod_watch.stop()
        node_watch.stop()
        elapsed = progress.done_at - progress.labelled_at
        reconciles = {name: round(sum(v for (metric, labels), v in mgr.metrics().items()
                                      if metric == "controller_runtime_reconcile_total"
                                      and ("controller", name) in labels) / n, 1)
                      for name in ("migration", "drain", "scheduler", "reservation")}
        calls = collections.Counter()
        with open(audit) as f:
            for i, line in enumerate(f):
                if i < start_line or not line.strip():
                    continue
                entry = json.loads(line)
                if not entry.get("userAgent", "").startswith("berth/"):
                    continue
                resource = entry.get("resource", entry.get("nonResourceURL", ""))
                if entry.get("subresource"):
                    resource += "/" + entry["subresource"]
                calls[f"{entry['verb']} {resource}"] += 1
        outcomes = collections.Counter()
        for j in sim.get_json("/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs")["items"]:
            status = j.get("status", {})
            outcomes[f"{status.get('phase', 'Pending')} {status.get('reason', '')}".strip()] += 1
        bound = math.ceil(n / allowed) * seconds(args.ready_delay)
        print(json.dumps({"pods": n, "disruptions_allowed": allowed, "ready_delay_s": seconds(args.ready_delay),
                          "evict_qps": args.evict_qps, "per_node": args.per_node, "seconds": round(elapsed, 2),
                          "seconds_from_kubectl_start": round(progress.done_at - kubectl_started, 2),
                          "budget_bound_s": bound, "ratio": round(elapsed / bound, 2),
                          "pipeline": progress.pipeline(allowed),
                          "reconciles_per_pod": reconciles,
                          "api_calls_per_pod": round(sum(calls.values()) / n, 2),
                          "jobs": dict(outcomes.most_common()), "calls": dict(calls.most_common())}), flush=True)
    finally:
        if mgr:
            mgr.stop()
        sim.stop()
        if args.keep_audit:
            print(f"audit log: {audit}", file=sys.stderr)
        else:
            shutil.rmtree(audit_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
