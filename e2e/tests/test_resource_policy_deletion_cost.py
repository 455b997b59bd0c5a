"""ResourcePolicy deletion costs end to end with real kubectl on kubesim (its Deployment and ReplicaSet controllers
pick scale-down victims by kube-controller-manager's ranking, pod-deletion-cost included) and berth-manager as
koord-scheduler and the resourcepolicy controller: four on-demand and four spot nodes; a `prefer` policy whose
on-demand unit has priority 10 and maxCount 4 and whose spot unit has priority 1. A Deployment scaled to 10 lands 4
on on-demand and 6 on spot; scaled back to 4, exactly the 4 on-demand pods remain. Deleting a policy removes berth's
annotations and leaves a user's own cost alone (also when berth was down at the time, and for a pod relabelled out of
the selector); a user cost that is not an int32 is reported in an Event. Under injected 500/429/409 faults the
costs still converge."""
import json
import unittest

from kubesim_fixture import KUBECTL, wait_until
from test_resource_policy_placement import ON_DEMAND, SPOT, OnDemandAndSpotPools, deployment, unit
from test_resource_policy_placement import policy as placement_policy

COST = "controller.kubernetes.io/pod-deletion-cost"
MARKER = "berth.dev/deletion-cost-policy"


def bare_pod(name, namespace, labels, annotations):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels, "annotations": annotations},
            "spec": {"schedulerName": "koord-scheduler", "containers": [{"name": "c", "image": "nginx"}]}}


def policy(name, namespace, units, selector):
    return placement_policy(name, namespace, "prefer", units, selector)


STORY_UNITS = [unit("on-demand", "on-demand", 10, 4), unit("spot", "spot", 1)]


