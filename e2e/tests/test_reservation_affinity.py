"""Pods steering which Reservations they use: berth-manager against kubesim with real kubectl.

koordinator's pod annotation scheduling.koordinator.sh/reservation-affinity (reservationSelector over the
Reservations' labels) makes the pod use only a Reservation it selects, and is required: with none matching the
pod stays Pending with the Reservation plugin's wording. The pod label scheduling.koordinator.sh/reservation-ignored
makes the pod use no Reservation at all. A malformed annotation leaves the pod Pending with the parse error.
"""
import json
import unittest

from kubesim_fixture import wait_until
from test_reservation_scheduling import ANNOTATION, RES_PATH, SchedulingSuite

AFFINITY = "scheduling.koordinator.sh/reservation-affinity"
IGNORED = "scheduling.koordinator.sh/reservation-ignored"
OWNERS = [{"labelSelector": {"matchLabels": {"app": "aff"}}}]


class ReservationAffinityTest(SchedulingSuite):
    """One node (8 cpu, 16Gi) holding two Available reservations for the same owners, labelled pool=a / pool=b."""
    nodes = 1
    sim_flags = {"node_cpu": "8", "node_memory": "16Gi"}

    def setUp(self):
        for name, pool in (("res-a", "a"), ("res-b", "b")):
            obj = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                   "metadata": {"name": name, "labels": {"pool": pool}},
                   "spec": {"template": {"metadata": {"namespace": "default"},
                                         "spec": {"schedulerName": "koord-scheduler",
                                                  "containers": [{"name": "main", "resources": {
                                                      "requests": {"cpu": "1", "memory": "1Gi"}}}]}},
                            "owners": OWNERS, "ttl": "1h", "allocateOnce": False}}
            out = self.sim.kubectl("create", "-f", "-", input=json.dumps(obj))
            self.assertEqual(out.strip(), f"reservation.scheduling.koordinator.sh/{name} created")
        for name in ("res-a", "res-b"):
            self.wait_phase(name, "Available")

    def tearDown(self):
        self.sim.kubectl("delete", "pods", "--all", "--wait=false")
        self.sim.kubectl("delete", "reservations", "--all", "--wait=false")
        wait_until(lambda: not self.pods() and not self.sim.get_json(RES_PATH)["items"], message="cleanup")

    def create_affinity_pod(self, name, affinity, labels=None):
        annotations = {} if affinity is None else {AFFINITY: affinity}
        obj = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": "aff"},
                            "annotations": annotations},
               "spec": {"schedulerName": "koord-scheduler",
                        "containers": [{"name": "main", "image": "busybox",
                                        "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}}}]}}
        out = self.sim.kubectl("create", "-f", "-", input=json.dumps(obj))
        self.assertEqual(out.strip(), f"pod/{name} created")

    def allocated(self, pod):
        value = pod["metadata"].get("annotations", {}).get(ANNOTATION)
        return json.loads(value)["name"] if value else None

    def condition(self, pod):
        return next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")

    def test_a_pod_whose_affinity_selects_pool_b_allocates_res_b_and_never_res_a(self):
        self.create_affinity_pod("picky-b", json.dumps({"reservationSelector": {"pool": "b"}}))
        pod = self.wait_running("picky-b")
        self.assertEqual(self.allocated(pod), "res-b")
        self.create_affinity_pod("picky-a", json.dumps({"reservationSelector": {"pool": "a"}}))
        self.assertEqual(self.allocated(self.wait_running("picky-a")), "res-a")
        owners = self.wait_reservation("res-b", lambda r: r.get("status", {}).get("currentOwners"))
        self.assertEqual([o["name"] for o in owners["status"]["currentOwners"]], ["picky-b"])
        shown = self.sim.kubectl("get", "pod", "picky-b", "-o",
                                 "jsonpath={.metadata.annotations.scheduling\\.koordinator\\.sh/reservation-allocated}")
        self.assertEqual(json.loads(shown)["name"], "res-b")

    def test_a_reservation_ignored_owner_pod_is_scheduled_without_a_reservation(self):
        self.create_affinity_pod("plain", None, labels={"app": "aff", IGNORED: "true"})
        pod = self.wait_running("plain")
        self.assertIsNone(self.allocated(pod))
        for name in ("res-a", "res-b"):
            self.assertFalse(self.reservation(name).get("status", {}).get("currentOwners"))

    def test_a_pod_whose_affinity_matches_no_reservation_is_unschedulable_with_koordinators_reason(self):
        self.create_affinity_pod("orphan", json.dumps({"reservationSelector": {"pool": "c"}}))
        pod = self.wait_unschedulable("orphan")
        self.assertEqual(self.condition(pod)["message"],
                         "0/1 nodes are available: node(s) no reservations match reservation affinity. "
                         "2 Reservation(s) didn't match affinity rules, 2 Reservation(s) matched owner total. "
                         "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
        self.assertFalse(pod["spec"].get("nodeName"))
        wait_until(lambda: self.events_for("orphan", "FailedScheduling"), message="FailedScheduling event")
        # Labelling res-a into pool c lets the parked pod in.
        self.sim.kubectl("label", "reservation", "res-a", "pool=c", "--overwrite")
        self.assertEqual(self.allocated(self.wait_running("orphan")), "res-a")

    def test_a_malformed_affinity_leaves_the_pod_pending_with_the_parse_error(self):
        self.create_affinity_pod("broken", json.dumps({"requiredDuringSchedulingIgnoredDuringExecution": {
            "reservationSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "Near",
                                                                "values": ["a"]}]}]}}))
        pod = self.wait_unschedulable("broken")
        self.assertEqual(self.condition(pod)["message"],
                         "invalid annotation scheduling.koordinator.sh/reservation-affinity: "
                         "nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: \"Near\"")


if __name__ == "__main__":
    unittest.main()
