"""ProvisioningRequest best-effort-atomic-scale-up (issue 10) through Cluster Autoscaler's externalgrpc protocol.

kubesim with one 4-cpu node, berth-manager pointed (--cloud-provider-grpc-address) at
berth-e2e-grpc-provider, a real gRPC server whose node group "pool" (8-cpu nodes, at most 5) adds Nodes to
kubesim when its target size grows. Requests go in with real kubectl.
  - refused: IncreaseSize fails -> Provisioned=False/CapacityIsNotFound saying so, target untouched;
  - over the group max (more pods than node-0 and the pool at maxSize could hold): Failed=True/CapacityIsNotFound
    naming spec.podSets[0].count, and the cloud is not asked;
  - partial grant: the target grows by less than asked -> given back at once (DecreaseTargetSize);
  - partial registration: one of two nodes registers before the deadline -> the registered node is deleted
    (NodeGroupDeleteNodes) and the rest taken off the target: the group is back where it was, and capacity
    freed afterwards does not ask the cloud again before the backoff ends;
  - granted (by a slow provider, within the call timeout): exactly the nodes needed are added, the request is Provisioned/CapacityIsProvisioned and its
    booking Reservations sit on the existing node and the new ones.
  - 20% of API requests failing (409/429/500): still one IncreaseSize and one booking;
  - berth-manager killed while the nodes come: the restarted one resumes the scale-up from the request's
    berth.dev/scale-up annotation (one IncreaseSize) and provisions it.
berth_nodegroup_scaleup_total{group,result} counts each outcome.
"""
import json
import os
import tempfile
import unittest

import provisioning_fixture
from kubesim_fixture import BIN, Background, BerthManager, Kubesim, wait_until
from provisioning_fixture import ATOMIC, NS, PR_PATH, ProvisioningHelpers, pod_template


def prov_req(name, template, count):
    return provisioning_fixture.prov_req(name, [(template, count)], cls=ATOMIC)


