"""kube-scheduler's own e2e scenarios (test/e2e/scheduling) that berth's scheduler got wrong, with real kubectl on kubesim.

Pod scheduling readiness (KEP-3521): a pod created with spec.schedulingGates is PodScheduled=False/SchedulingGated
(written by the apiserver at create) and berth's scheduler leaves it alone: no binding, no FailedScheduling Event,
while any gate is left. Removing the last gate is a pod update that makes it schedulable; it is then bound with the
usual Scheduled Event. While gated, its nodeSelector may be extended (never changed), and gates only removed.

An unschedulable pod is tried again when the pod itself changes (kube-scheduler's queue moves it on a pod update):
a toleration added for the taint that kept it off its node binds it there at once, not at the next cluster change.

A running pod's labels are what other pods' affinity, anti-affinity and spreading see: relabelling it re-counts it
and wakes the pods that wait on it.

hostNetwork pods: the apiserver defaults each container port's hostPort to its containerPort, so two hostNetwork
pods listening on one port never share a node (NodePorts).
"""
import json
import time
import unittest

from kubesim_fixture import KUBECTL, kubectl_table, wait_until
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
        # The recorder posts the Event from its queue after the binding: waited for, then compared (a second one
        # would still show).
        wait_until(lambda: self.events_for("gated", "Scheduled"), timeout=30, message="the Scheduled Event of gated")
        self.assertEqual([e["message"] for e in self.events_for("gated", "Scheduled")],
                         [f"Successfully assigned default/gated to {pod['spec']['nodeName']}"])
        self.assertEqual(self.events_for("gated", "FailedScheduling"), [])

    def test_a_gated_pods_node_selector_may_be_extended_and_gates_only_removed(self):
        self.create("steered", gates=("example.com/placement",))
        # A controller holding the gate narrows the placement first (mutable scheduling directives)...
        self.sim.kubectl("patch", "pod", "steered", "--type=merge",
                         "-p", '{"spec":{"nodeSelector":{"kubernetes.io/hostname":"node-1"}}}')
        # ...but may not add a gate, nor change a selector key it set.
        refused = self.sim.run(KUBECTL, "patch", "pod", "steered", "--type=json", "-p",
                               '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"example.com/more"}}]',
                               check=False).stderr
        self.assertIn('The Pod "steered" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed,'
                      " but found new scheduling gate 'example.com/more'", refused)
        refused = self.sim.run(KUBECTL, "patch", "pod", "steered", "--type=merge",
                               "-p", '{"spec":{"nodeSelector":{"kubernetes.io/hostname":"node-0"}}}', check=False).stderr
        self.assertIn("only additions to spec.nodeSelector are allowed (no mutations or deletions)", refused)
        self.sim.kubectl("patch", "pod", "steered", "--type=json", "-p", '[{"op":"remove","path":"/spec/schedulingGates"}]')
        self.assertEqual(self.wait_running("steered")["spec"]["nodeName"], "node-1")

    def test_an_unschedulable_pod_is_retried_when_a_toleration_is_added(self):
        self.sim.kubectl("taint", "node", "node-1", "dedicated=team-a:NoSchedule")
        self.addCleanup(self.sim.kubectl, "taint", "node", "node-1", "dedicated-")
        self.create("tolerating", nodeSelector={"kubernetes.io/hostname": "node-1"})
        pod = self.wait_unschedulable("tolerating")
        self.assertEqual(pod_scheduled(pod)["message"],
                         "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector,"
                         " 1 node(s) had untolerated taint {dedicated: team-a}. preemption: 0/2 nodes are available:"
                         " 2 Preemption is not helpful for scheduling.")
        # Its own status write (PodScheduled=False) does not wake it: no attempts while nothing changes.
        time.sleep(0.5)
        attempts = self.mgr.metric("berth_scheduler_attempts_total", kind="pod", result="unschedulable")
        time.sleep(1)
        self.assertEqual(self.mgr.metric("berth_scheduler_attempts_total", kind="pod", result="unschedulable"), attempts)
        self.sim.kubectl("patch", "pod", "tolerating", "--type=json", "-p", json.dumps(
            [{"op": "add", "path": "/spec/tolerations/-",
              "value": {"key": "dedicated", "operator": "Equal", "value": "team-a", "effect": "NoSchedule"}}]))
        self.assertEqual(self.wait_running("tolerating", timeout=10)["spec"]["nodeName"], "node-1")

    def test_relabelling_a_running_pod_changes_what_pending_pods_affinity_sees(self):
        self.create("existing", nodeName="node-0")
        self.sim.kubectl("label", "pod", "existing", "app=web")
        self.wait_running("existing")
        on_node_0 = {"kubernetes.io/hostname": "node-0"}
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        self.create("apart", nodeSelector=on_node_0, affinity=anti)
        pod = self.wait_unschedulable("apart")
        self.assertIn("1 node(s) didn't match pod anti-affinity rules", pod_scheduled(pod)["message"])
        near = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        self.create("near", affinity=near)
        pod = self.wait_unschedulable("near")
        self.assertIn("2 node(s) didn't match pod affinity rules", pod_scheduled(pod)["message"])
        # The running pod is relabelled (kube-scheduler: Pod/UpdatePodLabel): it no longer repels "apart" and now
        # attracts "near"; both bind on node-0 without any other change in the cluster.
        self.sim.kubectl("label", "pod", "existing", "app=db", "--overwrite")
        self.assertEqual(self.wait_running("apart", timeout=10)["spec"]["nodeName"], "node-0")
        self.assertEqual(self.wait_running("near", timeout=10)["spec"]["nodeName"], "node-0")

    def test_host_network_pods_on_one_port_never_share_a_node(self):
        def host_network():
            return dict(hostNetwork=True, nodeSelector={"kubernetes.io/hostname": "node-0"},
                        containers=[{"name": "main", "image": "busybox", "ports": [{"containerPort": 8081}],
                                     "resources": {"requests": {"cpu": "100m"}}}])
        self.create("hn-0", **host_network())
        pod = self.wait_running("hn-0")
        self.assertEqual(pod["spec"]["containers"][0]["ports"][0]["hostPort"], 8081)
        self.create("hn-1", **host_network())
        pod = self.wait_unschedulable("hn-1")
        self.assertEqual(pod_scheduled(pod)["message"],
                         "0/2 nodes are available: 1 node(s) didn't have free ports for the requested pod ports,"
                         " 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available:"
                         " 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.")


if __name__ == "__main__":
    unittest.main()
