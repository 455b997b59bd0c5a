"""DefaultPreemption for pods berth schedules (issue 13), with real kubectl on kubesim.

One node with 2 cpu holds two 1-cpu pods: `guarded` (PriorityClass low, 100) and `free` (mid, 200). A 1-cpu pod
of PriorityClass high (1000) fits nowhere and preempts:
- the lowest-priority pod, `guarded`, when its PDB allows a disruption;
- `free` instead when `guarded`'s PDB allows none (fewest PDB violations first);
- nobody when its PriorityClass says preemptionPolicy Never.
kubesim's Priority admission resolves spec.priority from priorityClassName, as kube-apiserver's plugin does.
"""
import json
import unittest

from kubesim_fixture import CommandError, wait_until
from test_reservation_scheduling import SchedulingSuite

CLASSES = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: mid}
value: 200
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high-never}
value: 1000
preemptionPolicy: Never
"""


class PreemptionTest(SchedulingSuite):
    nodes = 1
    sim_flags = {"node_cpu": "2", "node_memory": "8Gi"}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.sim.apply_text(CLASSES)

    def setUp(self):
        self.create("guarded", "low", {"app": "guarded"})
        self.create("free", "mid", {"app": "free"})
        # Events outlive their pods: each test looks only at the Events of its own pods (by uid).
        self.uids = {name: self.wait_running(name)["metadata"]["uid"] for name in ("guarded", "free")}

    def tearDown(self):
        self.sim.kubectl("delete", "pods,pdb", "--all", "--wait=false")
        wait_until(lambda: not self.pods() and not self.sim.get_json(
            "/apis/policy/v1/namespaces/default/poddisruptionbudgets")["items"], message="cleanup")

    def create(self, name, priority_class, labels=None):
        obj = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
               "spec": {"schedulerName": "koord-scheduler", "priorityClassName": priority_class,
                        "containers": [{"name": "main", "image": "busybox",
                                        "resources": {"requests": {"cpu": "1", "memory": "64Mi"}}}]}}
        self.assertIn("created", self.sim.apply_text(json.dumps(obj)))

    def pdb(self, budget):
        obj = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guarded"},
               "spec": dict(budget, selector={"matchLabels": {"app": "guarded"}})}
        self.sim.apply_text(json.dumps(obj))

    def wait_pdb_allowed(self, allowed):
        def check():
            r = self.sim.http("GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/guarded").json()
            status = r.get("status", {})
            return status.get("currentHealthy") == 1 and status.get("disruptionsAllowed") == allowed
        wait_until(check, message=f"PDB guarded to allow {allowed} disruption(s)")

    def wait_gone(self, name):
        wait_until(lambda: self.pod(name) is None, timeout=15, message=f"pod {name} to be deleted")

    def preempted_events(self, name):
        return [e for e in self.events_for(name, "Preempted") if e["involvedObject"].get("uid") == self.uids[name]]

    def assert_preempted_by(self, victim, preemptor):
        # The recorder posts the Event from its own queue, after the victim's delete: under load it can come after
        # the preemptor is bound. Waited for, then counted (a second one would still show).
        events = wait_until(lambda: self.preempted_events(victim), timeout=30,
                            message=f"the Preempted Event of {victim}")
        self.assertEqual(len(events), 1, events)
        self.assertEqual(events[0]["type"], "Normal")
        self.assertEqual(events[0]["message"], f"Preempted by pod {preemptor['metadata']['uid']} on node node-0")
        self.assertEqual(events[0]["source"]["component"], "koord-scheduler")

    def test_priority_admission_resolves_the_class(self):
        pod = self.pod("free")
        self.assertEqual(pod["spec"]["priority"], 200)
        self.assertEqual(pod["spec"]["preemptionPolicy"], "PreemptLowerPriority")
        with self.assertRaises(CommandError) as raised:
            self.create("nope", "no-such-class")
        self.assertIn('pods "nope" is forbidden: no PriorityClass with name no-such-class was found',
                      str(raised.exception))
        names = self.sim.kubectl("get", "priorityclasses", "-o", "name")
        for name in ("system-cluster-critical", "system-node-critical", "high-never"):
            self.assertIn(f"priorityclass.scheduling.k8s.io/{name}", names)

    def test_preempts_the_lowest_priority_pod_when_its_pdb_allows(self):
        self.pdb({"minAvailable": 0})  # maxUnavailable needs a controller for bare pods
        self.wait_pdb_allowed(1)
        self.create("high", "high")
        self.wait_gone("guarded")
        high = self.wait_running("high")
        self.assertEqual(high["spec"]["nodeName"], "node-0")
        self.assertEqual(high["status"].get("nominatedNodeName"), "node-0")
        self.assert_preempted_by("guarded", high)
        self.assertEqual(self.pod("free")["status"]["phase"], "Running")
        self.assertEqual(self.preempted_events("free"), [])

    def test_preempts_another_pod_when_the_pdb_allows_no_disruption(self):
        self.pdb({"minAvailable": 1})
        self.wait_pdb_allowed(0)
        self.create("high", "high")
        self.wait_gone("free")
        high = self.wait_running("high")
        self.assert_preempted_by("free", high)
        self.assertEqual(self.pod("guarded")["status"]["phase"], "Running")
        self.assertEqual(self.preempted_events("guarded"), [])

    def test_a_failed_victim_delete_is_retried_with_backoff(self):
        # 409 is not retried by the transport: each failure reaches the scheduler, which requeues the pod.
        r = self.sim.http("PUT", "/kubesim/admin/faults",
                          json={"faultRate": 1.0, "faultCodes": [409], "faultTargets": ["DELETE:pods"]})
        self.assertEqual(r.status_code, 200, r.text)
        try:
            self.create("high", "high")
            wait_until(lambda: self.mgr.log_text().count("delete of preemption victim failed, retrying with backoff") >= 2,
                       message="two failed victim deletes retried")
            guarded = self.pod("guarded")
            self.assertIsNotNone(guarded, "no delete went through")
            target = next(c for c in guarded["status"]["conditions"] if c["type"] == "DisruptionTarget")
            self.assertEqual((target["status"], target["reason"], target["message"]),
                             ("True", "PreemptionByScheduler",
                              "koord-scheduler: preempting to accommodate a higher priority pod"))
            self.assertEqual(self.preempted_events("guarded"), [], "the Event follows a delete that worked")
            self.assertFalse(self.pod("high")["spec"].get("nodeName"))
        finally:
            self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0})
        self.assertGreaterEqual(sum(self.sim.get_json("/kubesim/admin/faults")["injectedFaults"].values()), 2)
        self.wait_gone("guarded")
        high = self.wait_running("high")
        self.assert_preempted_by("guarded", high)
        self.assertEqual(self.pod("free")["status"]["phase"], "Running")

    def test_preemption_policy_never_does_not_preempt(self):
        self.create("polite", "high-never")
        pod = self.wait_unschedulable("polite")
        self.assertEqual(pod["spec"]["preemptionPolicy"], "Never")
        message = next(c["message"] for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
        self.assertEqual(message, "0/1 nodes are available: 1 Insufficient cpu. "
                                  "preemption: not eligible due to preemptionPolicy=Never.")
        self.assertFalse(pod["status"].get("nominatedNodeName"))
        for name in ("guarded", "free"):
            self.assertEqual(self.pod(name)["status"]["phase"], "Running")
            self.assertEqual(self.preempted_events(name), [])

    def test_no_victims_when_every_pod_is_as_important(self):
        self.create("peer", "low")
        pod = self.wait_unschedulable("peer")
        message = next(c["message"] for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
        self.assertEqual(message, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are "
                                  "available: 1 No preemption victims found for incoming pod.")
        self.assertEqual(self.pod("guarded")["status"]["phase"], "Running")


if __name__ == "__main__":
    unittest.main()
