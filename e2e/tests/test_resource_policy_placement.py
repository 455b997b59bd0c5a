"""ResourcePolicy placement end to end with real kubectl on kubesim and berth-manager as koord-scheduler: four
on-demand and four spot nodes (kubesim --nodes 8, then `kubectl label`); a `prefer` policy whose on-demand unit has
priority 10 and maxCount 4 and whose spot unit has priority 1 puts 4 of a 10-replica Deployment on on-demand and 6
on spot. Under `required`, a pod beyond every unit's limit stays Pending with kube-scheduler's summary, and is
scheduled once the policy is edited to make room. A pod two policies select stays Pending naming both."""
import json
import unittest

from kubesim_fixture import ClusterPerClass, wait_until

ON_DEMAND = [f"node-{i}" for i in range(0, 4)]
SPOT = [f"node-{i}" for i in range(4, 8)]


def deployment(name, namespace, replicas, labels):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"schedulerName": "koord-scheduler",
                                           "containers": [{"name": "c", "image": "nginx",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}


def policy(name, namespace, strategy, units, selector):
    return {"apiVersion": "scheduling.sigs.x-k8s.io/v1alpha1", "kind": "ResourcePolicy",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"strategy": strategy, "matchLabelKeys": ["pod-template-hash"],
                     "matchPolicy": {"ignoreTerminatingPod": True},
                     "podSelector": {"matchLabels": selector}, "units": units}}


def unit(name, pool, priority, max_count=None):
    u = {"name": name, "priority": priority, "nodeSelector": {"matchLabels": {"pool": pool}}}
    if max_count is not None:
        u["maxCount"] = max_count
    return u


class OnDemandAndSpotPools(ClusterPerClass):
    """kubesim --nodes 8 (node-0..node-7) labelled pool=on-demand (ON_DEMAND) and pool=spot (SPOT), and berth-manager;
    the resource policy suites share it."""

    nodes = 8

    @classmethod
    def set_up_cluster(cls):
        assert sorted(cls.sim.kubectl("get", "nodes", "-o", "name").split()) == [f"node/{n}" for n in ON_DEMAND + SPOT]
        cls.sim.kubectl("label", "node", *ON_DEMAND, "pool=on-demand")
        cls.sim.kubectl("label", "node", *SPOT, "pool=spot")


