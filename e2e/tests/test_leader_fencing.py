"""Leader fencing (issue 9): a leader paused past its lease writes nothing once the standby leads.

Two berth-manager processes run with --leader-elect and short lease settings against a kubesim that writes an
audit log (--audit-log: one JSON line per request, in the order the responses were decided, with the caller's
User-Agent; berth-manager puts its leader-election identity there). Restricted reservations and their owner pods
are created continuously. The leader is SIGSTOPped until the standby has taken the Lease and is writing, then
SIGCONTed. The audit log must show no mutating request from the old process after the standby's first successful
Lease write, the old process must exit on its lost leadership, and no reservation or node may be over-allocated.
"""
import json
import os
import shutil
import signal
import tempfile
import threading
import time
import unittest

from kubesim_fixture import BerthManager, Kubesim, wait_until
from quantities import pod_requests, quantity

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PODS_PATH = "/api/v1/namespaces/default/pods"
ANNOTATION = "scheduling.koordinator.sh/reservation-allocated"
NAMESPACE = "berth-system"
LEASE = "berth-manager"
MUTATING_VERBS = {"create", "update", "patch", "delete", "deletecollection"}
# Short leases keep the test quick; renewDeadline < leaseDuration leaves the standby a 2 s margin.
LEASE_FLAGS = ["--leader-elect-lease-duration", "6s", "--leader-elect-renew-deadline", "4s",
               "--leader-elect-retry-period", "1s"]
NODE_CPU, NODE_MEMORY = "8", "32Gi"


