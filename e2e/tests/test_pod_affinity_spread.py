"""InterPodAffinity and PodTopologySpread of berth's scheduler, with real kubectl on kubesim (issue 13).

Required anti-affinity keeps pods apart and says kube-scheduler's words when no node is left; required affinity
follows the pod it names; four pods with maxSkew 1 over two zones land 2/2; a reservation's template counts as
the pod it describes for other pods' anti-affinity; a pod parked on affinity binds once its peer lands.
"""
import json
import unittest

from kubesim_fixture import wait_until
from test_reservation_scheduling import RES_PATH, SchedulingSuite

ZONE = "topology.kubernetes.io/zone"


def condition(obj, kind):
    return next((c for c in obj.get("status", {}).get("conditions", []) if c["type"] == kind), None)


class PodAffinitySpreadTest(SchedulingSuite):
    nodes = 2
    sim_flags = {"node_cpu": "8", "node_memory": "16Gi"}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.sim.kubectl("label", "node", "node-0", ZONE + "=zone-a")
        cls.sim.kubectl("label", "node", "node-1", ZONE + "=zone-b")

    def tearDown(self):
        self.sim.kubectl("delete", "pods", "--all", "--wait=false")
        self.sim.kubectl("delete", "reservations", "--all", "--wait=false")
        wait_until(lambda: not self.pods() and not self.sim.get_json(RES_PATH)["items"], message="cleanup")

    def create(self, obj):
        self.assertIn("created", self.sim.kubectl("create", "-f", "-", input=json.dumps(obj)))

    def pod_obj(self, name, labels, **spec):
        body = {"schedulerName": "koord-scheduler",
                "containers": [{"name": "main", "image": "busybox",
                                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}
        body.update(spec)
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": labels}, "spec": body}

    def node_of(self, name):
        return self.wait_running(name)["spec"]["nodeName"]

    def test_required_anti_affinity_keeps_pods_apart_and_names_the_rule(self):
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        for i in range(2):
            self.create(self.pod_obj(f"web-{i}", {"app": "web"}, affinity=anti))
        self.assertEqual({self.node_of("web-0"), self.node_of("web-1")}, {"node-0", "node-1"})
        self.create(self.pod_obj("web-2", {"app": "web"}, affinity=anti))
        pod = self.wait_unschedulable("web-2")
        self.assertEqual(condition(pod, "PodScheduled")["message"],
                         "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
                         " preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")
        # Symmetry: a pod without terms is kept off by the existing pods' anti-affinity (it is app=web too).
        self.create(self.pod_obj("web-plain", {"app": "web"}))
        pod = self.wait_unschedulable("web-plain")
        self.assertEqual(condition(pod, "PodScheduled")["message"],
                         "0/2 nodes are available: 2 node(s) didn't satisfy existing pods anti-affinity rules."
                         " preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")
        # Deleting one frees its node for the waiting pods (one of them).
        self.sim.kubectl("delete", "pod", "web-0")
        wait_until(lambda: any(p.get("spec", {}).get("nodeName") for p in
                               (self.pod("web-2"), self.pod("web-plain"))), message="a waiting pod bound")

    def test_required_affinity_follows_the_pod_it_names(self):
        self.create(self.pod_obj("db", {"app": "db"}, nodeName="node-1"))
        self.wait_running("db")
        aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}]}}
        for i in range(3):
            self.create(self.pod_obj(f"api-{i}", {"app": "api"}, affinity=aff))
        self.assertEqual({self.node_of(f"api-{i}") for i in range(3)}, {"node-1"})
        missing = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "nothing"}}, "topologyKey": ZONE}]}}
        self.create(self.pod_obj("lonely", {"app": "lonely"}, affinity=missing))
        pod = self.wait_unschedulable("lonely")
        self.assertEqual(condition(pod, "PodScheduled")["message"],
                         "0/2 nodes are available: 2 node(s) didn't match pod affinity rules."
                         " preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")

    def test_a_pod_waiting_on_affinity_binds_once_its_peer_lands(self):
        aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        self.create(self.pod_obj("follower", {"app": "follower"}, affinity=aff))
        pod = self.wait_unschedulable("follower")
        self.assertEqual(condition(pod, "PodScheduled")["message"],
                         "0/2 nodes are available: 2 node(s) didn't match pod affinity rules."
                         " preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
        # The peer is bound by hand (as another scheduler would): the parked pod retries on its arrival.
        self.create(self.pod_obj("cache", {"app": "cache"}, nodeName="node-1"))
        self.assertEqual(self.node_of("follower"), "node-1")

    def test_four_pods_max_skew_one_land_two_and_two_over_two_zones(self):
        spread = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                   "labelSelector": {"matchLabels": {"app": "spread"}}}]
        # node-0 starts busier, so resource scores alone would put every pod on node-1.
        self.create(self.pod_obj("ballast", {"app": "ballast"}, nodeName="node-0"))
        for i in range(4):
            self.create(self.pod_obj(f"spread-{i}", {"app": "spread"}, topologySpreadConstraints=spread))
        nodes = [self.node_of(f"spread-{i}") for i in range(4)]
        self.assertEqual(sorted(nodes), ["node-0", "node-0", "node-1", "node-1"])

    def test_a_reservation_counts_as_its_template_pod_for_anti_affinity(self):
        rsv = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
               "metadata": {"name": "web-slot"},
               "spec": {"template": {"metadata": {"namespace": "default", "labels": {"app": "web"}},
                                     "spec": {"schedulerName": "koord-scheduler", "nodeName": "node-0",
                                              "containers": [{"name": "main", "resources": {
                                                  "requests": {"cpu": "100m"}}}]}},
                        "owners": [{"labelSelector": {"matchLabels": {"slot": "owner"}}}], "ttl": "1h"}}
        self.create(rsv)
        self.wait_phase("web-slot", "Available")
        # node-1 is made busier, so resource scores alone would choose node-0.
        heavy = [{"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "4", "memory": "4Gi"}}}]
        self.create(self.pod_obj("ballast", {"app": "ballast"}, nodeName="node-1", containers=heavy))
        self.wait_running("ballast")
        self.create(self.pod_obj("plain", {"app": "plain"}))
        self.assertEqual(self.node_of("plain"), "node-0")
        anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
        self.create(self.pod_obj("web-x", {"app": "web"}, affinity=anti))
        self.assertEqual(self.node_of("web-x"), "node-1")


if __name__ == "__main__":
    unittest.main()
