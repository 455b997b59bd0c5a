"""Real kubectl drain / cordon / uncordon against kubesim, with a PodDisruptionBudget (minAvailable) over pods owned
by a ReplicaSet (kubesim runs no ReplicaSet controller, so the test plays it: it creates the pods and the
replacement). Every drain runs with --timeout and every wait has a deadline."""
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
        """Creates ReplicaSet `app`, a PDB with minAvailable, and one Ready pod per entry of placement (node names)."""
        rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": app},
              "spec": {"replicas": len(placement), "selector": {"matchLabels": {"app": app}},
                       "template": {"metadata": {"labels": {"app": app}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
        pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": app},
               "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}}}
        self.sim.apply_text(yaml.safe_dump_all([rs, pdb]))
        uid = self.get("replicaset", app)["metadata"]["uid"]
        names = [self.add_pod(app, uid, i, node) for i, node in enumerate(placement)]
        return uid, names

    def add_pod(self, app, rs_uid, index, node):
        name = f"{app}-{index}"
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "labels": {"app": app},
                            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": app,
                                                 "uid": rs_uid, "controller": True, "blockOwnerDeletion": True}]},
               "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]}}
        self.sim.apply_text(yaml.safe_dump(pod))
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
        uid, names = self.make_app("web", ["node-1", "node-1", "node-2"], min_available=2)
        wait_until(lambda: self.pdb_status("web").get("disruptionsAllowed") == 1, timeout=10,
                   message="the PDB to allow one disruption")
        with self.sim.background(KUBECTL, "drain", "node-1", "--timeout=60s") as drain:
            drain.wait_for_line(lambda l: l == "node/node-1 cordoned", timeout=15)
            # The two evictions run concurrently, so "evicted" and the 429 retry line come in either order.
            blocked = drain.wait_for_line(lambda l: "will retry after 5s" in l, timeout=15, seen=True)
            self.assertRegex(blocked, r'^error when evicting pods/"web-[01]" -n "default" \(will retry after 5s\): '
                             + PDB_MESSAGE.replace(".", r"\.").replace("(", r"\(") + "$")
            evicted = drain.wait_for_line(lambda l: l.endswith(" evicted"), timeout=15, seen=True)
            self.assertRegex(evicted, r"^pod/web-[01] evicted$")
            gone = evicted.split()[0].split("/")[1]
            stuck = "web-1" if gone == "web-0" else "web-0"
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
            # The "ReplicaSet controller" replaces the evicted pod on another node; once it is Ready, drain proceeds.
            self.add_pod("web", uid, 3, "node-2")
            drain.wait_for_line(lambda l: l == f"pod/{stuck} evicted", timeout=20)
            drain.wait_for_line(lambda l: l == "node/node-1 drained", timeout=20)
            code, lines = drain.wait_exit(timeout=20)
        self.assertEqual(code, 0, "\n".join(lines))
        left = self.get("pods", "--field-selector", "spec.nodeName=node-1")["items"]
        self.assertEqual(left, [])
        self.assertEqual(sorted(p["metadata"]["name"] for p in self.get("pods", "-l", "app=web")["items"]),
                         ["web-2", "web-3"])

    def test_drain_times_out_while_the_budget_blocks_and_says_so(self):
        self.make_app("db", ["node-0", "node-0"], min_available=2)
        wait_until(lambda: self.pdb_status("db").get("disruptionsAllowed") == 0
                   and self.pdb_status("db").get("currentHealthy") == 2, timeout=10,
                   message="the PDB to allow no disruption")
        r = self.sim.run(KUBECTL134, "drain", "node-0", "--timeout=7s", check=False, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        out = r.stdout + r.stderr
        self.assertIn('error when evicting pods/"db-0" -n "default" (will retry after 5s): ' + PDB_MESSAGE, out)
        self.assertIn('error when evicting pods/"db-1" -n "default" (will retry after 5s): ' + PDB_MESSAGE, out)
        self.assertIn("global timeout reached: 7s", out)
        self.assertIn('error: unable to drain node "node-0"', out)
        # Nothing was evicted, and the node stays cordoned.
        self.assertEqual(len(self.get("pods", "-l", "app=db")["items"]), 2)
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
