"""Chaos soak (issue 9, "Prove it continuously").

kubesim injects faults into 10% of requests (500, 429, 409, 503), drops every watch every 2 s and keeps a history
window of 50 events (so resumed watches often get 410 and relist). Two berth-manager processes run with leader
election and short leases; every 30 s the leader is killed (SIGKILL, then restarted) or paused (SIGSTOP until the
standby leads, then SIGCONT: it must exit on its lost Lease, and is restarted), alternately. A deterministic workload
(e2e/lib/chaos_soak.py) creates Restricted and Aligned reservations (some expiring, one kind allocateOnce, one kind
deleted while its pods run) with owner pods, deletes a bound pod of each group, and finally records each group's
outcome and deletes it. The same workload runs at the same time on a second kubesim without faults and a single
berth-manager (the replay).

Checked while it runs: the audit-log invariants (no double binding, no mutating write from a non-leader) and the
snapshot invariants (no over-allocation, allocateOnce used once, no node overcommit). At the end: every expiry
exactly once, between the deadline and deadline + EXPIRY_BOUND_S; both runs recorded the same outcome for every
group and left no reservation and no pod behind.

ctest runs the 3-minute variant by default (BERTH_SOAK=0 skips it). BERTH_SOAK_SECONDS sets the length, e.g.
BERTH_SOAK_SECONDS=3600 for an hour (ctest's 600 s timeout then needs raising: run it directly,
`python3 -m unittest -v test_chaos_soak` in e2e/tests with BERTH_BIN set). BERTH_SOAK_ARTIFACTS=DIR keeps the audit log and the managers' logs there. Only 127.0.0.1 is used; every loop is bounded in count and time.
"""
import collections
import glob
import json
import os
import re
import shutil
import signal
import tempfile
import time
import unittest

from chaos_soak import (EXPIRY_BOUND_S, GROUP_INTERVAL_S, LEASE_FLAGS, LEASE_NAME, LEASE_NAMESPACE, OUTCOME_AT_S,
                        RES_PATH, Api, AuditWatcher, Chaos, SnapshotChecker, Workload, leads)
from kubesim_fixture import BerthManager, Kubesim, wait_until

SOAK_SECONDS = int(os.environ.get("BERTH_SOAK_SECONDS", "180"))
# On by default since the Lease renewal fix (fast path, retryPeriod ticker, the elector's own client) and the
# placement around already-bound pods: consecutive passes are in the README's Reliability section.
SOAK_ENABLED = os.environ.get("BERTH_SOAK") != "0" or "BERTH_SOAK_SECONDS" in os.environ
CHAOS_PERIOD_S = 30
FAULTS = {"faultRate": 0.1, "faultCodes": [500, 429, 409, 503], "watchDropEverySeconds": 2, "historyWindow": 50}
NODE_FLAGS = {"node_cpu": "8", "node_memory": "32Gi"}


def manager_args():
    return (["--leader-elect", "--leader-election-namespace", LEASE_NAMESPACE, "--leader-election-id", LEASE_NAME,
             "--reservation-owner-sync-interval", "0", "--reservation-gc-duration", "1h"] + LEASE_FLAGS +
            (["--log-level", "debug"] if os.environ.get("BERTH_SOAK_ARTIFACTS") else []))


