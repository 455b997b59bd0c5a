#!/usr/bin/env python3
"""Drain benchmark: berth-manager drains one node of --pods pods (one Deployment, PDB maxUnavailable 10%) on kubesim.

Measures: the time from `kubectl label node node-0 berth.dev/drain=true` until the node's berth.dev/drain-status is
          Drained and every replacement is Ready, against the budget-bound minimum
          ceil(pods / allowed disruptions) x pod-ready delay (each wave of evictions waits for its replacements to turn
          Ready before the PDB allows the next); and berth-manager's API requests per migrated pod (kubesim's
          --audit-log, berth's user agent, from the label to the end; watches counted once each), by verb/resource.
Run:      BERTH_BIN=build/bin PYTHONPATH=e2e/lib python3 bench/drain_bench.py [--pods 1000] [--nodes 11]
          [--ready-delay 1s] [--max-unavailable 10%] [--evict-qps 0] [--per-node 0] [--reserve-ahead true|false]
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
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "lib"))
import yaml  # noqa: E402

from kubesim_fixture import BerthManager, Kubesim, wait_until  # noqa: E402


def seconds(text):
    return float(text[:-2]) / 1000 if text.endswith("ms") else float(text.rstrip("s"))


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
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    n = args.pods

    audit = os.path.join(tempfile.mkdtemp(prefix="drain-bench-"), "audit.log")
    sim = Kubesim(nodes=args.nodes, node_cpu="64", node_pods=str(n + 10), pod_ready_delay=args.ready_delay,
                  audit_log=audit, history_window=max(50000, n * 40))
    mgr = None
    try:
        sim.install_crds()
        extra = ["--migration-reserve-ahead", args.reserve_ahead] if args.reserve_ahead else []
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

        def ready_count(node=None):
            pods = sim.get_json("/api/v1/namespaces/default/pods")["items"]
            return sum(1 for p in pods if not p["metadata"].get("deletionTimestamp")
                       and (node is None or p["spec"].get("nodeName") == node)
                       and any(c["type"] == "Ready" and c["status"] == "True"
                               for c in p.get("status", {}).get("conditions", [])))
        wait_until(lambda: ready_count("node-0") == n, timeout=args.timeout, interval=0.5, message=f"{n} Ready pods")
        allowed = wait_until(lambda: (sim.get_json("/apis/policy/v1/namespaces/default/poddisruptionbudgets/bench")
                                      .get("status") or {}).get("disruptionsAllowed"),
                             timeout=30, message="the PDB's status")
        sim.kubectl("uncordon", *[f"node-{i}" for i in range(1, args.nodes)])
        with open(audit) as f:
            start_line = sum(1 for _ in f)

        started = time.monotonic()
        sim.kubectl("label", "node", "node-0", "berth.dev/drain=true")

        def drained():
            text = sim.get_json("/api/v1/nodes/node-0")["metadata"].get("annotations", {}).get("berth.dev/drain-status")
            return text and json.loads(text)["status"] == "Drained"
        wait_until(drained, timeout=args.timeout, interval=0.2, message="node-0 Drained")
        wait_until(lambda: ready_count() == n, timeout=args.timeout, interval=0.2, message="every replacement Ready")
        elapsed = time.monotonic() - started

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
                          "budget_bound_s": bound, "ratio": round(elapsed / bound, 2),
                          "api_calls_per_pod": round(sum(calls.values()) / n, 2),
                          "jobs": dict(outcomes.most_common()), "calls": dict(calls.most_common())}), flush=True)
    finally:
        if mgr:
            mgr.stop()
        sim.stop()


if __name__ == "__main__":
    main()
