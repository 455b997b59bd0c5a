"""ResourcePolicy counting end to end with real kubectl on kubesim and berth-manager as koord-scheduler, on the shared
four on-demand / four spot nodes. A `required` policy whose only unit (on-demand) is full keeps the next pod Pending;
the KEP's `ignoreTerminatingPod` makes a pod that starts terminating stop counting, and a pod relabelled out of the
podSelector stops counting too: either frees the slot and the Pending pod is scheduled at once, although the freed pod
is still there (held by a finalizer). `matchLabelKeys` works like PodTopologySpread's: a pod lacking a key is counted
against every selected pod that agrees on the keys it has, so it cannot escape a full unit."""
import json
import unittest

from kubesim_fixture import wait_until
from test_resource_policy_placement import ON_DEMAND, OnDemandAndSpotPools, unit
from test_resource_policy_placement import policy as placement_policy

HOLD = "example.com/hold"


def pod(name, namespace, labels, finalizers=()):
    meta = {"name": name, "namespace": namespace, "labels": labels}
    if finalizers:
        meta["finalizers"] = list(finalizers)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"schedulerName": "koord-scheduler", "containers": [{"name": "c", "image": "nginx"}]}}


class ResourcePolicyCountingTest(OnDemandAndSpotPools, unittest.TestCase):
    def create(self, obj):
        self.sim.apply_text(json.dumps(obj))

    def rsp(self, namespace, name):
        return json.loads(self.sim.kubectl("get", "rsp", name, "-n", namespace, "-o", "json"))

    def create_policy(self, obj):
        """Creates the policy and waits for its status (written from the scheduler's own informer)."""
        self.create(obj)
        ns, name = obj["metadata"]["namespace"], obj["metadata"]["name"]
        return wait_until(lambda: (lambda p: p if p.get("status", {}).get("observedGeneration") ==
                                   p["metadata"].get("generation") else None)(self.rsp(ns, name)),
                          timeout=15, message=f"status of ResourcePolicy {name}")

    def get_pod(self, namespace, name):
        return json.loads(self.sim.kubectl("get", "pod", name, "-n", namespace, "-o", "json"))

    def node_of(self, namespace, name):
        return self.get_pod(namespace, name)["spec"].get("nodeName", "")

    def wait_bound(self, namespace, name):
        return wait_until(lambda: self.node_of(namespace, name), timeout=20, message=f"{name} bound")

    def wait_unschedulable(self, namespace, name):
        """Waits for the PodScheduled=False condition berth writes when it parks the pod; returns its message."""
        def cond():
            for c in self.get_pod(namespace, name)["status"].get("conditions", []):
                if c["type"] == "PodScheduled" and c["status"] == "False":
                    return c["message"]
            return None
        return wait_until(cond, timeout=20, message=f"{name} Unschedulable")

    def release(self, namespace, name):
        self.sim.kubectl("patch", "pod", name, "-n", namespace, "--type=merge", "-p", '{"metadata":{"finalizers":null}}',
                         check=False)  # the test may have released it already

    def full_unit(self, namespace, ignore_terminating=True, match_label_keys=None, max_count=1, labels=None):
        """A required policy with one on-demand unit, filled by pod `held` (kept by a finalizer); pod `next` parked."""
        self.sim.kubectl("create", "namespace", namespace)
        p = placement_policy("p", namespace, "required", [unit("od", "on-demand", 1, max_count)], {"app": "a"})
        p["spec"]["matchPolicy"]["ignoreTerminatingPod"] = ignore_terminating
        if match_label_keys is not None:
            p["spec"]["matchLabelKeys"] = match_label_keys
        self.create_policy(p)
        self.create(pod("held", namespace, labels or {"app": "a"}, [HOLD]))
        self.addCleanup(self.release, namespace, "held")
        self.assertIn(self.wait_bound(namespace, "held"), ON_DEMAND)

    def test_a_pod_that_starts_terminating_frees_its_slot_under_ignore_terminating_pod(self):
        self.full_unit("term")
        self.create(pod("next", "term", {"app": "a"}))
        self.assertIn("exceeded resource policy unit maxCount", self.wait_unschedulable("term", "next"))
        self.sim.kubectl("delete", "pod", "held", "-n", "term", "--wait=false")
        self.assertTrue(self.get_pod("term", "held")["metadata"].get("deletionTimestamp"))
        # The terminating pod is still bound (its finalizer holds it), yet no longer counts.
        self.assertIn(self.wait_bound("term", "next"), ON_DEMAND)
        self.assertTrue(self.node_of("term", "held"))

    def test_a_pod_relabelled_out_of_the_selector_frees_its_slot(self):
        self.full_unit("relabel")
        self.create(pod("next", "relabel", {"app": "a"}))
        self.wait_unschedulable("relabel", "next")
        self.sim.kubectl("label", "pod", "held", "-n", "relabel", "app=other", "--overwrite")
        self.assertIn(self.wait_bound("relabel", "next"), ON_DEMAND)

    def test_a_pod_lacking_a_match_label_key_counts_every_group(self):
        # PodTopologySpread leaves a key the pod lacks out of its selector, so the pod counts the selected pods
        # of every value of that key: with the unit full of version=v1 pods, it is not placed there.
        self.full_unit("keys", match_label_keys=["version"], max_count=1, labels={"app": "a", "version": "v1"})
        self.create(pod("unversioned", "keys", {"app": "a"}))
        self.assertIn("exceeded resource policy unit maxCount", self.wait_unschedulable("keys", "unversioned"))
        # A pod of another version has its own budget, and does not count for the v1 group either.
        self.create(pod("v2", "keys", {"app": "a", "version": "v2"}))
        self.assertIn(self.wait_bound("keys", "v2"), ON_DEMAND)
        # Once v1's pod is gone, only v2's remains: the unversioned pod still counts it, so it stays Pending...
        self.sim.kubectl("delete", "pod", "held", "-n", "keys", "--wait=false")
        self.release("keys", "held")
        wait_until(lambda: not self.sim.kubectl("get", "pods", "-n", "keys", "--field-selector",
                                                 "metadata.name=held", "-o", "name"),
                   timeout=15, message="held deleted")
        status = wait_until(lambda: (lambda st: st if st.get("unitSummary") == "od 1/1" and st.get("units", [{}])[0]
                                     .get("groups") == [{"labels": {"version": "v2"}, "pods": 1}] else None)(
            self.rsp("keys", "p").get("status", {})), timeout=15, message="status counts only v2")
        self.assertEqual(status["matchedPods"], 2)
        self.assertEqual(self.node_of("keys", "unversioned"), "")
        # ...and a higher maxCount lets it in.
        self.sim.kubectl("patch", "rsp", "p", "-n", "keys", "--type=json",
                         "-p", '[{"op": "replace", "path": "/spec/units/0/maxCount", "value": 2}]')
        self.assertIn(self.wait_bound("keys", "unversioned"), ON_DEMAND)


if __name__ == "__main__":
    unittest.main()
