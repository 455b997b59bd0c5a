"""koordinator's own Reservation e2e scenarios (test/e2e/scheduling/reservation.go and reservation_scheduling.go),
ported to real kubectl against kubesim with berth-manager as koord-scheduler.

Each test follows one upstream ginkgo case: the same objects (upstream's simple-reservation manifest: allocateOnce,
owner `app: e2e-test-reservation`, 1 CPU / 1Gi requests and limits, schedulerName koord-scheduler, template namespace
default; pause pods in a test namespace, "NodeName" expressed as upstream's helper does, a required matchFields
metadata.name node affinity) and the same assertions (phases, pod bound into the reservation with the annotation
exactly {name, uid}, status.allocatable/allocated/currentOwners, PodScheduled=False for pods that must not fit).
"""
import json
import time
import unittest
import uuid

from kubesim_fixture import ClusterPerClass, wait_until
from quantities import quantity

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
ANNOTATION = "scheduling.koordinator.sh/reservation-allocated"
FAKE = "koordinator.sh/fake-resource"
NS = "reservation-e2e"


def quantities(resources):
    """A ResourceList as {name: float}, so "2" and "2000m" compare equal as equality.Semantic does."""
    return {k: quantity(v) for k, v in (resources or {}).items()}


def simple_reservation(name, **overrides):
    """upstream's testing-manifests/scheduling/simple-reservation.yaml, as a dict to modify like the Go tests do."""
    r = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
         "metadata": {"name": name, "labels": {"e2e-test-reservation": "true"}},
         "spec": {"allocateOnce": True,
                  "template": {"metadata": {"namespace": "default"},
                               "spec": {"containers": [{"name": "main", "image": "busybox",
                                                        "resources": {"limits": {"cpu": "1", "memory": "1Gi"},
                                                                      "requests": {"cpu": "1", "memory": "1Gi"}}}],
                                        "schedulerName": "koord-scheduler"}},
                  "owners": [{"labelSelector": {"matchLabels": {"app": "e2e-test-reservation"}}}]}}
    r["spec"].update(overrides)
    return r


def node_affinity(node):
    """e2epod.SetNodeAffinity: what upstream's pause pods get for pausePodConfig.NodeName."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}


def pause_pod(name, labels=None, annotations=None, resources=None, node=None, affinity=None, tolerations=None,
              spread=None, scheduler="koord-scheduler"):
    """initPausePod of upstream's helper.go."""
    spec = {"containers": [{"name": name, "image": "registry.k8s.io/pause:3.10"}],
            "terminationGracePeriodSeconds": 1, "schedulerName": scheduler}
    if resources:
        spec["containers"][0]["resources"] = resources
    if affinity:
        spec["affinity"] = affinity
    if node:
        spec["affinity"] = node_affinity(node)
    if tolerations:
        spec["tolerations"] = tolerations
    if spread:
        spec["topologySpreadConstraints"] = spread
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "labels": labels or {}, "annotations": annotations or {}},
            "spec": spec}


ONE_CPU_1GI = {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}


