"""berth's kube-scheduler extender before its caches have synced (test_extender.py plays kube-scheduler; this suite
reuses its player and cluster)."""
import json

import requests

from test_extender import ExtenderSuite, KubeSchedulerPlayer
from test_reservation_scheduling import RES_PATH


class UnsyncedCacheTest(ExtenderSuite):
    """berth-manager restarted while the API server refuses to list Reservations (kubesim answers every GET of
    reservations 503): until its caches have synced, every verb is a 503 with {"Error": …} (kube-scheduler retries
    the pod with backoff, or skips berth when ignorable), never a decision from a cache that does not know the
    Reservation holding node-0. Once the list succeeds, the same pod is kept off the reserved capacity."""
    nodes = 2
    sim_flags = {"node_cpu": "4", "node_memory": "8Gi"}

    def post(self, verb, body):
        try:
            return requests.post(f"{self.url}/{verb}", data=json.dumps(body, separators=(",", ":")),
                                 headers={"Content-Type": "application/json"}, timeout=5)
        except requests.exceptions.ConnectionError:
            return None  # not listening yet

    def test_every_verb_is_503_until_the_caches_have_synced(self):
        res = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": "held"},
               "spec": {"ttl": "1h", "owners": [{"labelSelector": {"matchLabels": {"app": "owner"}}}],
                        "template": {"metadata": {"namespace": "default"},
                                     "spec": {"nodeName": "node-0", "schedulerName": "koord-scheduler",
                                              "containers": [{"name": "main", "resources": {
                                                  "requests": {"cpu": "3", "memory": "1Gi"}}}]}}}}
        self.assertEqual(self.sim.http("POST", RES_PATH, json=res).status_code, 201)
        self.wait_available("held")
        self.create_pod("early", "2", "1Gi")
        pod = self.get("/api/v1/namespaces/default/pods/early")
        player = KubeSchedulerPlayer(self.sim, self.url)
        args = {"Pod": pod, "Nodes": None, "NodeNames": ["node-0", "node-1"]}
        self.mgr.stop()
        r = self.sim.http("PUT", "/kubesim/admin/faults",
                          json={"faultRate": 1.0, "faultCodes": [503], "faultTargets": ["GET:reservations"]})
        self.assertEqual(r.status_code, 200, r.text)
        try:
            self.mgr.start(wait_ready=False)
            # (a Response of a 4xx/5xx is falsy: wrapped in a list for wait)
            answer = self.mgr.wait(lambda: (lambda r: [r] if r is not None else None)(self.post("filter", args)),
                                   message="the extender to listen")[0]
            self.assertEqual(answer.status_code, 503, answer.text)
            error = answer.json()["Error"]
            self.assertTrue(error.startswith("berth's caches have not synced yet: "), error)
            self.assertIn("reservations has not synced", error)
            bind = {"PodName": "early", "PodNamespace": "default", "PodUID": pod["metadata"]["uid"], "Node": "node-0"}
            for verb, body in (("prioritize", args), ("bind", bind),
                               ("preempt", {"Pod": pod, "NodeNameToVictims": None, "NodeNameToMetaVictims": {}})):
                r = self.post(verb, body)
                self.assertEqual(r.status_code, 503, f"{verb}: {r.text}")
                self.assertIn("has not synced", r.json()["Error"], verb)
            self.assertNotEqual(self.mgr.probe("/readyz"), 200)
            self.assertFalse(self.get("/api/v1/namespaces/default/pods/early")["spec"].get("nodeName"))
        finally:
            self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0})
        self.mgr.wait_ready()
        _, filter_result = player.filter(pod, player.nodes())
        self.assertEqual(filter_result["FailedNodes"], {"node-0": "Insufficient cpu"})
        node, _ = player.schedule("early")
        self.assertEqual(node, "node-1")
        self.assertGreaterEqual(self.mgr.metric("berth_extender_requests_total", verb="filter", code="200"), 1)
        self.assertIn("answering kube-scheduler's extender calls with 503 until the caches have synced",
                      self.mgr.log_text())
