"""ResourcePolicy overlap end to end with real kubectl on kubesim and berth-manager (scheduler, status writer and
deletion-cost controller), on the shared four on-demand / four spot nodes. The KEP: "One pod can not be matched by
more than one Resource Policies". When a second policy starts selecting the pods of a first one, the first one's
status turns Conflict=True naming them and berth's deletion costs are taken off them (README: "another policy starts
selecting it"), although none of the pods changed; when the second policy is deleted, both come back."""
import json
import unittest

from kubesim_fixture import wait_until
from test_resource_policy_deletion_cost import COST, MARKER, STORY_UNITS, bare_pod
from test_resource_policy_placement import OnDemandAndSpotPools, unit
from test_resource_policy_placement import policy as placement_policy


class ResourcePolicyOverlapTest(OnDemandAndSpotPools, unittest.TestCase):
    def create(self, obj):
        self.sim.apply_text(json.dumps(obj))

    def conditions(self, namespace, name):
        rsp = json.loads(self.sim.kubectl("get", "rsp", name, "-n", namespace, "-o", "json"))
        return {c["type"]: c for c in rsp.get("status", {}).get("conditions", [])}

    def wait_condition(self, namespace, name, ctype, status, reason):
        return wait_until(lambda: (lambda c: c if c and (c["status"], c["reason"]) == (status, reason) else None)(
            self.conditions(namespace, name).get(ctype)), timeout=15,
            message=f"{name} {ctype}={status} ({reason})")

    def annotations(self, namespace, name):
        return json.loads(self.sim.kubectl("get", "pod", name, "-n", namespace, "-o", "json"))["metadata"].get(
            "annotations", {})

    def test_a_second_policy_selecting_the_pods_marks_the_first_conflicting_and_takes_its_costs_off(self):
        ns = "overlap"
        self.sim.kubectl("create", "namespace", ns)
        self.create(placement_policy("first", ns, "prefer", STORY_UNITS, {"app": "o"}))
        for name in ("o-1", "o-2"):
            self.create(bare_pod(name, ns, {"app": "o"}, {}))
        for name in ("o-1", "o-2"):
            wait_until(lambda: self.annotations(ns, name).get(MARKER) == "first" and COST in self.annotations(ns, name),
                       timeout=20, message=f"{name} costed by first")
        self.wait_condition(ns, "first", "Conflict", "False", "NoConflict")

        self.create(placement_policy("second", ns, "prefer", [unit("spot", "spot", 1)], {"app": "o"}))
        conflict = self.wait_condition(ns, "first", "Conflict", "True", "PodsMatchedByOtherPolicies")
        self.assertEqual(conflict["message"], "pods also selected by another ResourcePolicy of the namespace are not "
                                              "scheduled: overlap/o-1, overlap/o-2")
        self.wait_condition(ns, "second", "Conflict", "True", "PodsMatchedByOtherPolicies")
        for name in ("o-1", "o-2"):
            wait_until(lambda: MARKER not in self.annotations(ns, name) and COST not in self.annotations(ns, name),
                       timeout=15, message=f"first's cost taken off {name}")

        self.sim.kubectl("delete", "rsp", "second", "-n", ns)
        self.wait_condition(ns, "first", "Conflict", "False", "NoConflict")
        for name in ("o-1", "o-2"):
            wait_until(lambda: self.annotations(ns, name).get(MARKER) == "first" and COST in self.annotations(ns, name),
                       timeout=15, message=f"{name} costed by first again")


if __name__ == "__main__":
    unittest.main()
