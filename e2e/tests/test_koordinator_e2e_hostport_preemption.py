"""koordinator's HostPort and Preemption e2e scenarios (test/e2e/scheduling/hostport.go, preemption.go's "Preempt
basic resources") and koord-scheduler's per-reservation metrics, ported like test_koordinator_e2e_scenarios.py
(same base, objects and assertions) to kubectl against kubesim with berth-manager as koord-scheduler.
"""
import unittest

from kubesim_fixture import wait_until
from test_koordinator_e2e_scenarios import FAKE, NS, KoordinatorE2EBase, pause_pod, simple_reservation


class KoordinatorHostPortPreemptionE2E(KoordinatorE2EBase):
    # ---- hostport.go: HostPort Reservation ----
    def port_reservation(self, name, allocate_once, ports):
        res = simple_reservation(name, allocateOnce=allocate_once,
                                 owners=[{"labelSelector": {"matchLabels": {"test-reserve-ports": "true"}}}])
        res["spec"]["template"]["spec"]["containers"] = [{
            "name": "main", "resources": {"requests": {"cpu": "2"}},
            "ports": [{"name": f"port-{p}", "containerPort": c, "hostPort": p, "protocol": "TCP"} for p, c in ports]}]
        self.create(res)
        return self.wait_available(name)

    def port_pod(self, name, ports, node=None):
        pod = pause_pod(name, labels={"test-reserve-ports": "true"}, resources={"requests": {"cpu": "1"}}, node=node)
        pod["spec"]["containers"][0]["ports"] = [
            {"name": f"port-{p}", "containerPort": c, "hostPort": p, "protocol": "TCP"} for p, c in ports]
        self.create(pod)

    def check_reserved_port_allocated_once(self, allocate_once):
        r = self.port_reservation("e2e-hostport", allocate_once, [(54321, 1111)])
        node = r["status"]["nodeName"]
        self.port_pod("allocate-port-54321", [(54321, 1111)], node=node)
        pod = self.wait_running("allocate-port-54321")
        self.port_pod("failed-allocate-port-54321", [(54321, 1111)], node=node)
        self.wait_schedule_failed("failed-allocate-port-54321")
        r = self.wait_reservation("e2e-hostport", lambda r: r["status"].get("currentOwners"), "an owner")
        self.assertEqual(r["status"]["currentOwners"],
                         [{"namespace": NS, "name": "allocate-port-54321", "uid": pod["metadata"]["uid"]}])

    def test_allocate_once_false_reserved_port_can_be_allocated_only_once(self):
        self.check_reserved_port_allocated_once(False)

    def test_allocate_once_reserved_port_can_be_allocated_only_once(self):
        self.check_reserved_port_allocated_once(True)

    def test_allocate_once_false_reserves_ports_to_a_pod_and_a_second_port_pod_goes_elsewhere(self):
        self.port_reservation("e2e-hostport", False, [(54321, 1111), (54322, 2222)])
        self.port_pod("allocate-port-54321", [(54321, 1111)])
        pod = self.wait_running("allocate-port-54321")
        self.port_pod("other-allocate-port-54321-54322", [(54321, 1111), (54322, 2222)])
        self.wait_running("other-allocate-port-54321-54322")
        r = self.wait_reservation("e2e-hostport", lambda r: r["status"].get("currentOwners"), "an owner")
        self.assertEqual(r["status"]["currentOwners"],
                         [{"namespace": NS, "name": "allocate-port-54321", "uid": pod["metadata"]["uid"]}])

    # ---- preemption.go: Preempt basic resources ----
    PREEMPT_REQ = {"requests": {FAKE: "1000", "cpu": "4"}, "limits": {FAKE: "1000", "cpu": "4"}}

    def preempt_reservation(self, node, policy=None):
        res = simple_reservation("e2e-preempt", allocateOnce=False,
                                 owners=[{"labelSelector": {"matchLabels": {"test-reservation-preempt": "true"}}}])
        res["spec"]["template"]["spec"]["nodeName"] = node
        res["spec"]["template"]["spec"]["containers"] = [
            {"name": "main", "resources": {"requests": {FAKE: "1000"}, "limits": {FAKE: "1000"}}}]
        if policy:
            res["spec"]["allocatePolicy"] = policy
        self.create(res)
        self.wait_available("e2e-preempt")

    def test_basic_preempt(self):
        node = "node-0"
        self.set_fake_resource(node, "1000")
        self.create(pause_pod("low-priority-pod", resources=self.PREEMPT_REQ, node=node))
        self.wait_running("low-priority-pod")
        high = pause_pod("high-priority-pod", resources=self.PREEMPT_REQ, node=node)
        high["spec"]["priorityClassName"] = "system-cluster-critical"
        self.create(high)
        self.wait_running("high-priority-pod")

    def test_pods_outside_a_reservation_cannot_preempt_pods_in_it(self):
        node = "node-1"
        self.set_fake_resource(node, "1000")
        self.preempt_reservation(node)
        self.create(pause_pod("low-priority-pod", labels={"test-reservation-preempt": "true"},
                              resources=self.PREEMPT_REQ, node=node))
        self.wait_running("low-priority-pod")
        self.expect_pod_bound_reservation("low-priority-pod", "e2e-preempt")
        high = pause_pod("high-priority-pod", resources=self.PREEMPT_REQ, node=node)
        high["spec"]["priorityClassName"] = "system-cluster-critical"
        self.create(high)
        self.wait_schedule_failed("high-priority-pod")
        self.assertNotIn("deletionTimestamp", self.pod("low-priority-pod")["metadata"])

    def check_owner_preempts_owner(self, policy):
        node = "node-2"
        self.set_fake_resource(node, "1000")
        self.preempt_reservation(node, policy)
        self.create(pause_pod("low-priority-pod", labels={"test-reservation-preempt": "true"},
                              resources=self.PREEMPT_REQ, node=node))
        self.wait_running("low-priority-pod")
        self.expect_pod_bound_reservation("low-priority-pod", "e2e-preempt")
        high = pause_pod("high-priority-pod", labels={"test-reservation-preempt": "true"},
                         resources=self.PREEMPT_REQ, node=node)
        high["spec"]["priorityClassName"] = "system-cluster-critical"
        self.create(high)
        self.wait_running("high-priority-pod")
        self.expect_pod_bound_reservation("high-priority-pod", "e2e-preempt")

    def test_highest_priority_pods_in_a_reservation_preempt_lowest_priority_pods_in_it(self):
        self.check_owner_preempts_owner(None)

    def test_highest_priority_pods_in_a_restricted_reservation_preempt_lowest_priority_pods_in_it(self):
        self.check_owner_preempts_owner("Restricted")

    # ---- koord-scheduler's per-reservation metrics (pkg/scheduler/metrics) ----
    def test_koordinator_reservation_metrics_follow_the_phase_and_go_with_the_reservation(self):
        def series(name):
            return {k: v for k, v in self.mgr.metrics().items()
                    if k[0] in ("scheduler_reservation_status_phase", "scheduler_reservation_resource")
                    and ("name", name) in k[1]}

        def resource(**labels):
            # The series' own `name` label clashes with metric()'s first parameter: look it up directly.
            key = ("scheduler_reservation_resource", tuple(sorted(dict(labels, name="e2e-metrics").items())))
            return self.mgr.metrics().get(key)

        def phase_is(name, phase):
            got = {dict(k[1])["phase"]: v for k, v in series(name).items()
                   if k[0] == "scheduler_reservation_status_phase"}
            return got == {p: (1.0 if p == phase else 0.0) for p in ("Pending", "Available", "Succeeded", "Failed")}

        self.create(simple_reservation("e2e-metrics"))
        self.wait_available("e2e-metrics")
        wait_until(lambda: phase_is("e2e-metrics", "Available"), timeout=10, message="phase gauge Available")
        self.assertEqual(resource(type="allocatable", resource="memory", unit="Gi"), 1.0)
        self.create(pause_pod("metrics-owner", labels={"app": "e2e-test-reservation"},
                              resources={"limits": {"cpu": "500m", "memory": "1Gi"},
                                         "requests": {"cpu": "500m", "memory": "1Gi"}}))
        self.wait_running("metrics-owner")
        wait_until(lambda: phase_is("e2e-metrics", "Succeeded"), timeout=10, message="phase gauge Succeeded")
        wait_until(lambda: resource(type="utilization", resource="cpu", unit="ratio") == 0.5, timeout=10,
                   message="cpu utilization 0.5")
        self.sim.kubectl("delete", "reservation", "e2e-metrics")
        wait_until(lambda: not series("e2e-metrics"), timeout=10, message="the reservation's series to be removed")


if __name__ == "__main__":
    unittest.main()
