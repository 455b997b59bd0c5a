"""The KEP-594 draft's ResourcePolicy example, applied verbatim (e2e/testdata/resourcepolicy-kep-example.yaml, policy
`xxx` in namespace `xxx`), end to end with real kubectl on kubesim and berth-manager as koord-scheduler.

Nodes as the example's units describe them: node-0 key1=value1 (unit1, priority 5, maxCount 10), node-1 key1=value2
(unit2, priority 5, maxCount 10), node-2 key1=value3 (unit3, priority 4, maxCount 20), node-3 in no unit. The
workload is a Deployment whose pods carry key1=value1 (the example's podSelector: matchExpressions and matchLabels
together) and pod-template-hash (its matchLabelKeys). Under `strategy: prefer` the equal-priority units 1 and 2 fill
to their maxCount first, then unit3, and only then the node in no unit; scaling down removes pods in the reverse
order through the deletion costs berth writes (pods on no unit, then unit3, then units 1 and 2).
"""
import json
import os
import unittest

from kubesim_fixture import ROOT, start_cluster, wait_until

EXAMPLE = os.path.join(ROOT, "e2e", "testdata", "resourcepolicy-kep-example.yaml")
COST = "controller.kubernetes.io/pod-deletion-cost"
MARKER = "berth.dev/deletion-cost-policy"
UNIT_OF_NODE = {"node-0": "unit1", "node-1": "unit2", "node-2": "unit3", "node-3": None}


class ResourcePolicyKepExampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim, cls.mgr = start_cluster(nodes=4)
        cls.sim.kubectl("label", "node", "node-0", "key1=value1")
        cls.sim.kubectl("label", "node", "node-1", "key1=value2")
        cls.sim.kubectl("label", "node", "node-2", "key1=value3")
        cls.sim.kubectl("create", "namespace", "xxx")

    @classmethod
    def tearDownClass(cls):
        cls.mgr.stop()
        cls.sim.stop()

    def active_pods(self):
        items = json.loads(self.sim.kubectl("get", "pods", "-n", "xxx", "-l", "key1=value1", "-o", "json"))["items"]
        return [p for p in items if not p["metadata"].get("deletionTimestamp")]

    def per_node(self, count):
        """Waits until `count` pods are bound, each with berth's deletion cost; returns {node: pods}."""
        def done():
            pods = self.active_pods()
            if len(pods) != count:
                return None
            if any(not p["spec"].get("nodeName") or p["metadata"].get("annotations", {}).get(MARKER) != "xxx"
                   for p in pods):
                return None
            out = {n: 0 for n in UNIT_OF_NODE}
            for p in pods:
                out[p["spec"]["nodeName"]] += 1
            return out
        try:
            return wait_until(done, timeout=90, interval=0.2, message=f"{count} pods bound with deletion costs")
        except AssertionError as e:
            pending = [p["metadata"]["name"] for p in self.active_pods() if not p["spec"].get("nodeName")]
            raise AssertionError(f"{e}\npending: {pending}\n{self.mgr.log_text()[-3000:]}") from None

    def test_units_fill_in_priority_order_up_to_max_count_and_scale_down_reverses_it(self):
        out = self.sim.kubectl("apply", "-f", EXAMPLE)
        self.assertEqual(out.strip(), "resourcepolicy.scheduling.sigs.x-k8s.io/xxx created")
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "xxx"},
                      "spec": {"replicas": 25, "selector": {"matchLabels": {"key1": "value1"}},
                               "template": {"metadata": {"labels": {"key1": "value1"}},
                                            "spec": {"schedulerName": "koord-scheduler", "containers": [
                                                {"name": "c", "image": "nginx",
                                                 "resources": {"requests": {"cpu": "10m"}}}]}}}}
        self.sim.apply_text(json.dumps(deployment))
        self.assertEqual(self.per_node(25), {"node-0": 10, "node-1": 10, "node-2": 5, "node-3": 0})

        self.sim.kubectl("scale", "deployment/web", "-n", "xxx", "--replicas=45")
        self.assertEqual(self.per_node(45), {"node-0": 10, "node-1": 10, "node-2": 20, "node-3": 5})
        costs = {p["metadata"]["name"]: (p["spec"]["nodeName"], int(p["metadata"]["annotations"][COST]))
                 for p in self.active_pods()}
        def band(node):
            return [c for n, c in costs.values() if n == node]
        # Deletion order: no unit first, then unit3 (priority 4), then units 1 and 2 (priority 5).
        self.assertLess(max(band("node-3")), min(band("node-2")))
        self.assertLess(max(band("node-2")), min(band("node-0") + band("node-1")))

        # The policy's status is written after the pods it counts are bound (a batched status write): waited for.
        def status_counts_all():
            status = json.loads(self.sim.kubectl("get", "rsp", "xxx", "-n", "xxx", "-o", "json")).get("status", {})
            return status if status.get("matchedPods") == 45 else None
        wait_until(status_counts_all, timeout=30, message="the policy's status.matchedPods to count the 45 pods")

        self.sim.kubectl("scale", "deployment/web", "-n", "xxx", "--replicas=15")
        left = self.per_node(15)
        self.assertEqual((left["node-2"], left["node-3"]), (0, 0), left)
        self.assertEqual(left["node-0"] + left["node-1"], 15, left)


if __name__ == "__main__":
    unittest.main()