class ResourcePolicyPlacementTest(OnDemandAndSpotPools, unittest.TestCase):

    def create(self, obj):
        self.sim.apply_text(json.dumps(obj))

    def rsp(self, namespace, name):
        return json.loads(self.sim.kubectl("get", "rsp", name, "-n", namespace, "-o", "json"))

    def create_policy(self, obj):
        """Creates the policy and waits for its status: the status writer shares the scheduler's informer, so
        the scheduler has the policy once its status is written."""
        self.create(obj)
        ns, name = obj["metadata"]["namespace"], obj["metadata"]["name"]
        return wait_until(lambda: (lambda p: p if p.get("status", {}).get("observedGeneration") ==
                                   p["metadata"].get("generation") else None)(self.rsp(ns, name)),
                          timeout=15, message=f"status of ResourcePolicy {name}")

    def pods(self, namespace, selector):
        return json.loads(self.sim.kubectl("get", "pods", "-n", namespace, "-l", selector, "-o", "json"))["items"]

    def test_prefer_fills_on_demand_to_max_count_then_spot(self):
        self.create_policy(policy("web", "default", "prefer",
                                  [unit("on-demand", "on-demand", 10, 4), unit("spot", "spot", 1)], {"app": "web"}))
        self.create(deployment("web", "default", 10, {"app": "web"}))
        self.sim.kubectl("rollout", "status", "deployment/web", "--timeout=60s")

        def placed():
            nodes = [p["spec"].get("nodeName", "") for p in self.pods("default", "app=web")]
            return nodes if len(nodes) == 10 and all(nodes) else None
        nodes = wait_until(placed, timeout=30, message="10 web pods bound")
        self.assertEqual(sum(n in ON_DEMAND for n in nodes), 4, nodes)
        self.assertEqual(sum(n in SPOT for n in nodes), 6, nodes)
        # The status tells the same story (per unit, per pod-template-hash group) and kubectl shows it.
        status = wait_until(lambda: (lambda st: st if st.get("unitSummary") == "on-demand 4/4, spot 6" else None)(
            self.rsp("default", "web").get("status", {})), timeout=15, message="status counts 4/4 and 6")
        units = {u["name"]: u for u in status["units"]}
        self.assertEqual(units["on-demand"]["maxCount"], 4)
        self.assertEqual(units["on-demand"]["nodes"], 4)
        self.assertEqual([g["pods"] for g in units["spot"]["groups"]], [6])
        self.assertEqual(list(units["spot"]["groups"][0]["labels"]), ["pod-template-hash"])
        conditions = {c["type"]: c for c in status["conditions"]}
        self.assertEqual((conditions["Conflict"]["status"], conditions["Conflict"]["reason"]), ("False", "NoConflict"))
        self.assertEqual(conditions["PodsSelected"]["status"], "True")
        table = self.sim.kubectl("get", "rsp", "web").splitlines()
        self.assertEqual(table[0].split(), ["NAME", "STRATEGY", "UNITS", "AGE"])
        self.assertRegex(table[1], r"^web\s+prefer\s+on-demand 4/4, spot 6\s+\S+$")

    def test_required_keeps_pods_beyond_every_limit_pending_until_the_policy_makes_room(self):
        self.sim.kubectl("create", "namespace", "strict")
        self.create_policy(policy("batch", "strict", "required", [unit("on-demand", "on-demand", 10, 1)],
                                  {"app": "batch"}))
        self.create(deployment("batch", "strict", 3, {"app": "batch"}))
        expected = ("0/8 nodes are available: 4 node(s) didn't match resource policy units, "
                    "4 node(s) exceeded resource policy unit maxCount. "
                    # The nodes in no unit are UnschedulableAndUnresolvable (the plugin's "not match any unit"):
                    # preemption does not try them.
                    "preemption: 0/8 nodes are available: 4 No preemption victims found for incoming pod, "
                    "4 Preemption is not helpful for scheduling.")

        def split():
            pods = self.pods("strict", "app=batch")
            bound = [p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName")]
            waiting = [p for p in pods if not p["spec"].get("nodeName")]
            conds = [c for p in waiting for c in p["status"].get("conditions", []) if c["type"] == "PodScheduled"]
            return (bound, conds) if len(pods) == 3 and len(bound) == 1 and len(conds) == 2 else None
        bound, conds = wait_until(split, timeout=30, message="one batch pod bound, two Pending with a reason")
        self.assertIn(bound[0], ON_DEMAND)
        for c in conds:
            self.assertEqual((c["status"], c["reason"], c["message"]), ("False", "Unschedulable", expected))
        # The FailedScheduling Event is queued after the condition is written, and posted from the recorder's
        # queue: waited for, not read at once.
        wait_until(lambda: expected in self.sim.kubectl("get", "events", "-n", "strict", "--field-selector",
                                                        "reason=FailedScheduling", "-o",
                                                        "jsonpath={.items[*].message}"),
                   timeout=30, message="the FailedScheduling Event with the condition's message")
        # Raising maxCount re-queues the parked pods at once (no poll): all three land on on-demand nodes.
        self.sim.kubectl("patch", "rsp", "batch", "-n", "strict", "--type=json",
                         "-p", '[{"op": "replace", "path": "/spec/units/0/maxCount", "value": 3}]')
        nodes = wait_until(lambda: (lambda n: n if len(n) == 3 and all(n) else None)(
            [p["spec"].get("nodeName", "") for p in self.pods("strict", "app=batch")]),
            timeout=20, message="all batch pods bound after the edit")
        self.assertTrue(all(n in ON_DEMAND for n in nodes), nodes)

    def test_pod_selected_by_two_policies_stays_pending_naming_both(self):
        self.sim.kubectl("create", "namespace", "twice")
        self.create_policy(policy("first", "twice", "prefer", [unit("spot", "spot", 1)], {"app": "dup"}))
        self.create_policy(policy("second", "twice", "prefer", [unit("od", "on-demand", 1)], {"app": "dup"}))
        self.create(deployment("dup", "twice", 1, {"app": "dup"}))
        expected = ("0/8 nodes are available: pod is matched by more than one resource policy: "
                    "ResourcePolicy/first, ResourcePolicy/second. "
                    "preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.")

        def condition():
            pods = self.pods("twice", "app=dup")
            conds = [c for p in pods for c in p["status"].get("conditions", []) if c["type"] == "PodScheduled"]
            return conds[0] if len(pods) == 1 and conds else None
        cond = wait_until(condition, timeout=20, message="dup pod PodScheduled=False")
        self.assertEqual((cond["status"], cond["message"]), ("False", expected))
        self.assertEqual(self.pods("twice", "app=dup")[0]["spec"].get("nodeName"), None)
        conflict = wait_until(lambda: (lambda cs: cs.get("Conflict") if cs.get("Conflict", {}).get("status") == "True"
                                       else None)({c["type"]: c for c in self.rsp("twice", "first").get(
                                           "status", {}).get("conditions", [])}),
                              timeout=15, message="Conflict=True on first")
        self.assertEqual(conflict["reason"], "PodsMatchedByOtherPolicies")
        pod_name = self.pods("twice", "app=dup")[0]["metadata"]["name"]
        self.assertIn(f"twice/{pod_name}", conflict["message"])


class ResourcePolicyUnderFaultsTest(OnDemandAndSpotPools, unittest.TestCase):
    """With 30% of API requests failing (500/429) and watches cut every 2s, the limits still hold: binds and
    status writes are retried, counts come back from the relisted caches, nothing is over-placed. (409 is left
    out: the scheduler reads a 409 on pods/binding as "bound by someone else" and waits for the informer, which
    an injected conflict never satisfies; status writes meet real 409s whenever the cache is behind.)"""

    def get(self, path):
        r = self.sim.http("GET", path)
        return r.json() if r.status_code == 200 else None  # a fault: the poll tries again

    def test_limits_hold_and_status_converges_under_api_faults(self):
        self.sim.apply_text(json.dumps(policy("web", "default", "prefer",
                                              [unit("on-demand", "on-demand", 10, 3), unit("spot", "spot", 1)],
                                              {"app": "web"})))
        rsp_path = "/apis/scheduling.sigs.x-k8s.io/v1alpha1/namespaces/default/resourcepolicies/web"
        wait_until(lambda: (self.get(rsp_path) or {}).get("status", {}).get("observedGeneration") == 1,
                   timeout=15, message="policy status written")
        r = self.sim.http("PUT", "/kubesim/admin/faults",
                          json={"faultRate": 0.3, "faultCodes": [500, 429], "seed": 11, "watchDropEverySeconds": 2})
        self.assertEqual(r.status_code, 200, r.text)
        self.addCleanup(self.sim.http, "PUT", "/kubesim/admin/faults", json={"faultRate": 0, "watchDropEverySeconds": 0})

        def create_deployment():
            r = self.sim.http("POST", "/apis/apps/v1/namespaces/default/deployments",
                              json=deployment("web", "default", 9, {"app": "web"}))
            return r.status_code in (201, 409)  # 409: an earlier attempt was stored (or an injected conflict)
        wait_until(create_deployment, timeout=10, message="deployment created through the faults")
        wait_until(lambda: self.get("/apis/apps/v1/namespaces/default/deployments/web") is not None, timeout=10,
                   message="deployment stored")

        def placed():
            pods = (self.get("/api/v1/namespaces/default/pods?labelSelector=app%3Dweb") or {}).get("items", [])
            nodes = [p["spec"].get("nodeName", "") for p in pods]
            return nodes if len(nodes) == 9 and all(nodes) else None
        nodes = wait_until(placed, timeout=60, message="9 web pods bound under faults")
        self.assertEqual(sum(n in ON_DEMAND for n in nodes), 3, nodes)
        self.assertEqual(sum(n in SPOT for n in nodes), 6, nodes)
        wait_until(lambda: (self.get(rsp_path) or {}).get("status", {}).get("unitSummary") == "on-demand 3/3, spot 6",
                   timeout=30, message="status converges to on-demand 3/3, spot 6")


if __name__ == "__main__":
    unittest.main()