def reservation(i):
    return {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
            "metadata": {"name": f"fence-{i}"},
            "spec": {"allocateOnce": False, "allocatePolicy": "Restricted", "ttl": "1h",
                     "owners": [{"labelSelector": {"matchLabels": {"group": f"g{i}"}}}],
                     "template": {"metadata": {"namespace": "default"},
                                  "spec": {"schedulerName": "koord-scheduler", "containers": [
                                      {"name": "main", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}}


def owner_pod(n, group):
    # 200m: five fit a 1-cpu reservation, a sixth would over-allocate it. Pods outnumber the slots of their group;
    # the extra ones run beside the reservations (the nodes have room for all of them).
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"fence-pod-{n}", "namespace": "default", "labels": {"group": f"g{group}"}},
            "spec": {"schedulerName": "koord-scheduler", "containers": [
                {"name": "main", "image": "busybox",
                 "resources": {"requests": {"cpu": "200m", "memory": "256Mi"}}}]}}


class Workload:
    """Creates Restricted reservations and owner pods from a thread until stopped, bounded in count and time."""

    def __init__(self, sim, first_reservations, max_reservations=8, max_pods=100, interval=0.3, limit_s=150):
        self.sim = sim
        self.reservations = first_reservations
        self.max_reservations = max_reservations
        self.max_pods = max_pods
        self.interval = interval
        self.limit_s = limit_s
        self.pods = 0
        self.errors = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()

    def _post(self, path, body):
        r = self.sim.http("POST", path, json=body, timeout=10)
        if r.status_code != 201:
            self.errors.append(f"POST {path} {body['metadata']['name']}: {r.status_code} {r.text[:200]}")

    def _run(self):
        deadline = time.monotonic() + self.limit_s
        step = 0
        while not self._stop.is_set() and time.monotonic() < deadline:
            step += 1
            if step % 10 == 0 and self.reservations < self.max_reservations:
                self._post(RES_PATH, reservation(self.reservations))
                self.reservations += 1
            elif self.pods < self.max_pods:
                self._post(PODS_PATH, owner_pod(self.pods, self.pods % self.reservations))
                self.pods += 1
            else:
                break
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=30)


def read_audit(path):
    """The audit lines written so far; a line still being written (no newline yet) is left for the next read."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n") and line.strip()]


def leads(mgr):
    """leader_election_master_status{name=LEASE} is 1 (metric() cannot take a label called "name")."""
    return mgr.metrics().get(("leader_election_master_status", (("name", LEASE),)), 0.0) == 1.0


def identity_of(mgr):
    """The leader-election identity from berth-manager's "starting berth-manager" log line."""
    for line in mgr.log_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("msg") == "starting berth-manager" and entry.get("identity"):
            return entry["identity"]
    return None


class LeaderFencingTest(unittest.TestCase):
    def test_a_leader_paused_past_its_lease_writes_nothing_after_the_standby_takes_over(self):
        audit_dir = tempfile.mkdtemp(prefix="berth-fence-")
        self.addCleanup(shutil.rmtree, audit_dir, True)
        audit_path = os.path.join(audit_dir, "audit.log")
        # Latency keeps requests in flight when the leader is stopped, so it resumes mid-reconcile with writes to make.
        sim = Kubesim(nodes=3, audit_log=audit_path, node_cpu=NODE_CPU, node_memory=NODE_MEMORY, latency="50ms")
        managers = []
        workload = None
        paused = None
        try:
            sim.install_crds()
            sim.kubectl("create", "namespace", NAMESPACE)
            args = ["--leader-elect", "--leader-election-namespace", NAMESPACE, "--leader-election-id", LEASE,
                    "--reservation-owner-sync-interval", "0"] + LEASE_FLAGS
            for n in range(2):
                m = BerthManager(sim, extra_args=args, start=False)
                m.runs = 100 * n  # its own log file: the fixture names them by run count only
                managers.append(m)
                m.start()
            ids = [wait_until(lambda m=m: identity_of(m), timeout=10, message="the identity log line")
                   for m in managers]
            self.assertNotEqual(ids[0], ids[1])
            agents = {f"berth/0.1 ({i})": n for n, i in enumerate(ids)}

            def leader_index():
                leading = [n for n, m in enumerate(managers) if leads(m)]
                return leading[0] if len(leading) == 1 else None

            def writes_by(index, after=0, lease=False):
                return [l for l in read_audit(audit_path)[after:]
                        if agents.get(l["userAgent"]) == index and l["verb"] in MUTATING_VERBS
                        and (l.get("resource") == "leases") == lease]

            wait_until(lambda: leader_index() is not None, timeout=30, message="one leader")
            old = leader_index()
            standby = 1 - old
            for i in range(4):
                self.assertEqual(sim.http("POST", RES_PATH, json=reservation(i)).status_code, 201)
            workload = Workload(sim, first_reservations=4)
            workload.start()
            # Work flows through the leader: bindings, status writes, Events.
            wait_until(lambda: len(writes_by(old)) >= 30, timeout=60, message="the leader writing")

            managers[old].proc.send_signal(signal.SIGSTOP)
            paused = managers[old]
            stopped_at = time.monotonic()
            wait_until(lambda: leads(managers[standby]), timeout=60, message="the standby to take the Lease")
            audit_len = len(read_audit(audit_path))
            # Hold the pause until the new leader has changed the cluster the old one last saw.
            wait_until(lambda: len(writes_by(standby, after=audit_len)) >= 5, timeout=60,
                       message="the new leader writing")
            paused_for = time.monotonic() - stopped_at
            managers[old].proc.send_signal(signal.SIGCONT)
            paused = None

            # The old leader finds its fence closed and exits (controller-runtime: leader election lost).
            code = managers[old].proc.wait(timeout=30)
            old_log = managers[old].log_text()
            self.assertEqual(code, 1, old_log[-3000:])
            self.assertIn("leader election lost", old_log)
            refused = old_log.count("write refused: this process is not the leader")

            # Work keeps flowing through the new leader, then settles.
            resumed_pods = workload.pods
            wait_until(lambda: workload.pods >= resumed_pods + 10 and workload.reservations >= 8, timeout=60,
                       message="more work after the resume")
            workload.stop()
            self.assertEqual(workload.errors, [])
            self.settle(sim, managers[standby], workload.reservations)
            lines = read_audit(audit_path)
        finally:
            if paused is not None:
                paused.proc.send_signal(signal.SIGCONT)
            if workload:
                workload.stop()
            for m in managers:
                m.stop()
            sim.stop()

        takeover = next((n for n, l in enumerate(lines)
                         if agents.get(l["userAgent"]) == standby and l.get("resource") == "leases"
                         and l["verb"] in ("create", "update") and 200 <= l["code"] < 300), None)
        self.assertIsNotNone(takeover, "the standby never wrote the Lease")
        before = [l for l in lines[:takeover] if agents.get(l["userAgent"]) == old and l["verb"] in MUTATING_VERBS]
        self.assertGreater(len(before), 30, "the old leader wrote before the pause, so silence after it means "
                           "something")
        late = [l for l in lines[takeover + 1:]
                if agents.get(l["userAgent"]) == old and l["verb"] in MUTATING_VERBS]
        self.assertEqual(len(late), 0, f"{len(late)} mutating requests from the old leader after the standby's first "
                         f"Lease write (paused {paused_for:.1f}s, {refused} writes refused in-process):\n" +
                         "\n".join(f"{l['verb']} {l['resource']}/{l['subresource']} {l['name']} -> {l['code']}"
                                   for l in late[:20]))
        after = [l for l in lines[takeover + 1:]
                 if agents.get(l["userAgent"]) == standby and l["verb"] in MUTATING_VERBS
                 and l.get("resource") != "leases" and 200 <= l["code"] < 300]
        self.assertGreater(len(after), 5, "the new leader did the work after the takeover")
        print(f"\nfencing: paused {paused_for:.1f}s; old leader {len(before)} writes before the takeover, 0 after "
              f"({refused} refused in-process); new leader {len(after)} successful writes after it")

    def settle(self, sim, leader, reservation_count):
        """Waits until the scheduler and the lifecycle controller agree, then checks the allocation invariants."""
        def snapshot():
            reservations = {r["metadata"]["uid"]: r for r in sim.get_json(RES_PATH)["items"]}
            pods = sim.get_json("/api/v1/pods")["items"]
            return reservations, pods

        def consumers(reservations, pods):
            by_reservation = {}
            for p in pods:
                ann = (p["metadata"].get("annotations") or {}).get(ANNOTATION)
                if ann and p.get("status", {}).get("phase") not in ("Succeeded", "Failed"):
                    by_reservation.setdefault(json.loads(ann)["uid"], []).append(p)
            return by_reservation

        def agreed():
            reservations, pods = snapshot()
            by_reservation = consumers(reservations, pods)
            if len(reservations) != reservation_count or any(r.get("status", {}).get("phase") != "Available"
                                                              for r in reservations.values()):
                return False
            return all(len(r["status"].get("currentOwners") or []) == len(by_reservation.get(uid, []))
                       for uid, r in reservations.items())

        try:
            wait_until(agreed, timeout=60, message="currentOwners to match the bound owner pods")
        except AssertionError as e:
            raise AssertionError(f"{e}\nleader log (tail):\n{leader.log_text()[-3000:]}") from None
        reservations, pods = snapshot()
        by_reservation = consumers(reservations, pods)
        self.assertTrue(by_reservation, "no pod was bound into a reservation")
        for uid, r in reservations.items():
            name = r["metadata"]["name"]
            allocatable = {k: quantity(v) for k, v in r["status"]["allocatable"].items()}
            for k, v in (r["status"].get("allocated") or {}).items():
                self.assertLessEqual(quantity(v), allocatable[k] + 1e-9, f"{name} status.allocated {k}")
            used = {}
            for p in by_reservation.get(uid, []):
                self.assertEqual(p["spec"].get("nodeName"), r["status"]["nodeName"], p["metadata"]["name"])
                for k, v in pod_requests(p).items():
                    used[k] = used.get(k, 0.0) + v
            for k, v in used.items():
                self.assertLessEqual(v, allocatable.get(k, 0.0) + 1e-9, f"{name}: its owner pods' {k}")
        # No node overcommitted: pods outside reservations plus what each reservation holds (its whole size,
        # which covers the pods inside it) fit the node.
        for node in sim.get_json("/api/v1/nodes")["items"]:
            node_name = node["metadata"]["name"]
            capacity = {k: quantity(v) for k, v in node["status"]["allocatable"].items() if k in ("cpu", "memory")}
            in_reservation = {p["metadata"]["uid"] for ps in by_reservation.values() for p in ps}
            total = {}
            for p in pods:
                if (p["spec"].get("nodeName") == node_name and p["metadata"]["uid"] not in in_reservation
                        and p.get("status", {}).get("phase") not in ("Succeeded", "Failed")):
                    for k, v in pod_requests(p).items():
                        total[k] = total.get(k, 0.0) + v
            for r in reservations.values():
                if r["status"].get("nodeName") == node_name:
                    for k, v in r["status"]["allocatable"].items():
                        total[k] = total.get(k, 0.0) + quantity(v)
            for k, limit in capacity.items():
                self.assertLessEqual(total.get(k, 0.0), limit + 1e-9, f"node {node_name} {k}")


if __name__ == "__main__":
    unittest.main()