class KoordinatorE2EBase(ClusterPerClass, unittest.TestCase):
    """One kubesim with berth-manager and the test namespace; upstream's helpers. No tests of its own."""

    @classmethod
    def set_up_cluster(cls):
        cls.sim.kubectl("create", "namespace", NS)

    def tearDown(self):
        # upstream's AfterEach: delete the labelled reservations; the namespace's pods go too.
        self.sim.kubectl("delete", "reservations", "-l", "e2e-test-reservation=true", "--wait=false")
        self.sim.kubectl("delete", "replicasets", "--all", "-n", NS, "--wait=false")
        self.sim.kubectl("delete", "pods", "--all", "-n", NS, "--grace-period=0", "--force", check=False)
        wait_until(lambda: not self.sim.get_json(f"/api/v1/namespaces/{NS}/pods")["items"], timeout=20,
                   message="the test namespace's pods to be gone")

    # ---- helpers ----
    def create(self, obj):
        self.sim.apply_text(json.dumps(obj))

    def reservation(self, name):
        r = self.sim.http("GET", f"{RES_PATH}/{name}")
        return r.json() if r.status_code == 200 else None

    def pod(self, name):
        r = self.sim.http("GET", f"/api/v1/namespaces/{NS}/pods/{name}")
        return r.json() if r.status_code == 200 else None

    def diagnostics(self):
        return (f"\nreservations: {json.dumps(self.sim.get_json(RES_PATH)['items'], indent=1)[-4000:]}"
                f"\nberth-manager log (tail):\n{self.mgr.log_text()[-3000:]}")

    def wait_available(self, name, timeout=60):
        """waitingForReservationScheduled: IsReservationAvailable (phase Available and a node)."""
        def check():
            r = self.reservation(name)
            return r if r and r.get("status", {}).get("phase") == "Available" and r["status"].get("nodeName") else None
        try:
            return wait_until(check, timeout=timeout, interval=0.2, message=f"reservation {name} to be Available")
        except AssertionError as e:
            raise AssertionError(f"{e}{self.diagnostics()}") from None

    def wait_reservation(self, name, predicate, message, timeout=60):
        try:
            return wait_until(lambda: (lambda r: r if r and predicate(r) else None)(self.reservation(name)),
                              timeout=timeout, interval=0.2, message=message)
        except AssertionError as e:
            raise AssertionError(f"{e}{self.diagnostics()}") from None

    def wait_running(self, name, timeout=60):
        def check():
            p = self.pod(name)
            return p if p and p["spec"].get("nodeName") and p.get("status", {}).get("phase") == "Running" else None
        try:
            return wait_until(check, timeout=timeout, interval=0.2, message=f"pod {name} to be Running")
        except AssertionError as e:
            raise AssertionError(f"{e}\npod: {json.dumps(self.pod(name), indent=1)}{self.diagnostics()}") from None

    def wait_schedule_failed(self, name, timeout=60):
        """upstream's "wait for pod schedule failed": the PodScheduled condition is False."""
        def check():
            p = self.pod(name)
            conds = (p or {}).get("status", {}).get("conditions", [])
            return p if any(c["type"] == "PodScheduled" and c["status"] == "False" for c in conds) else None
        try:
            return wait_until(check, timeout=timeout, interval=0.2, message=f"pod {name} to be PodScheduled=False")
        except AssertionError as e:
            raise AssertionError(f"{e}\npod: {json.dumps(self.pod(name), indent=1)}{self.diagnostics()}") from None

    def expect_pod_bound_reservation(self, pod_name, reservation_name):
        pod = self.pod(pod_name)
        r = self.reservation(reservation_name)
        self.assertEqual(pod["spec"]["nodeName"], r["status"]["nodeName"])
        self.assertEqual(json.loads(pod["metadata"]["annotations"][ANNOTATION]),
                         {"name": r["metadata"]["name"], "uid": r["metadata"]["uid"]})
        return pod

    def set_fake_resource(self, node, amount):
        patch = {"status": {"capacity": {FAKE: amount}, "allocatable": {FAKE: amount}}}
        self.sim.kubectl("patch", "node", node, "--subresource=status", "--type=merge", "-p", json.dumps(patch))
        self.addCleanup(lambda: self.sim.kubectl(
            "patch", "node", node, "--subresource=status", "--type=merge", "-p",
            json.dumps({"status": {"capacity": {FAKE: None}, "allocatable": {FAKE: None}}})))



