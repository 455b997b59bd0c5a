"""ProvisioningRequest check-capacity (issue 10) with real kubectl on kubesim: the booking holds.

Two nodes of 4 cpu. A request that fits is Provisioned and its capacity is held against a pod that is
not its consumer; its consumer pods land in the booking, then BookingExpired/CapacityBookingConsumed
releases it. Two requests created in one instant, each for more than half the cluster: exactly one is
Provisioned. noRetry fails, a count over the cluster's pod slots fails naming the field, a missing PodTemplate fails after the (shortened, 5 s) grace, a ValidUntilSeconds
that is not a number fails naming the parameter, and a v1beta1 object is read as v1. Every status write
goes through faults (409/429/500) in one case and the outcome is the same.
"""
import datetime
import json
import time
import unittest

import provisioning_fixture
from kubesim_fixture import wait_until
from provisioning_fixture import (CHECK, CONSUME, NS, PR_PATH, ProvisioningCluster, ProvisioningHelpers,
                                  pod_template)


def seconds_between(earlier, later):
    """Seconds from one RFC 3339 timestamp (whole seconds, Z) to another."""
    parse = lambda t: datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ")
    return (parse(later) - parse(earlier)).total_seconds()


def prov_req(name, template, count, parameters=None, version="v1"):
    return provisioning_fixture.prov_req(name, [(template, count)], parameters, version=version)