class ProvisioningScaleUpTest(ProvisioningHelpers, unittest.TestCase):
    CONDITION_TIMEOUT = 30  # a scale-up waits for nodes to register

    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=1, node_cpu="4")
        cls.provider = cls.mgr = None
        try:
            cls.sim.install_crds()
            cls.dir = tempfile.mkdtemp(prefix="grpc-provider-")
            cls.state_file = os.path.join(cls.dir, "state.json")
            cls.control_file = os.path.join(cls.dir, "control")
            open(cls.control_file, "w").close()
            cls.provider = Background([os.path.join(BIN, "berth-e2e-grpc-provider"), "--kubeconfig", cls.sim.kubeconfig,
                                       "--listen", "127.0.0.1:0", "--state-file", cls.state_file,
                                       "--control-file", cls.control_file,
                                       "--group", "pool:0:5:8:16Gi:110:berth.dev/e2e-pool=burst"])
            line = cls.provider.wait_for_line(lambda l: l.startswith("listening on port "), timeout=15)
            port = int(line.rsplit(" ", 1)[1])
            cls.mgr = BerthManager(cls.sim, extra_args=[
                "--cloud-provider-grpc-address", f"127.0.0.1:{port}", "--cloud-provider-grpc-timeout", "6s",
                "--provisioning-request-scale-up-timeout", "15s"])
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.mgr:
            cls.mgr.stop()
        if cls.provider:
            cls.provider.stop()
        cls.sim.stop()

    def tearDown(self):
        self.control("")
        self.clean()

    # ---- helpers ----
    def control(self, text):
        with open(self.control_file, "w") as f:
            f.write(text)

    def state(self):
        with open(self.state_file) as f:
            return json.load(f)

    def pool(self):
        return self.state()["groups"]["pool"]

    def node_names(self):
        return sorted(n["metadata"]["name"] for n in self.sim.get_json("/api/v1/nodes")["items"])

    def describe(self, name):
        return f"{super().describe(name)}\nprovider: {self.state()}"

    def checks(self):
        """Passes that ran a capacity check (each observes the check-duration histogram once)."""
        return self.mgr.metric("berth_provisioningrequest_check_duration_seconds_count")

    def scaleups(self, result):
        return self.mgr.metric("berth_nodegroup_scaleup_total", group="pool", result=result) or 0

    # ---- cases (alphabetical order keeps the group empty until the last) ----
    def test_a_a_refused_increase_is_capacity_not_found_and_the_target_stays(self):
        self.control("refuse=true\n")
        # 5 pods of 3 cpu: one fits on node-0, four need two 8-cpu pool nodes.
        self.create(pod_template("three-cpu", "3"), prov_req("refused", "three-cpu", 5))
        cond = self.wait_condition("refused", "Provisioned", "False", "CapacityIsNotFound")
        self.assertIn('asked for 2 node(s) of node group "pool": refused: rpc NodeGroupIncreaseSize: '
                      'ResourceExhausted: out of capacity in node group pool', cond["message"])
        self.assertEqual(self.pool()["target"], 0)
        self.assertEqual(self.node_names(), ["node-0"])
        self.assertEqual(self.reservations(), [])  # nothing booked: all or nothing
        wait_until(lambda: self.scaleups("refused") == 1, message="scaleup_total{result=refused} 1")

    def test_a_b_a_count_over_the_group_max_fails_without_asking_the_cloud(self):
        # node-0 holds 1 pod of 3 cpu, the pool at its maxSize 5 × 2: 11 at most, 12 never.
        calls_before = len(self.state()["calls"])
        self.create(pod_template("three-cpu", "3"), prov_req("too-big", "three-cpu", 12))
        failed = self.wait_condition("too-big", "Failed", "True", "CapacityIsNotFound")
        self.assertEqual(failed["message"],
                         'CA could not find requested capacity: spec.podSets[0].count: 12 pods of podTemplate '
                         '"three-cpu" can never fit: the cluster\'s 1 node(s) hold at most 1 of them even when empty, '
                         'and every node group at its maxSize at most 10 more')
        self.assertEqual(self.state()["calls"][calls_before:], [], "no IncreaseSize for what can never fit")
        self.assertEqual(self.pool()["target"], 0)
        self.assertEqual(self.reservations(), [])

    def test_b_a_partial_grant_is_given_back_at_once(self):
        # The one granted node would appear after 3 s: berth gives it back before that.
        self.control("grant-at-most=1\nnode-delay-ms=3000\n")
        self.create(pod_template("three-cpu", "3"), prov_req("partial-grant", "three-cpu", 5))
        cond = self.wait_condition("partial-grant", "Provisioned", "False", "CapacityIsNotFound")
        self.assertIn("the target size grew by 1 only (all or nothing)", cond["message"])
        self.assertIn('gave back node group "pool"', cond["message"])
        self.assertEqual(self.state()["calls"][-2:], ["IncreaseSize pool 2", "DecreaseTargetSize pool -1"])
        self.assertEqual(self.pool()["target"], 0)
        self.assertEqual(self.node_names(), ["node-0"])
        self.assertEqual(self.reservations(), [])
        wait_until(lambda: self.scaleups("partial") == 1, message="scaleup_total{result=partial} 1")

    def test_c_nodes_missing_at_the_deadline_are_all_given_back(self):
        calls_before = len(self.state()["calls"])
        start_rv = self.sim.resource_version("/api/v1/nodes")  # kubesim's one global resourceVersion
        self.control("create-at-most=1\n")
        self.create(pod_template("three-cpu", "3"), prov_req("half", "three-cpu", 5))
        cond = self.wait_condition("half", "Provisioned", "False", "CapacityIsNotFound", timeout=45)
        # The target went to 2, one pool node registered, and the request was still undecided then: from the
        # provider's call log and kubesim's watch history (one resourceVersion orders nodes and requests), not a
        # poll, since that state lasts only until the scale-up timeout and a loaded machine can poll past it.
        self.assertEqual([c for c in self.state()["calls"][calls_before:] if c.startswith("IncreaseSize")],
                         ["IncreaseSize pool 2"])
        added = [rv for rv, t, o in self.sim.events_since("/api/v1/nodes", start_rv) if t == "ADDED"]
        self.assertEqual(len(added), 1, "one pool node registered")
        decided = [rv for rv, _, o in self.sim.events_since(PR_PATH, start_rv) if o["metadata"]["name"] == "half"
                   and any(c["type"] == "Provisioned" for c in (o.get("status") or {}).get("conditions", []))]
        self.assertLess(added[0], min(decided), "waiting, not decided, when the pool node registered")
        self.assertIn('only 1 of 2 new node(s) of node group "pool" registered in time', cond["message"])
        self.assertIn("deleted 1 registered node(s), lowered the target size by 1", cond["message"])
        wait_until(lambda: self.pool()["target"] == 0 and self.node_names() == ["node-0"],
                   message="the group back at target 0, its node deleted")
        self.assertEqual(self.state()["calls"][-2:], ["DeleteNodes pool pool-0", "DecreaseTargetSize pool -1"])
        self.assertEqual(self.reservations(), [])
        wait_until(lambda: self.scaleups("timeout") == 1, message="scaleup_total{result=timeout} 1")
        # Capacity freed while backing off (a Node added, too small to help) is checked on the
        # existing nodes only: no IncreaseSize before the 1-minute backoff ends.
        checks = self.checks()
        self.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "spare"},
                     "status": {"capacity": {"cpu": "1", "memory": "1Gi", "pods": "110"},
                                "allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"},
                                "conditions": [{"type": "Ready", "status": "True"}]}})
        try:
            wait_until(lambda: self.checks() > checks, message="a pass checking the freed capacity")
            self.assertEqual([c for c in self.state()["calls"][calls_before:] if c.startswith("IncreaseSize")],
                             ["IncreaseSize pool 2"], "the give-back did not restart the scale-up")
            self.assertEqual(self.pool()["target"], 0)
            self.wait_condition("half", "Provisioned", "False", "CapacityIsNotFound")
        finally:
            self.sim.kubectl("delete", "node", "spare")

    def test_d_a_granted_scale_up_adds_exactly_the_nodes_needed_and_books_them(self):
        # A slow provider (1.5 s per IncreaseSize, under the 6 s call timeout) is still fine.
        self.control("call-delay-ms=1500\n")
        self.create(pod_template("three-cpu", "3"), prov_req("atomic", "three-cpu", 5))
        cond = self.wait_condition("atomic", "Provisioned", "True", "CapacityIsProvisioned")
        self.assertEqual(cond["message"], "Capacity is found in the cluster")  # upstream's text for both reasons
        increases = [c for c in self.state()["calls"] if c.startswith("IncreaseSize")]
        self.assertEqual(increases[-1], "IncreaseSize pool 2")  # all at once
        self.assertEqual(self.pool()["target"], 2)
        new_nodes = [n for n in self.node_names() if n != "node-0"]
        self.assertEqual(len(new_nodes), 2)
        node = self.sim.get_json(f"/api/v1/nodes/{new_nodes[0]}")
        self.assertEqual(node["metadata"]["labels"]["berth.dev/e2e-pool"], "burst")
        self.assertEqual(node["status"]["allocatable"]["cpu"], "8")
        out = self.sim.kubectl("get", "reservations", "-l", "berth.dev/provisioning-request-name=atomic",
                               "-o", "jsonpath={range .items[*]}{.spec.template.spec.nodeName} {end}")
        self.assertEqual(sorted(out.split()), sorted(["node-0"] + new_nodes))
        wait_until(lambda: self.scaleups("success") == 1, message="scaleup_total{result=success} 1")

    def test_e_api_write_faults_still_end_in_one_scale_up_and_one_booking(self):
        # After test d the pool has 2 nodes: 9 pods of 3 cpu need 2 more (5 fit today).
        before = [c for c in self.state()["calls"] if c.startswith("IncreaseSize")]
        self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0.2, "faultCodes": [409, 429, 500]})
        try:
            for _ in range(20):  # the test's own creates may hit a fault too
                self.sim.http("POST", f"/api/v1/namespaces/{NS}/podtemplates", json=pod_template("three-cpu", "3"))
                if self.sim.http("GET", f"/api/v1/namespaces/{NS}/podtemplates/three-cpu").status_code == 200:
                    break
            for _ in range(20):
                self.sim.http("POST", PR_PATH, json=prov_req("faulty", "three-cpu", 9))
                if self.sim.http("GET", f"{PR_PATH}/faulty").status_code == 200:
                    break
            self.wait_condition("faulty", "Provisioned", "True", "CapacityIsProvisioned", timeout=60)
        finally:
            self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0})
        increases = [c for c in self.state()["calls"] if c.startswith("IncreaseSize")][len(before):]
        self.assertEqual(increases, ["IncreaseSize pool 2"], "asked once, for both nodes, despite retried passes")
        self.assertEqual(self.pool()["target"], 4)
        booked = self.reservations("berth.dev/provisioning-request-name=faulty")
        cpu = sum(float(r["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]) for r in booked)
        self.assertEqual(cpu, 27.0, "exactly the request's 9 x 3 cpu are booked, once")
        wait_until(lambda: self.scaleups("success") == 2, message="scaleup_total{result=success} 2")

    def test_f_a_scale_up_in_flight_survives_a_berth_manager_crash(self):
        # After test e the pool has 4 of its 5 nodes, all empty again: 11 pods of 3 cpu need 1 more. The node comes
        # 6 s after the call (within the 15 s scale-up timeout): the in-flight annotation must be seen, and the
        # manager killed, before then, which takes a few seconds on a loaded machine.
        calls_before = len(self.state()["calls"])
        self.control("node-delay-ms=6000\n")
        self.create(pod_template("three-cpu", "3"), prov_req("restarted", "three-cpu", 11))
        text = wait_until(lambda: ((self.request("restarted") or {}).get("metadata", {}).get("annotations") or {})
                          .get("berth.dev/scale-up"), message="the scale-up persisted in the request's annotation")
        persisted = json.loads(text)
        self.assertEqual((persisted["group"], persisted["delta"], persisted["targetBefore"]), ("pool", 1, 4))
        self.assertEqual(len(persisted["nodesBefore"]), 4)
        self.assertEqual(self.state()["calls"][calls_before:], ["IncreaseSize pool 1"])
        self.mgr.kill()  # SIGKILL: nothing is flushed or given back on the way out
        self.mgr.start()
        self.wait_condition("restarted", "Provisioned", "True", "CapacityIsProvisioned")
        self.assertEqual(self.state()["calls"][calls_before:], ["IncreaseSize pool 1"],
                         "the restarted manager resumed the scale-up instead of asking again")
        self.assertEqual(self.pool()["target"], 5)


class CloudProviderFlagsTest(unittest.TestCase):
    """A cloud-provider configuration berth cannot use stops berth-manager at start with exit 2 and says why."""

    def run_manager(self, *args):
        import subprocess
        return subprocess.run([os.path.join(BIN, "berth-manager"), "--kubeconfig", "/nonexistent", *args],
                              capture_output=True, text=True, timeout=30)

    def test_bad_address_tls_and_cloud_config_exit_2(self):
        r = self.run_manager("--cloud-provider-grpc-address", "no-port")
        self.assertEqual(r.returncode, 2)
        self.assertIn('cloud provider address "no-port": want host:port or [host]:port', r.stderr)
        r = self.run_manager("--cloud-provider-grpc-address", "127.0.0.1:1", "--cloud-provider-grpc-cert", "/c.pem")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cloud provider TLS: cert needs key and cacert as well", r.stderr)
        r = self.run_manager("--cloud-provider-grpc-timeout", "soon")
        self.assertEqual(r.returncode, 2)
        self.assertIn('invalid --cloud-provider-grpc-timeout "soon"', r.stderr)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("address: 127.0.0.1:8086\ngrpc_timout: 10s\n")
            f.flush()
            r = self.run_manager("--cloud-config", f.name)
        self.assertEqual(r.returncode, 2)
        self.assertIn('unknown key "grpc_timout"', r.stderr)


if __name__ == "__main__":
    unittest.main()
