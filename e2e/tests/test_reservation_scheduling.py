"""Reservation placement and owner-pod scheduling (issue 5): berth-manager as koord-scheduler on kubesim.

The user guide's walkthroughs run verbatim with real kubectl (YAML copies in e2e/testdata/): Quick start,
Reserve on a specified node with multiple owners (the Deployment's two pods are created directly from its pod
template, since kubesim runs no Deployment controller), and the preAllocation examples. Further cases: a non-owner
pod cannot take reserved capacity, a Waiting reservation turns Available when a pod is deleted, unschedulable
messages name the real reasons and are retried on cluster changes, and a burst of 200 owner pods against 50
reusable reservations never over-allocates a reservation or a node.
"""
import copy
import json
import os
import unittest

import yaml

from kubesim_fixture import ROOT, ClusterPerClass, wait_until
from quantities import pod_requests, quantity

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
ANNOTATION = "scheduling.koordinator.sh/reservation-allocated"
TESTDATA = os.path.join(ROOT, "e2e", "testdata")


def transitions(mgr, frm, to, reason):
    return mgr.metric("berth_reservation_transitions_total", **{"from": frm}, to=to, reason=reason)


def wait_transitions(test, frm, to, reason, count):
    # The counter moves right after the status write the watch already delivered.
    wait_until(lambda: transitions(test.mgr, frm, to, reason) >= count, timeout=30,
               message=f"berth_reservation_transitions_total {frm}->{to} ({reason}) to reach {count}")
    test.assertEqual(transitions(test.mgr, frm, to, reason), count)


def burst_reservation(i):
    """Reservation burst-<i>: 1 cpu / 2Gi for the pods labelled app=burst, reusable (allocateOnce false)."""
    return {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
            "metadata": {"name": f"burst-{i}"},
            "spec": {"allocateOnce": False, "ttl": "1h",
                     "template": {"metadata": {"namespace": "default"},
                                  "spec": {"schedulerName": "koord-scheduler",
                                           "containers": [{"name": "main", "resources": {
                                               "requests": {"cpu": "1", "memory": "2Gi"}}}]}},
                     "owners": [{"labelSelector": {"matchLabels": {"app": "burst"}}}]}}


def testdata(name):
    return os.path.join(TESTDATA, name)