class ProvisioningRequestTest(ProvisioningCluster, ProvisioningHelpers, unittest.TestCase):
    # Long enough that the first pass (Accepted, waiting for the template) comes well inside it under load.
    GRACE_S = 5
    manager_args = ["--provisioning-request-template-grace", f"{GRACE_S}s"]

    def tearDown(self):
        self.clean()  # every case leaves the cluster empty

    # ---- helpers (the shared ones are ProvisioningHelpers') ----
    def create_pod(self, name, cpu, consume=None):
        meta = {"name": name, "namespace": NS}
        if consume:
            meta["annotations"] = {CONSUME: consume}
        self.create({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                     "spec": {"schedulerName": "koord-scheduler",
                              "containers": [{"name": "main", "image": "busybox",
                                              "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}]}})

    def unschedulable(self, name):
        for c in (self.pod(name) or {}).get("status", {}).get("conditions", []):
            if c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable":
                return c
        return None

    def events_for(self, name, reason):
        items = self.sim.get_json(f"/api/v1/namespaces/{NS}/events")["items"]
        return [e for e in items if e["involvedObject"].get("name") == name and e.get("reason") == reason]

    # ---- cases ----
    def test_a_fitting_request_is_provisioned_and_its_capacity_held_until_its_consumers_take_it(self):
        self.create(pod_template("three-cpu", "3"), prov_req("fits", "three-cpu", 2))
        prov = self.wait_condition("fits", "Provisioned", "True", "CapacityIsFound")
        self.assertEqual(prov["message"], "Capacity is found in the cluster")
        obj = self.request("fits")
        accepted = self.condition(obj, "Accepted")
        self.assertEqual((accepted["status"], accepted["reason"], accepted["message"]),
                         ("True", "Accepted", "ProvisioningRequest is accepted by ClusterAutoscaler"))
        self.assertEqual(prov["observedGeneration"], obj["metadata"]["generation"])
        self.assertIn("berth.dev/provisioning-request-booking", obj["metadata"]["finalizers"])
        # One Reservation per booked node, visible with kubectl by the request's labels.
        out = self.sim.kubectl("get", "reservations", "-l", "berth.dev/provisioning-request-name=fits",
                               "-o", "jsonpath={range .items[*]}{.spec.template.spec.nodeName} {end}")
        self.assertEqual(sorted(out.split()), ["node-0", "node-1"])
        wait_until(lambda: all(r.get("status", {}).get("phase") == "Available" for r in self.reservations()),
                   message="the booking Reservations to be Available")
        wait_until(lambda: self.events_for("fits", "CapacityIsFound"), message="the CapacityIsFound Event")
        table = self.sim.kubectl("get", "provreq", "fits")
        self.assertRegex(table.splitlines()[1], r"^fits\s+check-capacity\.autoscaling\.x-k8s\.io\s+True\s+True\s")

        # 2 cpu would fit on either node's 4, but 3 of each are booked: a non-consumer stays Pending.
        self.create_pod("outsider", "2")
        wait_until(lambda: self.unschedulable("outsider"), message="outsider to be Unschedulable")
        self.assertIn("0/2 nodes are available", self.unschedulable("outsider")["message"])

        # The consumers land in the booking, one per node. The first is checked before the second
        # exists: once both are bound the booking is consumed and the Reservations (and with them the
        # pods' allocation annotations) go.
        nodes = set()
        for name in ("worker-0", "worker-1"):
            self.create_pod(name, "3", consume="fits")
            pod = wait_until(lambda: (p := self.pod(name)) and p["spec"].get("nodeName") and p, message=f"{name} bound")
            nodes.add(pod["spec"]["nodeName"])
            if name == "worker-0":
                allocated = json.loads(pod["metadata"]["annotations"]["scheduling.koordinator.sh/reservation-allocated"])
                self.assertTrue(allocated["name"].startswith("provreq-"), allocated)
                self.assertIsNone(self.condition(self.request("fits"), "BookingExpired"), "1 of 2 consumers bound")
        self.assertEqual(nodes, {"node-0", "node-1"})
        expired = self.wait_condition("fits", "BookingExpired", "True", "CapacityBookingConsumed")
        self.assertEqual(expired["message"], "Capacity booking consumed: all pods scheduled")
        wait_until(lambda: not self.reservations(), message="the booking Reservations to be deleted")
        wait_until(lambda: self.mgr.metric("berth_booked_resources", resource="cpu") == 0,
                   message="berth_booked_resources{cpu} back to 0")
        self.assertEqual(self.mgr.metric("berth_provisioningrequests", **{"class": CHECK, "state": "BookingExpired"}), 1)
        # The capacity is free again: once the consumers finish, the outsider runs.
        self.sim.kubectl("delete", "pod", "worker-0", "worker-1", "--wait=false")
        wait_until(lambda: (self.pod("outsider") or {}).get("spec", {}).get("nodeName"), timeout=20,
                   message="outsider to be scheduled")

    def test_two_requests_in_the_same_instant_for_more_than_half_the_capacity_only_one_is_provisioned(self):
        self.create(pod_template("two-cpu", "2"))
        # One kubectl call: both get the same creationTimestamp second; uid order decides.
        self.create(prov_req("first", "two-cpu", 3), prov_req("second", "two-cpu", 3))
        def decided():
            states = [(self.condition(self.request(n), "Provisioned") or {}).get("status") for n in ("first", "second")]
            return states if all(states) else None
        states = wait_until(decided, timeout=20, message="both requests decided")
        self.assertEqual(sorted(states), ["False", "True"])
        loser = ("first", "second")[states.index("False")]
        cond = self.condition(self.request(loser), "Provisioned")
        self.assertEqual(cond["reason"], "CapacityIsNotFound")
        self.assertTrue(cond["message"].startswith("Capacity is not found, CA will try to find it later. "
                                                   "podSet 0 (podTemplate \"two-cpu\"): "), cond["message"])
        self.assertIn("Insufficient cpu", cond["message"])
        event = wait_until(lambda: self.events_for(loser, "CapacityIsNotFound"), message="the CapacityIsNotFound Event")
        self.assertEqual(event[0]["type"], "Warning")
        self.assertEqual(event[0]["message"], cond["message"])
        # Still not provisioned a moment later (the winner's booking holds; retry waits a minute).
        time.sleep(0.5)
        self.assertEqual(self.condition(self.request(loser), "Provisioned")["status"], "False")

    def test_no_retry_fails_when_capacity_is_not_found(self):
        self.create(pod_template("three-cpu", "3"), prov_req("hopeless", "three-cpu", 5, {"noRetry": "true"}))
        failed = self.wait_condition("hopeless", "Failed", "True", "CapacityIsNotFound")
        self.assertTrue(failed["message"].startswith("CA could not find requested capacity: podSet 0 "
                                                     "(podTemplate \"three-cpu\"): 3 of 5 pods did not fit"),
                        failed["message"])
        self.assertIsNone(self.condition(self.request("hopeless"), "Provisioned"))
        self.assertFalse(self.reservations())

    def test_a_count_over_the_clusters_pod_slots_fails_naming_the_field(self):
        slots = sum(int(n["status"]["allocatable"]["pods"]) for n in self.sim.get_json("/api/v1/nodes")["items"])
        self.create(pod_template("tiny", "10m"), prov_req("too-many", "tiny", slots + 1))
        failed = self.wait_condition("too-many", "Failed", "True", "CapacityIsNotFound")
        self.assertEqual(failed["message"],
                         f'CA could not find requested capacity: spec.podSets[0].count: {slots + 1} pods of podTemplate '
                         f'"tiny" can never fit: the cluster\'s 2 node(s) have {slots} pod slots in all')
        self.assertIsNone(self.condition(self.request("too-many"), "Provisioned"), "terminal, not retried")
        self.assertFalse(self.reservations())
        event = wait_until(lambda: self.events_for("too-many", "CapacityIsNotFound"), message="the Warning Event")
        self.assertEqual(event[0]["type"], "Warning")

    def test_a_missing_pod_template_fails_after_the_grace_period(self):
        start_rv = self.sim.resource_version(PR_PATH)
        self.create(prov_req("orphan", "never-created", 1))
        accepted = self.wait_condition("orphan", "Accepted", "True", "Accepted")
        failed = self.wait_condition("orphan", "Failed", "True", "FailedToCreatePods", timeout=self.GRACE_S + 20)
        # From kubesim's watch history, not the live object: the grace runs from a whole-second creationTimestamp, so
        # it can be a second shorter, and a loaded machine can poll Accepted late, when Failed is already there.
        versions = [o for _, _, o in self.sim.events_since(PR_PATH, start_rv) if o["metadata"]["name"] == "orphan"]
        self.assertTrue(any(self.condition(o, "Accepted") and not self.condition(o, "Failed") for o in versions),
                        "waits for the template first: Accepted without Failed, before the grace ended")
        # Timestamps have whole seconds: the grace runs from creationTimestamp.
        created = self.request("orphan")["metadata"]["creationTimestamp"]
        self.assertGreaterEqual(seconds_between(created, failed["lastTransitionTime"]), self.GRACE_S,
                                "not before the grace")
        self.assertLessEqual(seconds_between(accepted["lastTransitionTime"], failed["lastTransitionTime"]),
                             self.GRACE_S + 2)
        self.assertEqual(failed["message"],
                         "missing pod templates, 1 pod templates were referenced, 1 templates were missing: never-created")

    def test_a_valid_until_seconds_that_is_not_a_number_fails_naming_the_parameter(self):
        self.create(pod_template("one-cpu", "1"), prov_req("bad-param", "one-cpu", 1, {"ValidUntilSeconds": "soon"}))
        failed = self.wait_condition("bad-param", "Failed", "True", "InvalidParameter")
        self.assertEqual(failed["message"], 'parameters.ValidUntilSeconds: "soon" is not a whole number of seconds')
        self.assertTrue(self.mgr.running(), "berth-manager keeps running")

    def test_a_v1beta1_object_is_read_and_decided_as_v1(self):
        self.create(pod_template("one-cpu", "1"), prov_req("old-client", "one-cpu", 1, version="v1beta1"))
        self.wait_condition("old-client", "Provisioned", "True", "CapacityIsFound")
        out = json.loads(self.sim.kubectl("get", "provisioningrequests.v1.autoscaling.x-k8s.io", "old-client", "-o", "json"))
        self.assertEqual(out["apiVersion"], "autoscaling.x-k8s.io/v1")
        self.assertEqual(out["spec"]["podSets"], [{"podTemplateRef": {"name": "one-cpu"}, "count": 1}])

    def test_deleting_a_provisioned_request_deletes_its_booking_then_the_request(self):
        self.create(pod_template("three-cpu", "3"), prov_req("short-lived", "three-cpu", 2))
        self.wait_condition("short-lived", "Provisioned", "True", "CapacityIsFound")
        wait_until(lambda: len(self.reservations("berth.dev/provisioning-request-name=short-lived")) == 2,
                   message="two booking Reservations")
        self.sim.kubectl("delete", "provreq", "short-lived", "--wait=false")
        wait_until(lambda: not self.reservations() and self.request("short-lived") is None,
                   message="the booking and then the request (its finalizer removed) to be gone")

    def test_deleting_the_pod_template_of_a_booked_request_fails_it_and_releases_the_booking(self):
        self.create(pod_template("gone-soon", "1"), prov_req("orphaned", "gone-soon", 1))
        self.wait_condition("orphaned", "Provisioned", "True", "CapacityIsFound")
        wait_until(lambda: len(self.reservations("berth.dev/provisioning-request-name=orphaned")) == 1,
                   message="the booking Reservation")
        self.sim.kubectl("delete", "podtemplate", "gone-soon", "-n", NS)
        failed = self.wait_condition("orphaned", "Failed", "True", "FailedToBookCapacity")
        self.assertEqual(failed["message"], "Couldn't create pods, err: missing pod templates, 1 pod templates were "
                                            "referenced, 1 templates were missing: gone-soon")
        wait_until(lambda: not self.reservations(), message="the booking to be released")

    def test_a_request_of_a_class_berth_does_not_handle_is_never_touched(self):
        other = prov_req("not-mine", "one-cpu", 1)
        other["spec"]["provisioningClassName"] = "queued-provisioning.gke.io"
        self.create(pod_template("one-cpu", "1"), other, prov_req("mine", "one-cpu", 1))
        self.wait_condition("mine", "Provisioned", "True", "CapacityIsFound")
        untouched = self.request("not-mine")
        self.assertNotIn("status", untouched)
        self.assertNotIn("finalizers", untouched["metadata"])
        self.assertEqual(untouched["metadata"]["resourceVersion"], self.request("not-mine")["metadata"]["resourceVersion"])
        self.assertIn("ignoring a ProvisioningRequest of a class berth does not handle", self.mgr.log_text())

    def test_a_cordoned_booked_node_revokes_the_capacity(self):
        self.create(pod_template("three-cpu", "3"), prov_req("revoked", "three-cpu", 1))
        self.wait_condition("revoked", "Provisioned", "True", "CapacityIsFound")
        booked = self.reservations("berth.dev/provisioning-request-name=revoked")
        self.assertEqual(len(booked), 1)
        node = booked[0]["spec"]["template"]["spec"]["nodeName"]
        self.sim.kubectl("cordon", node)
        try:
            revoked = self.wait_condition("revoked", "CapacityRevoked", "True", "NodeUnschedulable")
            self.assertEqual(revoked["message"], f'node "{node}" holding booked capacity was marked unschedulable')
            wait_until(lambda: not self.reservations(), message="the revoked booking to be released")
        finally:
            self.sim.kubectl("uncordon", node)

    def test_status_and_booking_writes_through_faults_end_in_one_booking(self):
        self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0.2, "faultCodes": [409, 429, 500]})
        try:
            for _ in range(20):  # the test's own create may hit a fault too
                r = self.sim.http("POST", "/api/v1/namespaces/default/podtemplates", json=pod_template("one-cpu", "1"))
                if r.status_code in (201, 409) and self.sim.http("GET", "/api/v1/namespaces/default/podtemplates/one-cpu").status_code == 200:
                    break
            for _ in range(20):
                r = self.sim.http("POST", PR_PATH, json=prov_req("faulty", "one-cpu", 3))
                if self.sim.http("GET", f"{PR_PATH}/faulty").status_code == 200:
                    break
            def provisioned():
                r = self.sim.http("GET", f"{PR_PATH}/faulty")
                if r.status_code != 200:
                    return None
                c = self.condition(r.json(), "Provisioned")
                return c if c and c["status"] == "True" else None
            self.mgr.wait(provisioned, "faulty to be Provisioned despite faults", 60,
                          context=lambda: f"request: {self.sim.http('GET', f'{PR_PATH}/faulty').text}")
        finally:
            self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0})
        booked = self.reservations("berth.dev/provisioning-request-name=faulty")
        cpu = sum(float(r["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]) for r in booked)
        self.assertEqual(cpu, 3.0, "exactly the request's 3 cpu are booked, once")
        # An Event create may itself hit a fault; what must not happen is a second transition.
        self.assertLessEqual(len(self.events_for("faulty", "CapacityIsFound")), 1)


class BookingTimerTest(ProvisioningCluster, unittest.TestCase):
    """--provisioning-request-booking-time shortened to 10s: the booking ends on its exact deadline. (Not shorter:
    the outsider pod must be created and tried by the scheduler while the booking still holds, which under load
    can take seconds.)"""

    nodes = 1
    BOOKING_S = 10
    manager_args = ["--provisioning-request-booking-time", f"{BOOKING_S}s"]

    def test_the_booking_expires_after_the_booking_time_and_frees_the_capacity(self):
        case = ProvisioningRequestTest("test_a_fitting_request_is_provisioned_and_its_capacity_held_until_its_consumers_take_it")
        case.sim, case.mgr = self.sim, self.mgr
        case.create(pod_template("three-cpu", "3"), prov_req("short", "three-cpu", 1))
        provisioned = case.wait_condition("short", "Provisioned", "True", "CapacityIsFound")
        case.create_pod("outsider", "2")
        wait_until(lambda: case.unschedulable("outsider"), message="outsider to be Unschedulable while booked")
        expired = case.wait_condition("short", "BookingExpired", "True", "CapacityReservationTimeExpired",
                                      timeout=self.BOOKING_S + 20)
        self.assertEqual(expired["message"], "Capacity reservation time is expired")
        # Whole-second timestamps: BOOKING_S after Provisioned, give or take the truncation.
        self.assertIn(seconds_between(provisioned["lastTransitionTime"], expired["lastTransitionTime"]),
                      (self.BOOKING_S, self.BOOKING_S + 1))
        wait_until(lambda: not case.reservations(), message="the expired booking to be released")
        wait_until(lambda: (case.pod("outsider") or {}).get("spec", {}).get("nodeName"), timeout=30,
                   message="outsider to be scheduled once the booking ended")
        self.assertEqual(case.mgr.metric("berth_provisioningrequests", **{"class": CHECK, "state": "BookingExpired"}), 1)


class NodeDeletionTest(ProvisioningCluster, unittest.TestCase):
    """A booked node deleted: CapacityRevoked/NodeDeleted, whoever notices the node is gone first."""

    def test_a_deleted_booked_node_revokes_the_capacity_and_the_booking_is_released(self):
        case = ProvisioningRequestTest("test_a_fitting_request_is_provisioned_and_its_capacity_held_until_its_consumers_take_it")
        case.sim, case.mgr = self.sim, self.mgr
        case.create(pod_template("three-cpu", "3"), prov_req("lost", "three-cpu", 1))
        case.wait_condition("lost", "Provisioned", "True", "CapacityIsFound")
        node = case.reservations()[0]["spec"]["template"]["spec"]["nodeName"]
        self.sim.kubectl("delete", "node", node)
        revoked = case.wait_condition("lost", "CapacityRevoked", "True", "NodeDeleted")
        self.assertEqual(revoked["message"], f'node "{node}" holding booked capacity was deleted')
        wait_until(lambda: not case.reservations(), message="the lost booking to be deleted")
        wait_until(lambda: case.events_for("lost", "NodeDeleted"), message="the NodeDeleted Event")


if __name__ == "__main__":
    unittest.main()
