"""kube-scheduler's own e2e scenarios (test/e2e/scheduling) that berth's scheduler got wrong, with real kubectl on kubesim.

Pod scheduling readiness (KEP-3521): a pod created with spec.schedulingGates is PodScheduled=False/SchedulingGated
(written by the apiserver at create) and berth's scheduler leaves it alone: no binding, no FailedScheduling Event,
while any gate is left. Removing the last gate is a pod update that makes it schedulable; it is then bound with the
usual Scheduled Event.
"""
import json
import time
import unittest

from kubesim_fixture import kubectl_table, wait_until
from test_reservation_scheduling import SchedulingSuite

GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


def pod_scheduled(pod):
    return next((c for c in pod.get("status", {}).get("conditions", []) if c["type"] == "PodScheduled"), None)


class UpstreamScenariosTest(SchedulingSuite):
    nodes = 2

    def tearDown(self):
        self.sim.kubectl("delete", "pods", "--all", "--wait=false")
        wait_until(lambda: not self.pods(), message="cleanup")

    def create(self, name, gates=(), **extra):
        spec = {"schedulerName": "koord-scheduler",
                "containers": [{"name": "main", "image": "busybox",
                                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}
        spec.update(extra)
        if gates:
            spec["schedulingGates"] = [{"name": g} for g in gates]
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}
        self.assertIn("created", self.sim.kubectl("create", "-f", "-", input=json.dumps(obj)))

    def assert_still_gated(self, name, marker):
        # A pod created after the gated one is bound: berth has had its turn at the gated one too.
        self.create(marker)
        self.wait_running(marker)
        time.sleep(0.5)
        pod = self.pod(name)
        self.assertIsNone(pod["spec"].get("nodeName"))
        cond = pod_scheduled(pod)
        self.assertEqual((cond["status"], cond["reason"], cond["message"]), ("False", "SchedulingGated", GATED_MESSAGE))
        self.assertEqual(self.events_for(name, "FailedScheduling"), [])
        self.assertEqual(self.events_for(name, "Scheduled"), [])

    def test_a_gated_pod_waits_for_its_last_gate_to_be_removed_then_is_scheduled(self):
        self.create("gated", gates=("example.com/quota", "example.com/approval"))
        _, rows = kubectl_table(self.sim.kubectl("get", "pod", "gated"))
        self.assertEqual(rows[0]["STATUS"], "SchedulingGated")
        self.assert_still_gated("gated", "marker-0")
        # One gate of two removed: still gated.
        self.sim.kubectl("patch", "pod", "gated", "--type=json",
                         "-p", '[{"op":"remove","path":"/spec/schedulingGates/0"}]')
        self.assert_still_gated("gated", "marker-1")
        # The last one removed: scheduled like any other pod.
        self.sim.kubectl("patch", "pod", "gated", "--type=json", "-p", '[{"op":"remove","path":"/spec/schedulingGates"}]')
        pod = self.wait_running("gated")
        self.assertEqual(pod_scheduled(pod)["status"], "True")
        self.assertEqual([e["message"] for e in self.events_for("gated", "Scheduled")],
                         [f"Successfully assigned default/gated to {pod['spec']['nodeName']}"])
        self.assertEqual(self.events_for("gated", "FailedScheduling"), [])

if __name__ == "__main__":
    unittest.main()