class ResourcePolicyDeletionCostTest(OnDemandAndSpotPools, unittest.TestCase):
    def create(self, obj):
        self.sim.apply_text(json.dumps(obj))

    def active_pods(self, namespace, selector):
        items = json.loads(self.sim.kubectl("get", "pods", "-n", namespace, "-l", selector, "-o", "json"))["items"]
        return [p for p in items if not p["metadata"].get("deletionTimestamp")
                and p.get("status", {}).get("phase") not in ("Succeeded", "Failed")]

    def wait_costs(self, namespace, selector, count, policy_name):
        """Waits until `count` active pods all carry berth's cost and marker; returns {name: (node, cost)}."""
        def done():
            pods = self.active_pods(namespace, selector)
            if len(pods) != count:
                return None
            out = {}
            for p in pods:
                ann = p["metadata"].get("annotations", {})
                node = p["spec"].get("nodeName", "")
                if not node or ann.get(MARKER) != policy_name or COST not in ann:
                    return None
                out[p["metadata"]["name"]] = (node, int(ann[COST]))
            return out
        return wait_until(done, timeout=30, message=f"{count} pods of {selector} with deletion costs")

    def test_scale_down_removes_spot_pods_first_and_keeps_the_on_demand_ones(self):
        self.create(policy("web", "default", STORY_UNITS, {"app": "web"}))
        self.create(deployment("web", "default", 10, {"app": "web"}))
        self.sim.kubectl("rollout", "status", "deployment/web", "--timeout=60s")
        costs = self.wait_costs("default", "app=web", 10, "web")
        on_demand = {n for n, (node, _) in costs.items() if node in ON_DEMAND}
        spot = {n for n, (node, _) in costs.items() if node in SPOT}
        self.assertEqual((len(on_demand), len(spot)), (4, 6), costs)
        # Every on-demand pod costs more to delete than every spot pod; the values are canonical int32 decimals.
        self.assertGreater(min(costs[n][1] for n in on_demand), max(costs[n][1] for n in spot), costs)
        for _, (_, c) in costs.items():
            self.assertTrue(-2**31 <= c < 2**31)
        wait_until(lambda: self.mgr.metric("berth_resourcepolicy_unit_pods", namespace="default", policy="web",
                                           unit="on-demand") == 4
                   and self.mgr.metric("berth_resourcepolicy_unit_pods", namespace="default", policy="web",
                                       unit="spot") == 6, timeout=10, message="unit_pods gauges 4 and 6")
        self.assertGreaterEqual(self.mgr.metric("berth_deletion_cost_writes_total"), 10)

        self.sim.kubectl("scale", "deployment/web", "--replicas=4")
        wait_until(lambda: len(self.active_pods("default", "app=web")) == 4, timeout=30, message="4 web pods left")
        left = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in self.active_pods("default", "app=web")}
        self.assertEqual(set(left), on_demand, left)
        self.assertTrue(all(node in ON_DEMAND for node in left.values()), left)
        # The surviving pods keep their cost: nothing was rewritten for the scale-down.
        after = self.wait_costs("default", "app=web", 4, "web")
        self.assertEqual({n: c for n, (_, c) in after.items()}, {n: costs[n][1] for n in on_demand})

    def test_deleting_the_policy_removes_berths_annotations_and_leaves_user_costs(self):
        ns = "tenant"
        self.sim.kubectl("create", "namespace", ns)
        self.create(bare_pod("user-cost", ns, {"app": "api"}, {COST: "123"}))
        self.create(policy("api", ns, STORY_UNITS, {"app": "api"}))
        self.create(deployment("api", ns, 3, {"app": "api"}))
        self.sim.kubectl("rollout", "status", "deployment/api", "-n", ns, "--timeout=60s")
        managed = self.wait_costs(ns, "app=api,pod-template-hash", 3, "api")
        self.assertEqual(len(managed), 3)

        def pod_annotations(name):
            return json.loads(self.sim.kubectl("get", "pod", name, "-n", ns, "-o", "json"))["metadata"].get(
                "annotations", {})
        self.assertEqual(pod_annotations("user-cost"), {COST: "123"})
        # A cost that is no int32 never reaches berth: the API server refuses it (PodDeletionCost gate on).
        refused = self.sim.run(KUBECTL, "annotate", "pod", "user-cost", "-n", ns, "--overwrite", f"{COST}=+5",
                               check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn('Invalid value: "+5": must be a 32bit integer', refused.stderr)

        self.sim.kubectl("delete", "rsp", "api", "-n", ns)

        def cleaned():
            pods = self.active_pods(ns, "app=api,pod-template-hash")
            if len(pods) != 3:
                return False
            return all(MARKER not in p["metadata"].get("annotations", {})
                       and COST not in p["metadata"].get("annotations", {}) for p in pods)
        wait_until(cleaned, timeout=30, message="berth's annotations removed")
        self.assertEqual(pod_annotations("user-cost"), {COST: "123"})
        wait_until(lambda: not [k for k in self.mgr.metrics() if k[0] == "berth_resourcepolicy_unit_pods"
                                and ("policy", "api") in k[1]], timeout=10, message="gauges removed")

    def test_a_pod_that_stops_matching_and_a_policy_deleted_while_berth_was_down_are_cleaned_up(self):
        ns = "offline"
        self.sim.kubectl("create", "namespace", ns)
        self.create(policy("jobs", ns, STORY_UNITS, {"cost": "on"}))
        self.create(deployment("jobs", ns, 3, {"app": "jobs", "cost": "on"}))
        self.sim.kubectl("rollout", "status", "deployment/jobs", "-n", ns, "--timeout=60s")
        costs = self.wait_costs(ns, "app=jobs", 3, "jobs")
        relabelled = sorted(costs)[0]
        self.sim.kubectl("label", "pod", relabelled, "-n", ns, "cost=off", "--overwrite")

        def annotations(name):
            return json.loads(self.sim.kubectl("get", "pod", name, "-n", ns, "-o", "json"))["metadata"].get(
                "annotations", {})
        wait_until(lambda: MARKER not in annotations(relabelled) and COST not in annotations(relabelled),
                   timeout=15, message="annotations removed from the pod that stopped matching")

        self.mgr.stop()
        try:
            self.sim.kubectl("delete", "rsp", "jobs", "-n", ns)
        finally:
            self.mgr.start()
        # The marker names a policy that no longer exists: berth's start cleans the pods up.
        wait_until(lambda: all(MARKER not in p["metadata"].get("annotations", {})
                               and COST not in p["metadata"].get("annotations", {})
                               for p in self.active_pods(ns, "app=jobs")),
                   timeout=30, message="annotations of the policy deleted while berth was down removed")

    def test_costs_converge_under_injected_write_faults(self):
        ns = "faulty"
        self.sim.kubectl("create", "namespace", ns)
        self.create(deployment("batch", ns, 6, {"app": "batch"}))
        self.sim.kubectl("rollout", "status", "deployment/batch", "-n", ns, "--timeout=60s")
        writes_before = self.mgr.metric("berth_deletion_cost_writes_total") or 0
        r = self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0.4, "faultCodes": [500, 429, 409]})
        self.assertLess(r.status_code, 300, r.text)
        try:
            def created():
                resp = self.sim.http("POST", f"/apis/scheduling.sigs.x-k8s.io/v1alpha1/namespaces/{ns}/resourcepolicies",
                                     json=policy("batch", ns, STORY_UNITS, {"app": "batch"}))
                return resp.status_code in (201, 409) and (resp.status_code == 201 or "AlreadyExists" in resp.text)
            wait_until(created, timeout=15, message="policy created through the faults")
            # berth keeps retrying with backoff until every pod is written.
            wait_until(lambda: (self.mgr.metric("berth_deletion_cost_writes_total") or 0) - writes_before >= 6,
                       timeout=60, interval=0.5, message="6 cost writes through the faults")
        finally:
            self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0.0})
        costs = self.wait_costs(ns, "app=batch", 6, "batch")
        self.assertEqual(len(costs), 6)


if __name__ == "__main__":
    unittest.main()
