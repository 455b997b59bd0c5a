"""Quantities berth cannot count are never counted as zero (issue 9, item 3), with real kubectl on kubesim.

A pod requesting cpu "1e30" (a valid Kubernetes quantity, beyond int64 milli-units) used to be bound onto a full
node because the value read as zero; it must stay Pending with kube-scheduler's "Insufficient cpu". A request that
does not parse (kubesim, unlike kube-apiserver, stores "abc") leaves the pod Pending with the field named. The same
for Reservation templates: "abc" is an invalid spec (Ready=False/InvalidSpec naming the field) and is not placed;
"1e30" is Unschedulable everywhere.
"""
import json
import unittest

import test_reservation_scheduling as scheduling
from kubesim_fixture import wait_until


def condition(obj, kind):
    for c in obj.get("status", {}).get("conditions", []):
        if c["type"] == kind:
            return c
    return None


class QuantityLimitsTest(scheduling.SchedulingSuite):
    nodes = 2
    sim_flags = {"node_cpu": "2", "node_memory": "4Gi"}

    def test_a_pod_requesting_1e30_cpu_is_never_bound_not_even_onto_a_full_node(self):
        # Both nodes full, as in the report: before the fix the pod went onto one of them.
        self.create_pod("filler-0", "2", "1Gi", node="node-0")
        self.create_pod("filler-1", "2", "1Gi", node="node-1")
        self.wait_running("filler-0")
        self.wait_running("filler-1")
        self.create_pod("huge", "1e30", "1Mi")
        pod = self.wait_unschedulable("huge")
        self.assertEqual(pod["spec"]["containers"][0]["resources"]["requests"]["cpu"], "1e30")
        # Removing every lower-priority pod would not make room either (the fillers are as important).
        self.assertEqual(condition(pod, "PodScheduled")["message"],
                         "0/2 nodes are available: 2 Insufficient cpu. "
                         "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")
        events = wait_until(lambda: self.events_for("huge", "FailedScheduling"), message="FailedScheduling event")
        self.assertEqual(events[0]["type"], "Warning")
        # Room freed anywhere is still not room for it; an ordinary pod created after it is bound.
        self.sim.kubectl("delete", "pod", "filler-0", "filler-1", "--wait=false")
        self.create_pod("ordinary", "1", "1Gi")
        self.wait_running("ordinary")
        self.assertFalse(self.pod("huge")["spec"].get("nodeName"))
        self.sim.kubectl("delete", "pod", "huge", "ordinary", "--wait=false")

    def test_a_pod_whose_request_does_not_parse_is_unschedulable_naming_the_field(self):
        self.create_pod("garbled", "abc", "1Mi")
        pod = self.wait_unschedulable("garbled")
        self.assertEqual(condition(pod, "PodScheduled")["message"],
                         'spec.containers[0].resources.requests.cpu: invalid quantity "abc"')
        self.assertFalse(pod["spec"].get("nodeName"))
        out = self.sim.kubectl("describe", "pod", "garbled")
        self.assertIn('invalid quantity "abc"', out)
        self.sim.kubectl("delete", "pod", "garbled", "--wait=false")

    def test_a_reservation_with_cpu_abc_is_an_invalid_spec_and_is_never_placed(self):
        self.create_reservation("garbled", "abc", "1Gi", [{"object": {"name": "x", "namespace": "default"}}])
        r = self.wait_reservation("garbled", lambda r: (condition(r, "Ready") or {}).get("reason") == "InvalidSpec",
                                  message="Ready=False/InvalidSpec")
        self.assertEqual(condition(r, "Ready")["status"], "False")
        self.assertIn('spec.template.spec.containers[0].resources.requests.cpu: invalid quantity "abc"',
                      condition(r, "Ready")["message"])
        # An ordinary reservation created after it is placed; the garbled one still is not.
        self.create_reservation("ordinary", "100m", "100Mi", [{"object": {"name": "x", "namespace": "default"}}])
        self.wait_phase("ordinary", "Available")
        r = self.reservation("garbled")
        self.assertFalse(r["status"].get("nodeName"))
        self.assertEqual(r["status"].get("phase", "Pending"), "Pending")
        self.sim.kubectl("delete", "reservation", "garbled", "ordinary", "--wait=false")

    def test_a_reservation_of_1e30_cpu_is_unschedulable_on_every_node(self):
        self.create_reservation("huge", "1e30", "1Gi", [{"object": {"name": "x", "namespace": "default"}}],
                                pre_allocation=True)
        r = self.wait_reservation("huge", lambda r: (condition(r, "Scheduled") or {}).get("status") == "False",
                                  message="Scheduled=False")
        self.assertEqual((condition(r, "Scheduled")["reason"], condition(r, "Scheduled")["message"]),
                         ("Unschedulable", "0/2 nodes are available: 2 Insufficient cpu."))
        self.assertFalse(r["status"].get("nodeName"))
        self.assertNotEqual((condition(r, "Ready") or {}).get("reason"), "InvalidSpec")  # a valid quantity
        self.sim.kubectl("delete", "reservation", "huge", "--wait=false")


if __name__ == "__main__":
    unittest.main()
