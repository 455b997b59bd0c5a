"""Real kubectl drain / cordon / uncordon against kubesim, with a PodDisruptionBudget (minAvailable) over pods owned
by a ReplicaSet. kubesim's ReplicaSet controller creates the pods and their replacements; kubesim runs no
kube-scheduler, so the test plays it and binds each pending pod through pods/binding. Every drain runs with
--timeout and every wait has a deadline."""
import json
import unittest

import yaml

from kubesim_fixture import KUBECTL, KUBECTL134, Kubesim, wait_until

KUBECTLS = (("v1.32", KUBECTL), ("v1.34", KUBECTL134))
PDB_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."


class KubectlDrain(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=4)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def get(self, *args):
        return json.loads(self.sim.kubectl("get", *args, "-o", "json"))

    def make_app(self, app, placement, min_available=2):
        """Creates ReplicaSet `app` and a PDB with minAvailable, and binds the pods the ReplicaSet controller makes
        to the nodes of `placement`, in order. Returns the pods' names in that order."""
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": app},
              "spec": {"replicas": len(placement), "selector": {"matchLabels": {"app": app}},
                       "template": {"metadata": {"labels": {"app": app}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
        pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": app},
               "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}}}
        self.sim.apply_text(yaml.safe_dump_all([rs, pdb]))
        return [self.schedule_next(app, node) for node in placement]

    def pending(self, app):
        return sorted(p["metadata"]["name"] for p in self.get("pods", "-l", f"app={app}")["items"]
                      if not p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp"))

    def schedule_next(self, app, node):
        """Plays kube-scheduler: binds one pending pod of `app` to `node` and waits until it is Ready."""
        pending = wait_until(lambda: self.pending(app), timeout=10, message=f"a pending pod of {app}")
        name = pending[0]
        r = self.sim.http("POST", f"/api/v1/namespaces/default/pods/{name}/binding",
                          json={"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
                                "target": {"apiVersion": "v1", "kind": "Node", "name": node}})
        self.assertEqual(r.status_code, 201, r.text)
        self.sim.kubectl("wait", "--for=condition=Ready", f"pod/{name}", "--timeout=10s")
        return name

    def pdb_status(self, app):
        return self.get("pdb", app).get("status", {})

    def test_cordon_and_uncordon_toggle_unschedulable(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.sim.run(kubectl, "cordon", "node-3").stdout
                self.assertEqual(out.strip(), "node/node-3 cordoned")
                self.assertIs(self.get("node", "node-3")["spec"].get("unschedulable"), True)
                row = self.sim.run(kubectl, "get", "node", "node-3").stdout.splitlines()[1].split()
                self.assertEqual(row[1], "Ready,SchedulingDisabled")
                self.assertEqual(self.sim.run(kubectl, "cordon", "node-3").stdout.strip(),
                                 "node/node-3 already cordoned")
                out = self.sim.run(kubectl, "uncordon", "node-3").stdout
                self.assertEqual(out.strip(), "node/node-3 uncordoned")
                self.assertNotIn("unschedulable", self.get("node", "node-3")["spec"])

    def test_drain_evicts_what_the_budget_allows_retries_on_429_and_finishes_after_a_replacement(self):
        names = self.make_app("web", ["node-1", "node-1", "node-2"], min_available=2)
        on_node_1 = names[:2]
        wait_until(lambda: self.pdb_status("web").get("disruptionsAllowed") == 1, timeout=10,
                   message="the PDB to allow one disruption")
        pod_re = "(" + "|".join(on_node_1) + ")"
        with self.sim.background(KUBECTL, "drain", "node-1", "--timeout=60s") as drain:
            drain.wait_for_line(lambda l: l == "node/node-1 cordoned", timeout=15)
            # The two evictions run concurrently, so "evicted" and the 429 retry line come in either order.
            blocked = drain.wait_for_line(lambda l: "will retry after 5s" in l, timeout=15, seen=True)
            self.assertRegex(blocked, rf'^error when evicting pods/"{pod_re}" -n "default" \(will retry after 5s\): '
                             + PDB_MESSAGE.replace(".", r"\.").replace("(", r"\(") + "$")
            evicted = drain.wait_for_line(lambda l: l.endswith(" evicted"), timeout=15, seen=True)
            self.assertRegex(evicted, rf"^pod/{pod_re} evicted$")
            gone = evicted.split()[0].split("/")[1]
            stuck = on_node_1[1] if gone == on_node_1[0] else on_node_1[0]
            self.assertIn(f'pods/"{stuck}"', blocked)
            # The budget is spent: exactly one pod left node-1, the other stays, and drain keeps waiting.
            wait_until(lambda: self.sim.run(KUBECTL, "get", "pod", gone, check=False).returncode != 0, timeout=10,
                       message=f"{gone} to be deleted")
            self.assertEqual(self.get("pod", stuck)["spec"]["nodeName"], "node-1")
            self.assertIs(self.get("node", "node-1")["spec"]["unschedulable"], True)
            wait_until(lambda: self.pdb_status("web").get("disruptionsAllowed") == 0, timeout=10,
                       message="the PDB to allow no disruption")
            self.assertEqual(self.pdb_status("web").get("currentHealthy"), 2)
            second = drain.wait_for_line(lambda l: "will retry after 5s" in l, timeout=15)
            self.assertIn(f'pods/"{stuck}"', second)
            self.assertIsNone(drain.proc.poll(), "drain must still be waiting on the budget")
            # The ReplicaSet controller replaced the evicted pod; once it runs on node-2 and is Ready, drain proceeds.
            replacement = self.schedule_next("web", "node-2")
            drain.wait_for_line(lambda l: l == f"pod/{stuck} evicted", timeout=20)
            drain.wait_for_line(lambda l: l == "node/node-1 drained", timeout=20)
            code, lines = drain.wait_exit(timeout=20)
        self.assertEqual(code, 0, "\n".join(lines))
        left = self.get("pods", "--field-selector", "spec.nodeName=node-1")["items"]
        self.assertEqual(left, [])
        # node-2 runs the original third pod and the replacement; the second replacement waits for a scheduler.
        running = sorted(p["metadata"]["name"] for p in self.get("pods", "-l", "app=web")["items"]
                         if p["spec"].get("nodeName"))
        self.assertEqual(running, sorted([names[2], replacement]))
        self.assertEqual(len(wait_until(lambda: self.pending("web"), timeout=10, message="the second replacement")), 1)

    def test_drain_times_out_while_the_budget_blocks_and_says_so(self):
        names = self.make_app("db", ["node-0", "node-0"], min_available=2)
        wait_until(lambda: self.pdb_status("db").get("disruptionsAllowed") == 0
                   and self.pdb_status("db").get("currentHealthy") == 2, timeout=10,
                   message="the PDB to allow no disruption")
        r = self.sim.run(KUBECTL134, "drain", "node-0", "--timeout=7s", check=False, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        out = r.stdout + r.stderr
        for name in names:
            self.assertIn(f'error when evicting pods/"{name}" -n "default" (will retry after 5s): ' + PDB_MESSAGE, out)
        self.assertIn("global timeout reached: 7s", out)
        self.assertIn('error: unable to drain node "node-0"', out)
        # Nothing was evicted, and the node stays cordoned.
        self.assertEqual(sorted(p["metadata"]["name"] for p in self.get("pods", "-l", "app=db")["items"]), sorted(names))
        self.assertIs(self.get("node", "node-0")["spec"]["unschedulable"], True)
        self.sim.kubectl("uncordon", "node-0")

    def test_drain_refuses_bare_pods_without_force(self):
        bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare"},
                "spec": {"nodeName": "node-3", "containers": [{"name": "c", "image": "nginx"}]}}
        self.sim.apply_text(yaml.safe_dump(bare))
        r = self.sim.run(KUBECTL, "drain", "node-3", "--timeout=10s", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot delete Pods that declare no controller (use --force to override): default/bare",
                      r.stderr)
        r = self.sim.run(KUBECTL, "drain", "node-3", "--force", "--timeout=20s", check=False)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("node/node-3 drained", r.stdout)
        self.assertNotEqual(self.sim.run(KUBECTL, "get", "pod", "bare", check=False).returncode, 0)
        self.sim.kubectl("uncordon", "node-3")


if __name__ == "__main__":
    unittest.main()
