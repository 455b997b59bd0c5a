"""kubesim conformance: the Eviction subresource and the disruption controller's PDB status maths."""
import unittest

from conformance_util import ConformanceCase, pod, start_kubesim, wait_until

PODS = "/api/v1/namespaces/{ns}/pods"
PDBS = "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"


def pdb(name, selector, min_available=None, max_unavailable=None, policy=None):
    spec = {"selector": {"matchLabels": selector}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name}, "spec": spec}


def eviction(name, ns):
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": ns}}


class EvictionTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=2)

    def setUp(self):
        self.ns = self.id().rsplit(".", 1)[1].replace("_", "-")[5:40].strip("-")
        self.ensure_namespace(self.ns)

    def run_pods(self, prefix, n, labels, node="node-0", owner=None):
        for i in range(n):
            p = pod(f"{prefix}-{i}", labels=labels, node=node)
            if owner:
                p["metadata"]["ownerReferences"] = [owner]
            self.create(PODS.format(ns=self.ns), p)
        wait_until(lambda: all(self.get(PODS.format(ns=self.ns) + f"/{prefix}-{i}")["status"]["phase"] == "Running"
                               for i in range(n)), message="pods Running")

    def pdb_status(self, name, **expected):
        def check():
            st = self.get(PDBS.format(ns=self.ns) + "/" + name).get("status", {})
            return st if all(st.get(k) == v for k, v in expected.items()) else None
        return wait_until(check, message=f"PDB status {expected}")

    def evict(self, name):
        return self.sim.http("POST", PODS.format(ns=self.ns) + f"/{name}/eviction", json=eviction(name, self.ns))

    def test_eviction_without_a_pdb_is_201_and_deletes_the_pod(self):
        self.run_pods("free", 1, {"app": "free"})
        r = self.evict("free-0")
        self.assertEqual(r.status_code, 201, r.text)
        body = r.json()
        self.assertEqual((body["kind"], body["status"]), ("Status", "Success"))
        wait_until(lambda: self.gone(PODS.format(ns=self.ns) + "/free-0"), message="evicted pod deleted")

    def test_eviction_of_a_missing_pod_is_404(self):
        self.assertStatus(self.evict("ghost"), 404, "NotFound", message='pods "ghost" not found')

    def test_eviction_blocked_by_the_budget_is_429_with_a_disruption_budget_cause(self):
        self.run_pods("web", 2, {"app": "web"})
        self.create(PDBS.format(ns=self.ns), pdb("web", {"app": "web"}, min_available=2))
        self.pdb_status("web", currentHealthy=2, desiredHealthy=2, expectedPods=2, disruptionsAllowed=0)
        r = self.evict("web-0")
        body = self.assertStatus(r, 429, "TooManyRequests",
                                 message="Cannot evict pod as it would violate the pod's disruption budget.")
        self.assertEqual(body["details"]["causes"], [{"reason": "DisruptionBudget",
                                                      "message": "The disruption budget web needs 2 healthy pods and "
                                                                 "has 2 currently"}])
        self.assertFalse(self.gone(PODS.format(ns=self.ns) + "/web-0"))

    def test_eviction_allowed_by_the_budget_decrements_it_and_records_the_disrupted_pod(self):
        self.run_pods("api", 3, {"app": "api"})
        self.create(PDBS.format(ns=self.ns), pdb("api", {"app": "api"}, min_available=2))
        self.pdb_status("api", disruptionsAllowed=1)
        r = self.evict("api-0")
        self.assertEqual(r.status_code, 201, r.text)
        r = self.evict("api-1")
        self.assertStatus(r, 429, "TooManyRequests")
        wait_until(lambda: self.gone(PODS.format(ns=self.ns) + "/api-0"))
        self.pdb_status("api", currentHealthy=2, expectedPods=2, disruptionsAllowed=0)

    def test_two_matching_budgets_make_eviction_a_500(self):
        self.run_pods("dual", 1, {"app": "dual"})
        self.create(PDBS.format(ns=self.ns), pdb("one", {"app": "dual"}, min_available=0))
        self.create(PDBS.format(ns=self.ns), pdb("two", {"app": "dual"}, min_available=0))
        self.pdb_status("one", disruptionsAllowed=1)
        self.pdb_status("two", disruptionsAllowed=1)
        r = self.evict("dual-0")
        self.assertEqual(r.status_code, 500)
        # Upstream answers with a bare Status: no reason, no details.
        self.assertEqual(r.json(), {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                    "message": "This pod has more than one PodDisruptionBudget, which the eviction "
                                               "subresource does not support.", "code": 500})

    def test_pending_pods_bypass_the_budget(self):
        self.create(PODS.format(ns=self.ns), pod("pend", labels={"app": "pend"}))  # unbound: stays Pending
        self.create(PDBS.format(ns=self.ns), pdb("pend", {"app": "pend"}, min_available=1))
        self.pdb_status("pend", disruptionsAllowed=0, expectedPods=1)
        r = self.evict("pend")
        self.assertEqual(r.status_code, 201, r.text)

    def test_unhealthy_pods_are_evictable_with_always_allow(self):
        self.run_pods("sick", 2, {"app": "sick"})
        r = self.sim.http("PATCH", PODS.format(ns=self.ns) + "/sick-0/status", headers={"Content-Type": "application/merge-patch+json"},
                          data='{"status":{"conditions":[{"type":"Ready","status":"False"}]}}')
        self.assertEqual(r.status_code, 200, r.text)
        self.create(PDBS.format(ns=self.ns), pdb("sick", {"app": "sick"}, min_available=2))
        self.pdb_status("sick", currentHealthy=1, desiredHealthy=2, disruptionsAllowed=0)
        self.assertStatus(self.evict("sick-0"), 429, "TooManyRequests")  # IfHealthyBudget: budget not met
        r = self.sim.http("PATCH", PDBS.format(ns=self.ns) + "/sick", headers={"Content-Type": "application/merge-patch+json"},
                          data='{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}')
        self.assertEqual(r.status_code, 200, r.text)
        self.assertEqual(self.evict("sick-0").status_code, 201)
        self.assertStatus(self.evict("sick-1"), 429, "TooManyRequests")  # the healthy one is still protected

    def replicaset_owner(self, name, replicas):
        rs = self.create(f"/apis/apps/v1/namespaces/{self.ns}/replicasets", {
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "x"}]}}}})
        return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name, "uid": rs["metadata"]["uid"],
                "controller": True}

    def test_bare_pods_count_as_unmanaged_for_max_unavailable_and_percentages(self):
        # Upstream skips pods without a controller when it sums the expected scale (UnmanagedPods).
        self.run_pods("bare", 2, {"app": "bare"})
        self.create(PDBS.format(ns=self.ns), pdb("bare-max", {"app": "bare"}, max_unavailable=1))
        self.create(PDBS.format(ns=self.ns), pdb("bare-min", {"app": "bare"}, min_available=1))
        self.pdb_status("bare-max", expectedPods=0, currentHealthy=2, desiredHealthy=0, disruptionsAllowed=0)
        self.pdb_status("bare-min", expectedPods=2, currentHealthy=2, desiredHealthy=1, disruptionsAllowed=1)

    def test_pdb_maths_for_int_and_percent_budgets(self):
        self.run_pods("m", 4, {"app": "m"}, owner=self.replicaset_owner("m", 4))
        cases = [("min-int", {"min_available": 3}, 3, 1), ("min-pct", {"min_available": "50%"}, 2, 2),
                 ("max-int", {"max_unavailable": 1}, 3, 1), ("max-pct", {"max_unavailable": "30%"}, 2, 2)]
        for name, kw, desired, allowed in cases:
            self.create(PDBS.format(ns=self.ns), pdb(name, {"app": "m"}, **kw))
        for name, kw, desired, allowed in cases:
            st = self.pdb_status(name, currentHealthy=4, desiredHealthy=desired, disruptionsAllowed=allowed, expectedPods=4)
            self.assertEqual(st["observedGeneration"], 1)
            cond = next(c for c in st["conditions"] if c["type"] == "DisruptionAllowed")
            self.assertEqual((cond["status"], cond["reason"]), ("True", "SufficientPods"))
        # A pod going away is reflected at once.
        self.assertEqual(self.sim.http("DELETE", PODS.format(ns=self.ns) + "/m-3?gracePeriodSeconds=0").status_code, 200)
        self.pdb_status("min-int", currentHealthy=3, desiredHealthy=3, disruptionsAllowed=0)
        st = self.pdb_status("max-int", currentHealthy=3, expectedPods=4, desiredHealthy=3, disruptionsAllowed=0)
        cond = next(c for c in st["conditions"] if c["type"] == "DisruptionAllowed")
        self.assertEqual((cond["status"], cond["reason"]), ("False", "InsufficientPods"))

    def test_percentages_and_max_unavailable_read_the_scale_of_the_owning_controller(self):
        owner = self.replicaset_owner("rs", 5)
        self.run_pods("rs", 3, {"app": "rs"}, owner=owner)
        self.create(PDBS.format(ns=self.ns), pdb("rs-max", {"app": "rs"}, max_unavailable=1))
        self.create(PDBS.format(ns=self.ns), pdb("rs-pct", {"app": "rs"}, min_available="60%"))
        # expectedPods comes from the ReplicaSet's 5 replicas, not the 3 pods.
        self.pdb_status("rs-max", expectedPods=5, desiredHealthy=4, currentHealthy=3, disruptionsAllowed=0)
        self.pdb_status("rs-pct", expectedPods=5, desiredHealthy=3, currentHealthy=3, disruptionsAllowed=0)
        r = self.sim.http("PATCH", f"/apis/apps/v1/namespaces/{self.ns}/replicasets/rs/scale",
                          headers={"Content-Type": "application/merge-patch+json"}, data='{"spec":{"replicas":3}}')
        self.assertEqual(r.status_code, 200, r.text)
        self.pdb_status("rs-max", expectedPods=3, desiredHealthy=2, disruptionsAllowed=1)
        self.pdb_status("rs-pct", expectedPods=3, desiredHealthy=2, disruptionsAllowed=1)

    def test_invalid_pdb_with_both_min_and_max_is_422(self):
        body = pdb("both", {"app": "x"}, min_available=1, max_unavailable=1)
        self.assertStatus(self.sim.http("POST", PDBS.format(ns=self.ns), json=body), 422, "Invalid",
                          message_contains="minAvailable and maxUnavailable cannot be both set")


if __name__ == "__main__":
    unittest.main()