@unittest.skipUnless(SOAK_ENABLED, "skipped with BERTH_SOAK=0")
class ChaosSoakTest(unittest.TestCase):
    def test_invariants_hold_and_the_end_state_equals_a_fault_free_replay(self):
        # Groups are created for the soak's length minus the time the last one needs to finish.
        groups = max(4, (SOAK_SECONDS - OUTCOME_AT_S - 10) // GROUP_INTERVAL_S)
        audit_dir = tempfile.mkdtemp(prefix="berth-soak-")
        self.addCleanup(shutil.rmtree, audit_dir, True)
        audit_path = os.path.join(audit_dir, "audit.log")
        sim = Kubesim(nodes=3, audit_log=audit_path, **NODE_FLAGS)
        replay_sim = None
        managers, replay_mgr = [], None
        threads = []
        try:
            replay_sim = Kubesim(nodes=3, **NODE_FLAGS)
            for s in (sim, replay_sim):
                s.install_crds()
                s.kubectl("create", "namespace", LEASE_NAMESPACE)
            for n in range(2):
                m = BerthManager(sim, extra_args=manager_args(), start=False)
                m.runs = 100 * n  # its own log files: the fixture names them by run count only
                managers.append(m)
                m.start(wait_ready=False)
            replay_mgr = BerthManager(replay_sim, extra_args=manager_args(), start=False)
            replay_mgr.start(wait_ready=False)
            for m in managers + [replay_mgr]:
                m.wait_ready(timeout=60)
            wait_until(lambda: any(leads(m) for m in managers), timeout=60, message="a leader")
            wait_until(lambda: leads(replay_mgr), timeout=60, message="the replay's manager to lead")
            # Faults only from here on: the setup above used kubectl, which does not retry every injected fault.
            r = sim.http("PUT", "/kubesim/admin/faults", json=FAULTS)
            self.assertEqual(r.status_code, 200, r.text)

            audit = AuditWatcher(audit_path)
            snapshots = SnapshotChecker(Api(sim, "soak-snapshot"))
            # The same checks on the replay tell a fault-induced violation from one the workload always causes.
            replay_snapshots = SnapshotChecker(Api(replay_sim, "soak-snapshot"))
            start = time.time() + 1
            workload = Workload(Api(sim, "soak-workload"), groups, start)
            replay = Workload(Api(replay_sim, "soak-workload"), groups, start)
            chaos = Chaos(managers, period=CHAOS_PERIOD_S)
            threads = [audit, snapshots, replay_snapshots, workload, replay, chaos]
            for t in threads:
                t.run_in_background()
            limit = GROUP_INTERVAL_S * groups + OUTCOME_AT_S + 120
            for w in (workload, replay):
                self.assertTrue(w.done.wait(limit), f"the workload did not finish within {limit}s")
            for t in threads:
                t.stop()
            threads = []
            injected = sim.get_json("/kubesim/admin/faults").get("injectedFaults", {})
            # Nothing of the workload is left in either cluster (bound pods end gracefully: the simulated kubelet
            # completes their deletion).
            checks = {"chaos": Api(sim, "soak-check"), "replay": Api(replay_sim, "soak-check")}

            def leftovers():
                return {label: (len(api.items(RES_PATH)), len(api.items("/api/v1/namespaces/default/pods")))
                        for label, api in checks.items()}
            left = {}

            def emptied():
                left.update(leftovers())
                return left == {"chaos": (0, 0), "replay": (0, 0)}
            try:
                wait_until(emptied, timeout=60, interval=1, message="the clusters to empty")
            except AssertionError:
                pass  # asserted below, with the counts
            for api in [snapshots.api, replay_snapshots.api, workload.api, replay.api, *checks.values()]:
                api.close()
        finally:
            for t in threads:
                t.stop()
            for m in managers + ([replay_mgr] if replay_mgr else []):
                if m.proc is not None and m.proc.poll() is None:
                    m.proc.send_signal(signal.SIGCONT)  # a manager the chaos thread left paused
                m.stop()
            if os.environ.get("BERTH_SOAK_ARTIFACTS"):  # keep the evidence: audit log and every manager's log
                keep = os.environ["BERTH_SOAK_ARTIFACTS"]
                os.makedirs(keep, exist_ok=True)
                for path in [audit_path] + glob.glob(os.path.join(sim.dir, "berth-manager.*.log")):
                    shutil.copy(path, keep)
            if replay_sim:
                replay_sim.stop()
            sim.stop()

        expiry, lags = audit.expiry_findings(workload.reservations)
        kinds = [k for k, _ in chaos.events]
        summary = {
            "seconds": SOAK_SECONDS, "groups": groups, "reservations": len(workload.reservations),
            "pods": workload.pods_created, "faultsInjected": injected,
            "takeovers": {k: kinds.count(k) for k in ("kill", "pause")},
            "takeoverSeconds": [round(s, 1) for _, s in chaos.events], "leaseLosses": chaos.lease_losses,
            "expiries": len(lags), "expiryLagMaxSeconds": round(max(lags), 2) if lags else None,
            "auditLinesChecked": audit.lines, "berthWrites": audit.berth_writes,
            "bindings": sum(audit.bindings.values()), "snapshots": snapshots.snapshots,
            "snapshotChecks": snapshots.checks, "workloadRetries": workload.api.retries,
            "replaySnapshotViolations": len(replay_snapshots.violations),
        }
        print("\nchaos soak: " + json.dumps(summary))
        outcomes = collections.Counter(json.dumps(o, sort_keys=True) for o in workload.outcomes.values())
        print("group outcomes (count: outcome):\n" + "\n".join(f"  {n}: {o}" for o, n in sorted(outcomes.items())))
        self.assertEqual(workload.errors + replay.errors + chaos.errors, [])
        self.assertEqual(audit.violations, [], "audit-log invariants")
        named = sorted(set(re.findall(r"\b(soak-\d+)\b(?!-)", "\n".join(snapshots.violations))))
        self.assertEqual(snapshots.violations, [], "allocation invariants (the fault-free replay's: "
                         f"{replay_snapshots.violations}); status writes (audit log):\n" +
                         "\n".join(audit.history(n) for n in named))
        self.assertEqual(expiry, [], f"expiry exactly once, within {EXPIRY_BOUND_S}s of the deadline")
        diffs = {g: {"chaos": workload.outcomes.get(g), "replay": replay.outcomes.get(g)}
                 for g in range(groups) if workload.outcomes.get(g) != replay.outcomes.get(g)}
        self.assertEqual(diffs, {}, "group outcomes differ from the fault-free replay")
        self.assertEqual(left, {"chaos": (0, 0), "replay": (0, 0)}, "objects left behind (reservations, pods)")
        # The soak did what it claims: faults, takeovers of both kinds, expiries, pods in reservations.
        expected_events = (groups * GROUP_INTERVAL_S + OUTCOME_AT_S) // CHAOS_PERIOD_S - 1
        self.assertGreaterEqual(len(kinds), min(expected_events, 2), chaos.events)
        if expected_events >= 2:
            self.assertIn("kill", kinds)
            self.assertIn("pause", kinds)
        self.assertGreater(sum(injected.values()), 100, injected)
        self.assertTrue(lags, "no reservation expired")
        self.assertTrue(any(o.get("podsInReservation") for o in workload.outcomes.values()))
        self.assertGreater(len(audit.holders), len(kinds), "every takeover shows in the Lease writes")


if __name__ == "__main__":
    unittest.main()