class KoordinatorReservationE2E(KoordinatorE2EBase):
    # ---- reservation.go: Basic Reservation functionality ----
    def test_allocate_once_reserves_cpu_and_memory_for_a_pod(self):
        self.create(simple_reservation("e2e-allocate-once"))
        self.wait_available("e2e-allocate-once")
        self.create(pause_pod("simple-pod-with-reservation", labels={"app": "e2e-test-reservation"},
                              resources=ONE_CPU_1GI))
        pod = self.wait_running("simple-pod-with-reservation")
        self.expect_pod_bound_reservation("simple-pod-with-reservation", "e2e-allocate-once")
        r = self.wait_reservation("e2e-allocate-once", lambda r: r["status"].get("phase") == "Succeeded",
                                  "reservation to be Succeeded")
        self.assertEqual(quantities(r["status"]["allocatable"]), quantities({"cpu": "1", "memory": "1Gi"}))
        self.assertEqual(quantities(r["status"]["allocated"]), quantities({"cpu": "1", "memory": "1Gi"}))
        self.assertEqual(r["status"]["currentOwners"],
                         [{"namespace": NS, "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}])

    def test_allocate_once_false_reserves_cpu_and_memory_for_two_pods(self):
        two = {"limits": {"cpu": "2", "memory": "2Gi"}, "requests": {"cpu": "2", "memory": "2Gi"}}
        res = simple_reservation("e2e-two-pods", allocateOnce=False)
        res["spec"]["template"]["spec"]["containers"][0]["resources"] = two
        self.create(res)
        self.wait_available("e2e-two-pods")
        for i in range(2):
            self.create(pause_pod(f"simple-pod-with-reservation-{i}", labels={"app": "e2e-test-reservation"},
                                  resources=ONE_CPU_1GI))
            self.wait_running(f"simple-pod-with-reservation-{i}")
        owners = []
        for i in range(2):
            p = self.expect_pod_bound_reservation(f"simple-pod-with-reservation-{i}", "e2e-two-pods")
            owners.append({"namespace": NS, "name": p["metadata"]["name"], "uid": p["metadata"]["uid"]})
        r = self.wait_reservation("e2e-two-pods", lambda r: len(r["status"].get("currentOwners", [])) == 2,
                                  "two currentOwners")
        self.assertEqual(quantities(r["status"]["allocatable"]), quantities({"cpu": "2", "memory": "2Gi"}))
        self.assertEqual(quantities(r["status"]["allocated"]), quantities({"cpu": "2", "memory": "2Gi"}))
        self.assertEqual(sorted(r["status"]["currentOwners"], key=lambda o: o["uid"]),
                         sorted(owners, key=lambda o: o["uid"]))
        self.assertEqual(r["status"]["phase"], "Available")

    def test_a_reservation_of_all_remaining_fake_resource_keeps_other_pods_off(self):
        node = "node-0"
        self.set_fake_resource(node, "1000")
        res = simple_reservation("e2e-fake-all")
        tmpl = res["spec"]["template"]["spec"]
        tmpl["nodeName"] = node
        tmpl["containers"].append({"name": "fake-resource-container",
                                   "resources": {"limits": {FAKE: "1000"}, "requests": {FAKE: "1000"}}})
        self.create(res)
        r = self.wait_available("e2e-fake-all")
        self.assertEqual(r["status"]["nodeName"], node)
        name = str(uuid.uuid4())
        self.create(pause_pod(name, resources={"limits": {FAKE: "1000"}, "requests": {FAKE: "1000"}}, node=node))
        self.wait_schedule_failed(name)
        self.assertNotIn("nodeName", self.pod(name)["spec"])

    def test_after_a_pod_uses_a_reservation_another_reservation_takes_the_nodes_remainder(self):
        node = "node-1"
        self.set_fake_resource(node, "1000")
        res = simple_reservation("e2e-fake-half", allocateOnce=False,
                                 owners=[{"labelSelector": {"matchLabels": {"e2e-reserve-resource": "true"}}}])
        tmpl = res["spec"]["template"]["spec"]
        tmpl["nodeName"] = node
        tmpl["containers"].append({"name": "fake-resource-container",
                                   "resources": {"limits": {FAKE: "500"}, "requests": {FAKE: "500"}}})
        self.create(res)
        self.wait_available("e2e-fake-half")
        name = str(uuid.uuid4())
        self.create(pause_pod(name, labels={"e2e-reserve-resource": "true"},
                              resources={"limits": {FAKE: "500"}, "requests": {FAKE: "500"}}, node=node))
        pod = self.wait_running(name)
        other = json.loads(json.dumps(res))
        other["metadata"]["name"] = "e2e-other-reservation"
        other["spec"]["owners"] = [{"labelSelector": {"matchLabels": {"e2e-reserve-resource": "false"}}}]
        self.create(other)
        r = self.wait_available("e2e-other-reservation")
        self.assertEqual(r["status"]["nodeName"], pod["spec"]["nodeName"])

    def test_select_reservation_via_reservation_affinity(self):
        res = simple_reservation("e2e-select")
        res["metadata"]["labels"]["e2e-select-reservation"] = "true"
        self.create(res)
        r = self.wait_available("e2e-select")

        def affinity(value):
            return json.dumps({"requiredDuringSchedulingIgnoredDuringExecution": {"reservationSelectorTerms": [
                {"matchExpressions": [{"key": "e2e-select-reservation", "operator": "In", "values": [value]}]}]}})
        failing = str(uuid.uuid4())
        self.create(pause_pod(failing, labels={"app": "e2e-test-reservation"},
                              annotations={"scheduling.koordinator.sh/reservation-affinity": affinity("false")},
                              node=r["status"]["nodeName"]))
        self.wait_schedule_failed(failing)
        ok = str(uuid.uuid4())
        self.create(pause_pod(ok, labels={"app": "e2e-test-reservation"},
                              annotations={"scheduling.koordinator.sh/reservation-affinity": affinity("true")},
                              node=r["status"]["nodeName"]))
        self.wait_running(ok)
        self.expect_pod_bound_reservation(ok, "e2e-select")
        self.assertNotIn("nodeName", self.pod(failing)["spec"])

    def test_pod_anti_affinity_with_a_reservation(self):
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"e2e-reservation-interpodaffinity": "true"}},
             "topologyKey": "kubernetes.io/hostname"}]}}
        res = simple_reservation("e2e-anti-affinity")
        res["spec"]["template"]["metadata"]["labels"] = {"e2e-reservation-interpodaffinity": "true"}
        res["spec"]["template"]["spec"]["affinity"] = anti
        self.create(res)
        r = self.wait_available("e2e-anti-affinity")
        name = str(uuid.uuid4())
        pod = pause_pod(name, labels={"e2e-reservation-interpodaffinity": "true"}, node=r["status"]["nodeName"])
        # upstream passes Affinity and NodeName; the helper's SetNodeAffinity adds the node affinity to it.
        pod["spec"]["affinity"].update(anti)
        self.create(pod)
        p = self.wait_running(name)
        self.assertEqual(p["spec"]["nodeName"], r["status"]["nodeName"])

    def test_four_pods_with_max_skew_1_spread_evenly_over_two_nodes_with_a_reservation(self):
        key = "kubernetes.io/e2e-pts-filter"
        nodes = ["node-0", "node-1"]
        for n in nodes:
            self.sim.kubectl("label", "node", n, f"{key}={n}")
            self.addCleanup(lambda n=n: self.sim.kubectl("label", "node", n, f"{key}-"))
        in_nodes = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": key, "operator": "In", "values": nodes}]}]}}}
        spread = [{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
                   "labelSelector": {"matchExpressions": [{"key": "e2e-pts-filter", "operator": "Exists"}]}}]
        res = simple_reservation("e2e-pts", allocateOnce=False)
        res["spec"]["template"]["metadata"] = {"namespace": NS, "labels": {"e2e-pts-filter": ""}}
        res["spec"]["template"]["spec"]["affinity"] = in_nodes
        res["spec"]["template"]["spec"]["topologySpreadConstraints"] = spread
        self.create(res)
        self.wait_available("e2e-pts")
        pod = pause_pod("e2e-pts-filter", labels={"e2e-pts-filter": "", "app": "e2e-test-reservation"},
                        resources=ONE_CPU_1GI, affinity=in_nodes, spread=spread)
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs-e2e-pts-filter", "namespace": NS},
              "spec": {"replicas": 4, "selector": {"matchLabels": pod["metadata"]["labels"]},
                       "template": {"metadata": {"labels": pod["metadata"]["labels"]}, "spec": pod["spec"]}}}
        self.create(rs)

        def running():
            pods = self.sim.get_json(f"/api/v1/namespaces/{NS}/pods")["items"]
            ok = [p for p in pods if p["spec"].get("nodeName") and p.get("status", {}).get("phase") == "Running"]
            return pods if len(ok) == 4 else None
        try:
            pods = wait_until(running, timeout=60, interval=0.2, message="the ReplicaSet's 4 pods to be Running")
        except AssertionError as e:
            raise AssertionError(f"{e}{self.diagnostics()}") from None
        counts = {n: sum(1 for p in pods if p["spec"]["nodeName"] == n) for n in nodes}
        self.assertEqual(counts, {"node-0": 2, "node-1": 2})
        r = self.wait_reservation("e2e-pts", lambda r: len(r["status"].get("currentOwners", [])) == 1,
                                  "one currentOwner")
        self.assertTrue(r["status"]["allocatable"])

    # ---- reservation.go (newer revision): allocate policies, anti-affinity in the pods' namespace ----
    def policy_scenario(self, policy):
        res = simple_reservation("e2e-policy", allocateOnce=False, allocatePolicy=policy,
                                 owners=[{"labelSelector": {"matchLabels": {"test-reserve-policy": "true"}}}])
        res["spec"]["template"]["spec"]["containers"] = [
            {"name": "main", "resources": {"requests": {"cpu": "4", "memory": "8Gi"}}}]
        self.create(res)
        r = self.wait_available("e2e-policy")
        node = r["status"]["nodeName"]
        two = {"limits": {"cpu": "2", "memory": "2Gi"}, "requests": {"cpu": "2", "memory": "2Gi"}}
        pod = pause_pod("test-reserve-policy", labels={"success": "true", "test-reserve-policy": "true"},
                        resources=two)
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
              "metadata": {"name": "rs-test-reserve-policy", "namespace": NS},
              "spec": {"replicas": 2, "selector": {"matchLabels": pod["metadata"]["labels"]},
                       "template": {"metadata": {"labels": pod["metadata"]["labels"]}, "spec": pod["spec"]}}}
        self.create(rs)
        wait_until(lambda: len([p for p in self.sim.get_json(f"/api/v1/namespaces/{NS}/pods")["items"]
                                if p.get("status", {}).get("phase") == "Running"]) == 2,
                   timeout=60, interval=0.2, message="the ReplicaSet's two pods to be Running")
        third = str(uuid.uuid4())
        self.create(pause_pod(third, labels={"test-reserve-policy": "true"},
                              resources={"limits": {"memory": "3Gi"}, "requests": {"memory": "3Gi"}}, node=node))
        self.wait_running(third)
        fourth = str(uuid.uuid4())
        self.create(pause_pod(fourth, labels={"test-reserve-policy": "true"},
                              resources={"limits": {"memory": "2Gi"}, "requests": {"memory": "2Gi"}}, node=node))
        return r, fourth

    def check_pods_using(self, r, count):
        using = []
        for p in self.sim.get_json(f"/api/v1/namespaces/{NS}/pods")["items"]:
            allocated = p["metadata"].get("annotations", {}).get(ANNOTATION)
            if allocated:
                self.assertEqual(json.loads(allocated), {"name": r["metadata"]["name"], "uid": r["metadata"]["uid"]})
                using.append(p)
        self.assertEqual(len(using), count)
        total = {}
        for p in using:
            for k, v in p["spec"]["containers"][0]["resources"]["requests"].items():
                if k in ("cpu", "memory"):
                    total[k] = total.get(k, 0) + quantity(v)
        owners = sorted(({"namespace": NS, "name": p["metadata"]["name"], "uid": p["metadata"]["uid"]} for p in using),
                        key=lambda o: o["uid"])
        r = self.wait_reservation(r["metadata"]["name"], lambda x: x["status"].get("currentOwners") == owners,
                                  f"currentOwners to be the {count} pods")
        self.assertEqual(quantities(r["status"]["allocatable"]), quantities({"cpu": "4", "memory": "8Gi"}))
        self.assertEqual(quantities(r["status"]["allocated"]), total)

    def test_restricted_4_core_8gi_takes_two_2_core_2gi_pods_and_a_3gi_pod_and_refuses_a_2gi_one(self):
        r, fourth = self.policy_scenario("Restricted")
        self.wait_schedule_failed(fourth)
        self.check_pods_using(r, 3)

    def test_aligned_4_core_8gi_takes_the_2gi_pod_partly_from_the_node(self):
        r, fourth = self.policy_scenario("Aligned")
        self.wait_running(fourth)
        self.check_pods_using(r, 4)

    def test_small_aligned_reservations_filling_the_machine_refuse_a_larger_matching_pod(self):
        node = "node-2"
        self.set_fake_resource(node, "1000")
        for i in range(5):
            res = simple_reservation(f"reservation-{i}", allocateOnce=False, allocatePolicy="Aligned",
                                     owners=[{"labelSelector": {"matchLabels": {"test-reserve-policy": "true"}}}])
            res["spec"]["template"]["spec"]["containers"] = [{"name": "main", "resources": {"requests": {FAKE: "200"}}}]
            self.create(res)
            self.assertEqual(self.wait_available(f"reservation-{i}")["status"]["nodeName"], node)
        name = str(uuid.uuid4())
        self.create(pause_pod(name, labels={"test-reserve-policy": "true"},
                              resources={"limits": {FAKE: "300"}, "requests": {FAKE: "300"}}))
        self.wait_schedule_failed(name)

    def anti_affinity_reservation(self):
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"e2e-reservation-interpodaffinity": "true"}},
             "topologyKey": "kubernetes.io/hostname"}]}}
        res = simple_reservation("e2e-anti-affinity-ns")
        res["spec"]["template"]["metadata"] = {"namespace": NS, "labels": {"e2e-reservation-interpodaffinity": "true"}}
        res["spec"]["template"]["spec"]["affinity"] = anti
        self.create(res)
        return self.wait_available("e2e-anti-affinity-ns"), anti

    def test_pod_anti_affinity_with_a_reservation_in_the_pods_namespace_lets_its_owner_in(self):
        r, anti = self.anti_affinity_reservation()
        name = str(uuid.uuid4())
        pod = pause_pod(name, labels={"e2e-reservation-interpodaffinity": "true", "app": "e2e-test-reservation"},
                        node=r["status"]["nodeName"])
        pod["spec"]["affinity"].update(anti)
        self.create(pod)
        p = self.wait_running(name)
        self.assertEqual(p["spec"]["nodeName"], r["status"]["nodeName"])

    def test_pod_anti_affinity_with_a_reservation_in_the_pods_namespace_keeps_a_non_owner_out(self):
        r, anti = self.anti_affinity_reservation()
        name = str(uuid.uuid4())
        pod = pause_pod(name, labels={"e2e-reservation-interpodaffinity": "true"}, node=r["status"]["nodeName"])
        pod["spec"]["affinity"].update(anti)
        self.create(pod)
        self.wait_schedule_failed(name)

    # ---- reservation_scheduling.go ----
    def test_reservation_with_short_ttl_expires_to_failed(self):
        res = simple_reservation("e2e-short-ttl", ttl="10s",
                                 owners=[{"labelSelector": {"matchLabels": {"e2e-never-match": "true"}}}])
        self.create(res)
        self.wait_available("e2e-short-ttl")
        r = self.wait_reservation("e2e-short-ttl", lambda r: r["status"].get("phase") == "Failed",
                                  "reservation to be Failed", timeout=30)
        ready = [c for c in r["status"]["conditions"] if c["type"] == "Ready"]
        self.assertEqual([(c["status"], c["reason"]) for c in ready], [("False", "Expired")])

    def test_a_pod_tolerating_the_reservations_taint_consumes_it(self):
        res = simple_reservation("e2e-taints", taints=[{"key": "e2e-reservation-taint", "value": "test-value",
                                                         "effect": "NoSchedule"}])
        self.create(res)
        self.wait_available("e2e-taints")
        name = str(uuid.uuid4())
        self.create(pause_pod(name, labels={"app": "e2e-test-reservation"}, resources=ONE_CPU_1GI,
                              tolerations=[{"key": "e2e-reservation-taint", "operator": "Equal",
                                            "value": "test-value", "effect": "NoSchedule"}]))
        self.wait_running(name)
        self.expect_pod_bound_reservation(name, "e2e-taints")

    def test_allocate_once_stays_succeeded_after_the_pod_is_deleted(self):
        self.create(simple_reservation("e2e-release"))
        self.wait_available("e2e-release")
        name = str(uuid.uuid4())
        self.create(pause_pod(name, labels={"app": "e2e-test-reservation"}, resources=ONE_CPU_1GI))
        self.wait_running(name)
        self.expect_pod_bound_reservation(name, "e2e-release")
        self.wait_reservation("e2e-release", lambda r: r["status"].get("phase") == "Succeeded",
                              "reservation to be Succeeded")
        self.sim.kubectl("delete", "pod", name, "-n", NS)
        wait_until(lambda: self.pod(name) is None, timeout=20, message="the pod to be gone")
        # upstream: Consistently for 10s, every 2s.

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            self.assertEqual(self.reservation("e2e-release")["status"]["phase"], "Succeeded")
            time.sleep(2)

    def test_a_reservation_with_node_affinity_lands_on_the_targeted_node(self):
        target = "node-2"
        hostname = self.sim.get_json(f"/api/v1/nodes/{target}")["metadata"]["labels"]["kubernetes.io/hostname"]
        by_host = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [hostname]}]}]}}}
        res = simple_reservation("e2e-node-affinity")
        res["spec"]["template"]["spec"]["affinity"] = by_host
        self.create(res)
        r = self.wait_available("e2e-node-affinity")
        self.assertEqual(r["status"]["nodeName"], target)
        name = str(uuid.uuid4())
        self.create(pause_pod(name, labels={"app": "e2e-test-reservation"}, resources=ONE_CPU_1GI, affinity=by_host))
        p = self.wait_running(name)
        self.assertEqual(p["spec"]["nodeName"], target)
        self.expect_pod_bound_reservation(name, "e2e-node-affinity")

    def test_a_pod_matching_the_owner_label_selector_uses_the_reservation(self):
        res = simple_reservation("e2e-owner-selector",
                                 owners=[{"labelSelector": {"matchLabels": {"e2e-owner-selector": "true"}}}])
        self.create(res)
        r = self.wait_available("e2e-owner-selector")
        name = str(uuid.uuid4())
        self.create(pause_pod(name, labels={"e2e-owner-selector": "true"}, resources=ONE_CPU_1GI,
                              node=r["status"]["nodeName"]))
        self.wait_running(name)
        self.expect_pod_bound_reservation(name, "e2e-owner-selector")

    def test_a_pod_not_matching_the_owners_is_not_allocated_from_the_reservation(self):
        res = simple_reservation("e2e-unmatched", allocateOnce=False,
                                 owners=[{"labelSelector": {"matchLabels": {"e2e-matched-owner": "true"}}}])
        self.create(res)
        r = self.wait_available("e2e-unmatched")
        name = str(uuid.uuid4())
        self.create(pause_pod(name, labels={"e2e-unmatched": "true"}, resources=ONE_CPU_1GI,
                              node=r["status"]["nodeName"]))
        p = self.wait_running(name)
        self.assertNotIn(ANNOTATION, p["metadata"].get("annotations", {}))
        self.assertFalse(self.reservation("e2e-unmatched")["status"].get("currentOwners"))


if __name__ == "__main__":
    unittest.main()