class SchedulingSuite(ClusterPerClass, unittest.TestCase):
    """One kubesim (nodes/flags per subclass) with the CRDs and one berth-manager."""

    # ---- helpers ----
    def reservation(self, name):
        r = self.sim.http("GET", f"{RES_PATH}/{name}")
        return r.json() if r.status_code == 200 else None

    def pod(self, name, ns="default"):
        r = self.sim.http("GET", f"/api/v1/namespaces/{ns}/pods/{name}")
        return r.json() if r.status_code == 200 else None

    def pods(self, selector=None):
        params = {"labelSelector": selector} if selector else {}
        return self.sim.http("GET", "/api/v1/pods", params=params).json()["items"]

    def wait_reservation(self, name, predicate, timeout=15, message=None):
        def check():
            r = self.reservation(name)
            return r if r and predicate(r) else None
        try:
            return wait_until(check, timeout=timeout, message=message or f"reservation {name}")
        except AssertionError as e:
            raise AssertionError(f"{e}\nreservation: {json.dumps(self.reservation(name), indent=1)}\n"
                                 f"berth-manager log (tail):\n{self.mgr.log_text()[-3000:]}") from None

    def wait_phase(self, name, phase, timeout=15):
        return self.wait_reservation(name, lambda r: r.get("status", {}).get("phase") == phase, timeout,
                                     f"reservation {name} to be {phase}")

    def wait_pod(self, name, predicate, timeout=15, message=None):
        def check():
            p = self.pod(name)
            return p if p and predicate(p) else None
        try:
            return wait_until(check, timeout=timeout, message=message or f"pod {name}")
        except AssertionError as e:
            raise AssertionError(f"{e}\npod: {json.dumps(self.pod(name), indent=1)}\n"
                                 f"berth-manager log (tail):\n{self.mgr.log_text()[-3000:]}") from None

    def wait_running(self, name, timeout=15):
        return self.wait_pod(name, lambda p: p["spec"].get("nodeName") and p.get("status", {}).get("phase") == "Running",
                             timeout, f"pod {name} to be bound and Running")

    def wait_unschedulable(self, name, timeout=15):
        def unschedulable(p):
            for c in p.get("status", {}).get("conditions", []):
                if c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable":
                    return True
            return False
        return self.wait_pod(name, unschedulable, timeout, f"pod {name} to be PodScheduled=False/Unschedulable")

    def events_for(self, name, reason):
        items = self.sim.http("GET", "/api/v1/events").json()["items"]
        return [e for e in items if e["involvedObject"].get("name") == name and e.get("reason") == reason]

    def create_pod(self, name, cpu, memory, labels=None, scheduler="koord-scheduler", node=None):
        spec = {"containers": [{"name": "main", "image": "busybox",
                                "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                "schedulerName": scheduler}
        if node:
            spec["nodeName"] = node
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                                  "labels": labels or {}}, "spec": spec}
        self.sim.apply_text(json.dumps(obj))

    def create_reservation(self, name, cpu, memory, owners, allocate_once=None, pre_allocation=None, node=None):
        tmpl_spec = {"containers": [{"name": "main", "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                     "schedulerName": "koord-scheduler"}
        if node:
            tmpl_spec["nodeName"] = node
        spec = {"template": {"metadata": {"namespace": "default"}, "spec": tmpl_spec}, "owners": owners, "ttl": "1h"}
        if allocate_once is not None:
            spec["allocateOnce"] = allocate_once
        if pre_allocation is not None:
            spec["preAllocation"] = pre_allocation
        self.sim.apply_text(json.dumps({"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                                        "metadata": {"name": name}, "spec": spec}))

    def node_requests(self, node):
        total = {}
        for p in self.pods():
            if p["spec"].get("nodeName") == node and p.get("status", {}).get("phase") not in ("Succeeded", "Failed"):
                for k, v in pod_requests(p).items():
                    total[k] = total.get(k, 0) + v
        return total


class UserGuideTest(SchedulingSuite):
    """The guide's walkthroughs, verbatim."""
    nodes = 3

    def test_quick_start_reservation_demo_then_pod_demo_0_allocates_200m_and_400Mi_and_survives_the_delete(self):
        placed = transitions(self.mgr, "Pending", "Available", "Scheduled")
        attempts = self.mgr.metric("berth_scheduler_attempts_total", kind="reservation", result="scheduled")
        out = self.sim.kubectl("create", "-f", testdata("reservation-demo.yaml"))
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-demo created")
        r = self.wait_phase("reservation-demo", "Available")
        wait_transitions(self, "Pending", "Available", "Scheduled", placed + 1)
        self.assertEqual(self.mgr.metric("berth_scheduler_attempts_total", kind="reservation", result="scheduled"),
                         attempts + 1)
        node = r["status"]["nodeName"]
        self.assertRegex(node, r"^node-\d$")
        wide = self.sim.kubectl("get", "reservation", "reservation-demo", "-o", "wide")
        self.assertRegex(wide.splitlines()[0], r"^NAME\s+PHASE\s+AGE\s+NODE\s+TTL\s+EXPIRES$")
        self.assertRegex(wide.splitlines()[1], rf"^reservation-demo\s+Available\s+\S+\s+{node}\s+1h\s*$")
        self.assertEqual(r["status"]["allocatable"], {"cpu": "500m", "memory": "800Mi"})
        conds = [(c["type"], c["status"], c["reason"]) for c in r["status"]["conditions"]]
        self.assertEqual(conds, [("Scheduled", "True", "Scheduled"), ("Ready", "True", "Available")])
        for c in r["status"]["conditions"]:
            self.assertIn("lastProbeTime", c)
            self.assertIn("lastTransitionTime", c)
        # Events are posted from the recorder's queue, after the status write: waited for, not read at once.
        wait_until(lambda: self.events_for("reservation-demo", "Scheduled"), timeout=30,
                   message="the Scheduled Event of reservation-demo")

        out = self.sim.kubectl("create", "-f", testdata("pod-demo-0.yaml"))
        self.assertEqual(out.strip(), "pod/pod-demo-0 created")
        pod = self.wait_running("pod-demo-0")
        self.assertEqual(pod["spec"]["nodeName"], node, "pod-demo-0 lands on the reservation's node")
        self.assertEqual(json.loads(pod["metadata"]["annotations"][ANNOTATION]),
                         {"name": "reservation-demo", "uid": r["metadata"]["uid"]})
        wide = self.sim.kubectl("get", "pod", "pod-demo-0", "-o", "wide")
        self.assertRegex(wide.splitlines()[1], rf"^pod-demo-0\s+1/1\s+Running\s+0\s+\S+\s+\S+\s+{node}\s")

        r = self.wait_reservation("reservation-demo", lambda r: r["status"].get("currentOwners"),
                                  message="currentOwners to be filled")
        self.assertEqual(r["status"]["allocated"], {"cpu": "200m", "memory": "400Mi"})
        self.assertEqual(r["status"]["allocatable"], {"cpu": "500m", "memory": "800Mi"})
        self.assertEqual(r["status"]["currentOwners"],
                         [{"name": "pod-demo-0", "namespace": "default", "uid": pod["metadata"]["uid"]}])
        self.assertEqual(r["status"]["nodeName"], node)

        out = self.sim.kubectl("delete", "reservation", "reservation-demo")
        self.assertEqual(out.strip(), 'reservation.scheduling.koordinator.sh "reservation-demo" deleted')
        wait_until(lambda: self.reservation("reservation-demo") is None, message="reservation to be gone")
        out = self.sim.kubectl("get", "pod", "pod-demo-0")
        self.assertRegex(out.splitlines()[1], r"^pod-demo-0\s+1/1\s+Running\s+0\s+")
        self.sim.kubectl("delete", "pod", "pod-demo-0", "--wait=false")

    def test_reserve_on_node_1_with_multiple_owners_takes_two_app_demo_pods_without_double_counting(self):
        out = self.sim.kubectl("create", "-f", testdata("reservation-demo-big.yaml"))
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-demo-big created")
        r = self.wait_phase("reservation-demo-big", "Available")
        self.assertEqual(r["status"]["nodeName"], "node-1")
        self.assertEqual(r["status"]["allocatable"], {"cpu": "6", "memory": "20Gi"})
        wide = self.sim.kubectl("get", "reservation", "reservation-demo-big", "-o", "wide")
        self.assertRegex(wide.splitlines()[1], r"^reservation-demo-big\s+Available\s+\S+\s+node-1\s+1h\s*$")

        # kubesim runs no Deployment controller: create the Deployment's two pods from its template.
        with open(testdata("app-demo.yaml")) as f:
            deployment = yaml.safe_load(f)
        template = deployment["spec"]["template"]
        uids = []
        for suffix in ("798c66db46-ctnbr", "798c66db46-pzphc"):
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": copy.deepcopy(template["metadata"]),
                   "spec": copy.deepcopy(template["spec"])}
            pod["metadata"]["name"] = "app-demo-" + suffix
            self.sim.apply_text(json.dumps(pod))
        for suffix in ("798c66db46-ctnbr", "798c66db46-pzphc"):
            p = self.wait_running("app-demo-" + suffix)
            self.assertEqual(p["spec"]["nodeName"], "node-1")
            uids.append(p["metadata"]["uid"])
        out = self.sim.kubectl("get", "pod", "-l", "app=app-demo", "-o", "wide")
        self.assertEqual(len(out.splitlines()), 3)
        for line in out.splitlines()[1:]:
            self.assertRegex(line, r"^app-demo-\S+\s+1/1\s+Running\s+0\s+\S+\s+\S+\s+node-1\s")

        r = self.wait_reservation("reservation-demo-big",
                                  lambda r: len(r["status"].get("currentOwners", [])) == 2,
                                  message="two currentOwners")
        self.assertEqual(r["status"]["allocated"], {"cpu": "4", "memory": "20Gi"})
        self.assertEqual(r["status"]["phase"], "Available")
        self.assertEqual(sorted(o["uid"] for o in r["status"]["currentOwners"]), sorted(uids))
        # node-1's requests are the pods' requests (4 cpu, 20Gi), not pods + reservation.
        requests = self.node_requests("node-1")
        self.assertEqual(requests["cpu"], 4)
        self.assertEqual(requests["memory"], 20 * 2**30)
        described = self.sim.kubectl("describe", "node", "node-1")
        block = described[described.index("Allocated resources"):]
        self.assertRegex(block, r"\n\s+cpu\s+4 \(50%\)\s")
        self.assertRegex(block, r"\n\s+memory\s+20Gi \(62%\)\s")

    # ---- preAllocation: pre-allocating running pods ----
    # kubesim runs no kube-scheduler: the test binds the default-scheduler pods itself.
    def bind(self, name, node, ns="default"):
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": ns},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        r = self.sim.http("POST", f"/api/v1/namespaces/{ns}/pods/{name}/binding", json=body)
        self.assertEqual(r.status_code, 201, r.text)
        return self.wait_running(name)

    def ready(self, r):
        return [c for c in r["status"]["conditions"] if c["type"] == "Ready"][0]

    def pre_allocated(self, r):
        return json.loads(r["metadata"]["annotations"]["berth.dev/pre-allocated-pods"])

    def cleanup(self, *objects):
        def run():
            for kind, name in objects:
                self.sim.kubectl("delete", kind, name, "--ignore-not-found", "--wait=false")
        self.addCleanup(run)

    def test_pre_allocation_default_mode_pre_allocates_a_running_owner_pod_and_is_available_once_it_is_gone(self):
        self.cleanup(("reservation", "reservation-prealloc"), ("pod", "my-app-0"), ("pod", "not-mine"))
        # A running pod that is not an owner, and one labelled app: my-app (the example's owner).
        self.create_pod("not-mine", "1", "1Gi", labels={"app": "other"}, scheduler="default-scheduler")
        self.bind("not-mine", "node-0")
        self.create_pod("my-app-0", "1", "1Gi", labels={"app": "my-app"}, scheduler="default-scheduler")
        pod = self.bind("my-app-0", "node-2")
        out = self.sim.kubectl("create", "-f", testdata("reservation-prealloc.yaml"))
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-prealloc created")
        r = self.wait_phase("reservation-prealloc", "Waiting")
        self.assertEqual(r["status"]["nodeName"], "node-2", "placed on the pre-allocated pod's node")
        self.assertEqual(r["status"]["allocatable"], {"cpu": "500m", "memory": "800Mi"})
        self.assertEqual(self.pre_allocated(r),
                         [{"namespace": "default", "name": "my-app-0", "uid": pod["metadata"]["uid"]}])
        ready = self.ready(r)
        self.assertEqual((ready["status"], ready["reason"]), ("False", "Waiting"))
        self.assertEqual(ready["message"],
                         "waiting for the pre-allocated pods to terminate: default/my-app-0 (cpu 1, memory 1Gi)")
        out = self.sim.kubectl("get", "reservation", "reservation-prealloc")
        self.assertRegex(out.splitlines()[1], r"^reservation-prealloc\s+Waiting\s+\S+\s+node-2\s+2h")
        self.assertFalse(r["status"].get("currentOwners"), "a pre-allocated pod is not an owner")

        self.sim.kubectl("delete", "pod", "my-app-0")
        r = self.wait_phase("reservation-prealloc", "Available")
        self.assertEqual(r["status"]["nodeName"], "node-2")
        ready = self.ready(r)
        self.assertEqual((ready["status"], ready["reason"]), ("True", "Available"))
        # The freed capacity is reserved for the owners: an owner pod lands there through it.
        self.create_pod("my-app-1", "500m", "800Mi", labels={"app": "my-app"})
        self.cleanup(("pod", "my-app-1"))
        owner = self.wait_running("my-app-1")
        self.assertEqual(owner["spec"]["nodeName"], "node-2")
        self.assertEqual(json.loads(owner["metadata"]["annotations"][ANNOTATION])["name"], "reservation-prealloc")

    def test_pre_allocation_cluster_mode_takes_the_labelled_batch_job_and_survives_a_manager_restart(self):
        self.cleanup(("reservation", "reservation-cluster-mode"), ("pod", "batch-job-1"))
        out = self.sim.kubectl("create", "-f", testdata("batch-job-1.yaml"))
        self.assertEqual(out.strip(), "pod/batch-job-1 created")
        pod = self.bind("batch-job-1", "node-1")
        out = self.sim.kubectl("create", "-f", testdata("reservation-cluster-mode.yaml"))
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-cluster-mode created")
        r = self.wait_phase("reservation-cluster-mode", "Waiting")
        self.assertEqual(r["status"]["nodeName"], "node-1")
        self.assertEqual(r["status"]["allocatable"], {"cpu": "2", "memory": "4Gi"})
        self.assertEqual(self.pre_allocated(r),
                         [{"namespace": "default", "name": "batch-job-1", "uid": pod["metadata"]["uid"]}])
        self.assertEqual(self.ready(r)["message"],
                         "waiting for the pre-allocated pods to terminate: default/batch-job-1 (cpu 2, memory 4Gi)")
        # node-1's usage is the running pod's, not pod + reservation.
        described = self.sim.kubectl("describe", "node", "node-1")
        block = described[described.index("Allocated resources"):]
        self.assertRegex(block, r"\n\s+cpu\s+2 \(")

        # A restart of berth-manager keeps the binding: still Waiting on the same pod afterwards.
        # Reading right after /readyz would pass even if the new process promoted it a moment
        # later, so first let the reservation queue (FIFO: the initial list comes first) place a
        # probe created after the restart; by then reservation-cluster-mode has been decided.
        # SIGTERM is a clean stop (exit 0), as a pod's termination in Kubernetes is.
        code = self.mgr.stop()
        with open(self.mgr.log_path) as log:
            self.assertEqual(code, 0, "berth-manager did not stop cleanly on SIGTERM:\n" + log.read()[-2000:])
        self.mgr.start()
        self.cleanup(("reservation", "restart-probe"))
        self.create_reservation("restart-probe", "100m", "64Mi", [{"object": {"name": "nobody"}}], node="node-1")
        self.wait_phase("restart-probe", "Available")
        r = self.reservation("reservation-cluster-mode")
        self.assertEqual(r["status"]["phase"], "Waiting")
        self.assertEqual(self.pre_allocated(r)[0]["name"], "batch-job-1")
        self.assertEqual(self.ready(r)["message"],
                         "waiting for the pre-allocated pods to terminate: default/batch-job-1 (cpu 2, memory 4Gi)")

        self.sim.kubectl("delete", "pod", "batch-job-1")
        r = self.wait_phase("reservation-cluster-mode", "Available")
        self.assertEqual(r["status"]["nodeName"], "node-1")
        self.assertEqual(self.ready(r)["reason"], "Available")

    def test_pre_allocation_with_multiple_pods_takes_both_batch_jobs_and_waits_for_both(self):
        self.cleanup(("reservation", "reservation-multi-pods"), ("pod", "batch-job-1"), ("pod", "batch-job-2"))
        out = self.sim.kubectl("create", "-f", testdata("batch-jobs-multi.yaml"))
        self.assertEqual(out.strip().splitlines(), ["pod/batch-job-1 created", "pod/batch-job-2 created"])
        uids = {name: self.bind(name, "node-0")["metadata"]["uid"] for name in ("batch-job-2", "batch-job-1")}
        self.sim.kubectl("create", "-f", testdata("reservation-multi-pods.yaml"))
        r = self.wait_phase("reservation-multi-pods", "Waiting")
        self.assertEqual(r["status"]["nodeName"], "node-0")
        self.assertEqual(r["status"]["allocatable"], {"cpu": "2", "memory": "4Gi"})
        # Both, in priority order (100, then 90).
        self.assertEqual(self.pre_allocated(r),
                         [{"namespace": "default", "name": "batch-job-1", "uid": uids["batch-job-1"]},
                          {"namespace": "default", "name": "batch-job-2", "uid": uids["batch-job-2"]}])
        self.assertEqual(self.ready(r)["message"],
                         "waiting for the pre-allocated pods to terminate: default/batch-job-1 (cpu 1, memory 2Gi), "
                         "default/batch-job-2 (cpu 1, memory 2Gi)")

        self.sim.kubectl("delete", "pod", "batch-job-1")
        r = self.wait_reservation("reservation-multi-pods",
                                  lambda r: self.ready(r)["message"].endswith(": default/batch-job-2 (cpu 1, memory 2Gi)"),
                                  message="the Waiting message to name only batch-job-2")
        self.assertEqual(r["status"]["phase"], "Waiting", "still Waiting while batch-job-2 runs")

        self.sim.kubectl("delete", "pod", "batch-job-2")
        r = self.wait_phase("reservation-multi-pods", "Available")
        self.assertEqual(r["status"]["nodeName"], "node-0")


class ConstrainedNodeTest(SchedulingSuite):
    """One small node (2 cpu, 4Gi): reserved capacity, Waiting, unschedulable retries."""
    nodes = 1
    sim_flags = {"node_cpu": "2", "node_memory": "4Gi"}

    def tearDown(self):
        self.sim.kubectl("delete", "pods", "--all", "--wait=false")
        self.sim.kubectl("delete", "reservations", "--all", "--wait=false")
        wait_until(lambda: not self.pods() and not self.sim.get_json(RES_PATH)["items"], message="cleanup")

    def test_a_non_owner_pod_cannot_take_reserved_capacity_and_stays_pending_with_the_reason(self):
        self.create_reservation("held", "1500m", "1Gi", [{"labelSelector": {"matchLabels": {"app": "owner"}}}],
                                allocate_once=False)
        self.wait_phase("held", "Available")
        self.create_pod("stranger", "1", "128Mi", labels={"app": "stranger"})
        pod = self.wait_unschedulable("stranger")
        cond = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"][0]
        self.assertEqual(cond["message"], "0/1 nodes are available: 1 Insufficient cpu."
                                          " preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
        wait_until(lambda: self.events_for("stranger", "FailedScheduling"), message="FailedScheduling event")
        # An owner pod of the same size uses the reservation.
        self.create_pod("owner", "1", "128Mi", labels={"app": "owner"})
        owner = self.wait_running("owner")
        self.assertEqual(json.loads(owner["metadata"]["annotations"][ANNOTATION])["name"], "held")
        self.assertFalse(self.pod("stranger")["spec"].get("nodeName"))
        # The reservation is deleted: the capacity is released and the stranger is retried.
        self.sim.kubectl("delete", "reservation", "held")
        self.wait_running("stranger")

    def test_a_pending_pod_is_scheduled_when_a_pod_is_deleted(self):
        self.create_pod("filler", "1500m", "1Gi")
        self.wait_running("filler")
        self.create_pod("late", "1", "1Gi")
        pod = self.wait_unschedulable("late")
        self.assertIn("0/1 nodes are available: 1 Insufficient cpu."
                      " preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
                      [c.get("message") for c in pod["status"]["conditions"]])
        self.sim.kubectl("delete", "pod", "filler", "--wait=false")
        self.wait_running("late")

    def test_a_pre_allocation_reservation_waits_on_a_full_node_and_turns_available_when_a_pod_is_deleted(self):
        self.create_pod("filler", "1800m", "1Gi")
        self.wait_running("filler")
        to_waiting = transitions(self.mgr, "Pending", "Waiting", "Scheduled")
        promoted = transitions(self.mgr, "Waiting", "Available", "Available")
        self.create_reservation("pre", "1", "1Gi", [{"labelSelector": {"matchLabels": {"app": "later"}}}],
                                pre_allocation=True)
        r = self.wait_phase("pre", "Waiting")
        wait_transitions(self, "Pending", "Waiting", "Scheduled", to_waiting + 1)
        self.assertEqual(r["status"]["nodeName"], "node-0")
        ready = [c for c in r["status"]["conditions"] if c["type"] == "Ready"][0]
        self.assertEqual((ready["status"], ready["reason"]), ("False", "Waiting"))
        out = self.sim.kubectl("get", "reservation", "pre")
        self.assertRegex(out.splitlines()[1], r"^pre\s+Waiting\s+\S+\s+node-0\s+1h")
        self.sim.kubectl("delete", "pod", "filler", "--wait=false")
        r = self.wait_phase("pre", "Available")
        ready = [c for c in r["status"]["conditions"] if c["type"] == "Ready"][0]
        self.assertEqual((ready["status"], ready["reason"]), ("True", "Available"))
        wait_transitions(self, "Waiting", "Available", "Available", promoted + 1)

    def test_an_unplaceable_reservation_stays_pending_with_the_fit_error_and_is_placed_once_room_is_freed(self):
        self.create_pod("filler", "1800m", "1Gi")
        self.wait_running("filler")
        self.create_reservation("late", "1", "1Gi", [{"object": {"name": "x", "namespace": "default"}}])
        r = self.wait_reservation("late", lambda r: any(c["type"] == "Scheduled" and c["status"] == "False"
                                                        for c in r.get("status", {}).get("conditions", [])),
                                  message="Scheduled=False")
        self.assertIn(r["status"].get("phase", "Pending"), ("Pending",))
        cond = [c for c in r["status"]["conditions"] if c["type"] == "Scheduled"][0]
        self.assertEqual((cond["reason"], cond["message"]),
                         ("Unschedulable", "0/1 nodes are available: 1 Insufficient cpu."))
        self.assertFalse(r["status"].get("nodeName"))
        wait_until(lambda: self.events_for("late", "FailedScheduling"), message="FailedScheduling event")
        self.sim.kubectl("delete", "pod", "filler", "--wait=false")
        r = self.wait_phase("late", "Available")
        self.assertEqual(r["status"]["nodeName"], "node-0")


class ReasonsTest(SchedulingSuite):
    """Three nodes made unfit for three different reasons."""
    nodes = 3
    sim_flags = {"node_cpu": "2", "node_memory": "4Gi"}

    def test_the_unschedulable_message_names_every_real_reason(self):
        self.sim.kubectl("taint", "nodes", "node-0", "dedicated=infra:NoSchedule")
        self.sim.kubectl("cordon", "node-1")
        self.create_pod("big-filler", "1500m", "1Gi", node="node-2")
        self.wait_running("big-filler")
        self.create_pod("picky", "1", "1Gi")
        pod = self.wait_unschedulable("picky")
        cond = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"][0]
        self.assertEqual(cond["message"], "0/3 nodes are available: 1 Insufficient cpu, "
                                          "1 node(s) had untolerated taint {dedicated: infra}, "
                                          "1 node(s) were unschedulable. preemption: 0/3 nodes are available: "
                                          "1 No preemption victims found for incoming pod, "
                                          "2 Preemption is not helpful for scheduling.")
        events = wait_until(lambda: self.events_for("picky", "FailedScheduling"), message="event")
        self.assertEqual(events[0]["type"], "Warning")
        self.assertIn("1 node(s) were unschedulable", events[0]["message"])
        # A node change is a cluster change: uncordoning node-1 lets the pod in.
        self.sim.kubectl("uncordon", "node-1")
        pod = self.wait_running("picky")
        self.assertEqual(pod["spec"]["nodeName"], "node-1")


class FlagsTest(SchedulingSuite):
    """--scheduler-names picks whose objects berth schedules; --scoring-strategy MostAllocated packs."""
    nodes = 3
    manager_args = ("--scheduler-names", "berth-a, berth-b", "--scoring-strategy", "MostAllocated")

    def test_only_the_named_schedulers_objects_are_placed_and_bound(self):
        self.create_reservation("for-koord", "100m", "64Mi", [{"object": {"name": "x"}}])
        tmpl = json.loads(json.dumps({"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                                      "metadata": {"name": "for-berth-b"},
                                      "spec": {"template": {"spec": {"schedulerName": "berth-b", "containers": [
                                          {"name": "m", "resources": {"requests": {"cpu": "100m"}}}]}},
                                               "owners": [{"object": {"name": "x"}}]}}))
        self.sim.apply_text(json.dumps(tmpl))
        self.create_pod("koord-pod", "100m", "64Mi")
        self.create_pod("berth-a-pod", "100m", "64Mi", scheduler="berth-a")
        self.wait_phase("for-berth-b", "Available")
        self.wait_running("berth-a-pod")
        # Events for one informer are handled in order: the earlier koord-scheduler objects were seen and left alone.
        self.assertNotIn("nodeName", self.reservation("for-koord").get("status", {}))
        self.assertFalse(self.pod("koord-pod")["spec"].get("nodeName"))
        self.assertFalse(self.events_for("for-koord", "FailedScheduling"))

    def test_most_allocated_puts_the_second_pod_on_the_node_of_the_first(self):
        self.create_pod("pack-1", "1", "1Gi", scheduler="berth-a")
        first = self.wait_running("pack-1")["spec"]["nodeName"]
        self.create_pod("pack-2", "1", "1Gi", scheduler="berth-a")
        self.assertEqual(self.wait_running("pack-2")["spec"]["nodeName"], first)

    def test_bad_flag_values_are_refused_with_exit_code_2(self):
        import subprocess
        from kubesim_fixture import BIN
        for args in (["--scoring-strategy", "Balanced"], ["--scheduler-names", " , "],
                     ["--pre-allocation-cluster-mode", "yes"], ["--pre-allocation-prefer-no-pre-allocated-pods=yes"],
                     ["--pre-allocation-cluster-label-key="], ["--reservation-owner-sync-interval=-1s"],
                     ["--reservation-owner-sync-interval", "soon"]):
            r = subprocess.run([os.path.join(BIN, "berth-manager"), "--kubeconfig", self.sim.kubeconfig] + args,
                               capture_output=True, text=True, timeout=20)
            self.assertEqual(r.returncode, 2, r.stderr)
        out = subprocess.run([os.path.join(BIN, "berth-manager"), "--help"], capture_output=True, text=True).stdout
        self.assertIn("--scheduler-names", out)
        self.assertIn("--scoring-strategy", out)
        self.assertIn("--pre-allocation-cluster-mode", out)
        self.assertIn("--pre-allocation-prefer-no-pre-allocated-pods", out)
        self.assertIn("--reservation-owner-sync-interval", out)


class BurstTest(SchedulingSuite):
    """200 owner pods against 50 reusable reservations on 10 nodes."""
    nodes = 10
    sim_flags = {"node_cpu": "8", "node_memory": "32Gi"}

    def test_a_burst_of_200_owner_pods_never_over_allocates_a_reservation_or_a_node(self):
        # One POST per object (kubectl create of a List hits kubesim bug B10).
        for i in range(50):
            self.assertEqual(self.sim.http("POST", RES_PATH, json=burst_reservation(i)).status_code, 201)
        wait_until(lambda: all(r.get("status", {}).get("phase") == "Available"
                               for r in self.sim.get_json(RES_PATH)["items"]) and
                   len(self.sim.get_json(RES_PATH)["items"]) == 50, timeout=30, message="50 Available reservations")
        pods = []
        for i in range(200):
            pods.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"burst-pod-{i}", "namespace": "default", "labels": {"app": "burst"}},
                         "spec": {"schedulerName": "koord-scheduler",
                                  "containers": [{"name": "main", "image": "busybox",
                                                  "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}}}]}})
        for item in pods:
            self.assertEqual(self.sim.http("POST", "/api/v1/namespaces/default/pods", json=item).status_code, 201)
        wait_until(lambda: sum(1 for p in self.pods("app=burst") if p["spec"].get("nodeName")) == 200,
                   timeout=60, message="200 pods bound")
        reservations = {r["metadata"]["uid"]: r for r in self.sim.get_json(RES_PATH)["items"]}
        by_reservation = {}
        for p in self.pods("app=burst"):
            ann = p["metadata"].get("annotations", {}).get(ANNOTATION)
            if ann:
                uid = json.loads(ann)["uid"]
                self.assertIn(uid, reservations)
                self.assertEqual(p["spec"]["nodeName"], reservations[uid]["status"]["nodeName"])
                by_reservation.setdefault(uid, []).append(p)
        # Every pod matches every reservation and 50 x 4 slots of 250m fit the 200 pods: all go to reservations.
        self.assertEqual(sum(len(c) for c in by_reservation.values()), 200)
        for uid, consumers in by_reservation.items():
            cpu = sum(pod_requests(p)["cpu"] for p in consumers)
            self.assertLessEqual(cpu, 1.0 + 1e-9, reservations[uid]["metadata"]["name"])
            mem = sum(pod_requests(p)["memory"] for p in consumers)
            self.assertLessEqual(mem, 2 * 2**30, reservations[uid]["metadata"]["name"])
        # The lifecycle controller's view agrees: allocated <= allocatable everywhere.
        def settled():
            items = self.sim.get_json(RES_PATH)["items"]
            got = {r["metadata"]["uid"]: len(r["status"].get("currentOwners", [])) for r in items}
            return all(got[u] == len(c) for u, c in by_reservation.items())
        wait_until(settled, timeout=30, message="currentOwners to match the annotations")
        for r in self.sim.get_json(RES_PATH)["items"]:
            alloc = r["status"].get("allocated", {})
            for k, v in alloc.items():
                self.assertLessEqual(quantity(v), quantity(r["status"]["allocatable"][k]), r["metadata"]["name"])
        # No node is overcommitted: pod requests plus what reservations still hold fit allocatable.
        for i in range(10):
            node = f"node-{i}"
            req = self.node_requests(node)
            held_cpu = 0.0
            for uid, r in reservations.items():
                if r["status"]["nodeName"] == node:
                    used = sum(pod_requests(p)["cpu"] for p in by_reservation.get(uid, []))
                    held_cpu += max(0.0, 1.0 - used)
            self.assertLessEqual(req.get("cpu", 0), 8 + 1e-9, node)
            self.assertLessEqual(req.get("cpu", 0) + held_cpu, 8 + 1e-9, node)
            self.assertLessEqual(req.get("memory", 0), 32 * 2**30, node)


if __name__ == "__main__":
    unittest.main()
