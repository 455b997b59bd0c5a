"""kubesim conformance: simulated cluster behaviour (binding, kubelet, pod GC, namespace deletion) and faults."""
import os
import subprocess
import time
import unittest

from kubesim_fixture import BIN
from conformance_util import ConformanceCase, WatchStream, configmap, pod, start_kubesim, wait_until

PODS = "/api/v1/namespaces/default/pods"


def ready(p):
    return any(c["type"] == "Ready" and c["status"] == "True" for c in p.get("status", {}).get("conditions", []))


class ClusterTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=3, pod_ready_delay="1s", pod_gc_delay="1s")

    def test_nodes_are_ready_with_the_configured_allocatable(self):
        nodes = self.get("/api/v1/nodes")["items"]
        self.assertEqual([n["metadata"]["name"] for n in nodes], ["node-0", "node-1", "node-2"])
        for n in nodes:
            self.assertEqual(n["status"]["allocatable"]["pods"], "110")
            self.assertEqual(n["status"]["allocatable"]["cpu"], "8")
            self.assertEqual(n["status"]["allocatable"]["memory"], "32Gi")
            self.assertTrue(any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"]["conditions"]))

    def test_binding_sets_node_name_and_the_kubelet_makes_the_pod_ready_after_the_delay(self):
        self.create(PODS, pod("bind-me"))
        r = self.sim.http("POST", PODS + "/bind-me/binding", json={
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "bind-me"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}})
        self.assertEqual(r.status_code, 201, r.text)
        self.assertEqual(r.json()["status"], "Success")
        bound_at = time.monotonic()
        p = self.get(PODS + "/bind-me")
        self.assertEqual(p["spec"]["nodeName"], "node-1")
        self.assertEqual(p["status"]["phase"], "Pending")
        p = wait_until(lambda: (lambda x: x if ready(x) else None)(self.get(PODS + "/bind-me")), message="Ready")
        self.assertGreaterEqual(time.monotonic() - bound_at, 0.8)
        self.assertEqual(p["status"]["phase"], "Running")
        self.assertIn("podIP", p["status"])
        self.assertIn("startTime", p["status"])
        self.assertEqual(p["status"]["containerStatuses"][0]["ready"], True)

    def test_binding_an_already_bound_pod_is_409(self):
        self.create(PODS, pod("twice", node="node-0"))
        r = self.sim.http("POST", PODS + "/twice/binding", json={
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "twice"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}})
        self.assertStatus(r, 409, "Conflict", message_contains="is already assigned to node")

    def test_deleting_a_node_deletes_its_pods_after_the_gc_delay(self):
        self.create("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "doomed"},
                                      "status": {"allocatable": {"pods": "110"}, "conditions": [
                                          {"type": "Ready", "status": "True"}]}})
        self.create(PODS, pod("on-doomed", node="doomed"))
        self.create(PODS, pod("elsewhere", node="node-2"))
        r = self.sim.http("DELETE", "/api/v1/nodes/doomed")
        self.assertEqual(r.status_code, 200)
        deleted_at = time.monotonic()
        wait_until(lambda: self.gone(PODS + "/on-doomed"), message="pod of the deleted node removed")
        self.assertGreaterEqual(time.monotonic() - deleted_at, 0.8)
        self.assertFalse(self.gone(PODS + "/elsewhere"))

    def test_namespace_deletion_empties_the_namespace_then_removes_it(self):
        self.ensure_namespace("doomed-ns")
        self.create("/api/v1/namespaces/doomed-ns/configmaps", configmap("c1"))
        self.create("/api/v1/namespaces/doomed-ns/pods", pod("p1", node="node-0"))
        r = self.sim.http("DELETE", "/api/v1/namespaces/doomed-ns")
        self.assertEqual(r.status_code, 200, r.text)
        ns = r.json()
        self.assertEqual(ns["status"]["phase"], "Terminating")
        self.assertIn("deletionTimestamp", ns["metadata"])
        r = self.sim.http("POST", "/api/v1/namespaces/doomed-ns/configmaps", json=configmap("late"))
        if r.status_code != 404:  # the namespace may already be gone
            self.assertStatus(r, 403, "Forbidden", message_contains="because it is being terminated")
        wait_until(lambda: self.gone("/api/v1/namespaces/doomed-ns"), timeout=20, message="namespace removed")
        self.assertEqual(self.get("/api/v1/namespaces/doomed-ns/configmaps")["items"], [])
        self.assertEqual(self.get("/api/v1/namespaces/doomed-ns/pods")["items"], [])

    def test_creating_in_a_missing_namespace_is_404(self):
        r = self.sim.http("POST", "/api/v1/namespaces/nope/configmaps", json=configmap("x"))
        self.assertStatus(r, 404, "NotFound", message='namespaces "nope" not found')


class FaultTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1)

    def set_faults(self, **cfg):
        r = self.sim.http("PUT", "/kubesim/admin/faults", json=cfg)
        self.assertEqual(r.status_code, 200, r.text)
        return r.json()

    def test_fault_rate_one_with_429_fails_every_request_with_retry_after(self):
        self.set_faults(faultRate=1, faultCodes=[429])
        try:
            for _ in range(5):
                r = self.sim.http("GET", "/api/v1/namespaces/default/configmaps")
                self.assertStatus(r, 429, "TooManyRequests")
                self.assertTrue(r.headers.get("Retry-After", "").isdigit(), r.headers)
        finally:
            self.set_faults(faultRate=0)
        for _ in range(20):
            self.assertEqual(self.sim.http("GET", "/api/v1/namespaces/default/configmaps").status_code, 200)

    def test_any_error_code_is_injected_with_the_reason_kube_apiserver_gives_it(self):
        cases = [
            (503, "ServiceUnavailable", "the server is currently unable to handle the request"),
            (504, "Timeout", None),
            (403, "Forbidden", 'configmaps "cm" is forbidden: injected fault'),
            (401, "Unauthorized", "Unauthorized"),
            (422, "Invalid", 'configmaps "cm" is invalid: injected fault'),
        ]
        try:
            for code, reason, message in cases:
                with self.subTest(code=code):
                    self.set_faults(faultRate=1, faultCodes=[code])
                    r = self.sim.http("GET", "/api/v1/namespaces/default/configmaps/cm")
                    self.assertStatus(r, code, reason, message=message)
                    retry_after = r.headers.get("Retry-After")
                    if code == 503:
                        self.assertEqual(retry_after, "1", r.headers)
                        self.assertEqual(r.json()["details"]["retryAfterSeconds"], 1)
                    else:
                        self.assertIsNone(retry_after, r.headers)
        finally:
            self.set_faults(faultRate=0)

    def test_fault_codes_outside_4xx_5xx_are_rejected_by_admin_and_flag(self):
        r = self.sim.http("PUT", "/kubesim/admin/faults", json={"faultCodes": [302]})
        self.assertStatus(r, 400, "BadRequest", message_contains="400..599")
        binary = os.path.join(BIN, "kubesim")
        for bad in ("500,abc", "302", "500,,429", ""):
            with self.subTest(codes=bad):
                done = subprocess.run([binary, "--port", "0", "--fault-codes", bad],
                                      capture_output=True, text=True, timeout=30)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertIn("invalid --fault-codes", done.stderr)

    def test_fault_rate_zero_injects_nothing(self):
        self.set_faults(faultRate=0, faultCodes=[500])
        codes = {self.sim.http("GET", "/api/v1/nodes").status_code for _ in range(30)}
        self.assertEqual(codes, {200})

    def test_restart_drops_open_watches_and_keeps_the_objects(self):
        self.create("/api/v1/namespaces/default/configmaps", configmap("survivor"))
        stream = WatchStream(self.sim, "/api/v1/namespaces/default/configmaps?watch=true")
        self.addCleanup(stream.close)
        stream.wait_for(lambda e: e["object"]["metadata"]["name"] == "survivor")
        r = self.sim.http("POST", "/kubesim/admin/restart")
        self.assertEqual(r.status_code, 200, r.text)
        stream.wait_closed(timeout=10)
        wait_until(lambda: self.sim.http("GET", "/api/v1/namespaces/default/configmaps/survivor").status_code == 200,
                   message="kubesim serving after restart")
        self.assertIsNone(self.sim.proc.poll())


if __name__ == "__main__":
    unittest.main()
