"""The reservation user guide's "Reserve on Specified Node, with Multiple Owners" example, verbatim: the
Reservation reservation-demo-big (node-1, 6 cpu / 20Gi, owners: pod-demo-1 or app=app-demo), then the
Deployment app-demo (2 replicas, schedulerName koord-scheduler) with real kubectl. kubesim's Deployment and
ReplicaSet controllers create the pods; berth-manager, as koord-scheduler, binds both into the reservation on
node-1, and the reservation's allocated is the two pods' requests (cpu 4, memory 20Gi).
"""
import os
import unittest

from kubesim_fixture import ROOT, start_cluster, wait_until

TESTDATA = os.path.join(ROOT, "e2e", "testdata")
RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"


class UserGuideDeploymentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim, cls.mgr = start_cluster(nodes=3)

    @classmethod
    def tearDownClass(cls):
        cls.mgr.stop()
        cls.sim.stop()

    def reservation(self):
        return self.sim.get_json(f"{RES_PATH}/reservation-demo-big")

    def test_reserve_on_node_1_with_multiple_owners_using_the_app_demo_deployment(self):
        out = self.sim.kubectl("create", "-f", os.path.join(TESTDATA, "reservation-demo-big.yaml"))
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-demo-big created")
        wait_until(lambda: self.reservation().get("status", {}).get("phase") == "Available", timeout=15,
                   message="reservation-demo-big Available")
        wide = self.sim.kubectl("get", "reservation", "reservation-demo-big", "-o", "wide")
        self.assertRegex(wide.splitlines()[1], r"^reservation-demo-big\s+Available\s+\S+\s+node-1\s+1h\s*$")

        out = self.sim.kubectl("create", "-f", os.path.join(TESTDATA, "app-demo.yaml"))
        self.assertEqual(out.strip(), "deployment.apps/app-demo created")
        rollout = self.sim.kubectl("rollout", "status", "deployment/app-demo", "--timeout=30s")
        self.assertIn('deployment "app-demo" successfully rolled out', rollout)

        pods = self.sim.kubectl("get", "pod", "-l", "app=app-demo", "-o", "wide").splitlines()
        self.assertEqual(len(pods), 3, pods)
        rs = self.sim.kubectl("get", "rs", "-l", "app=app-demo", "-o", "name").split()
        self.assertEqual(len(rs), 1)
        rs_name = rs[0].split("/")[1]
        for line in pods[1:]:
            self.assertRegex(line, r"^" + rs_name + r"-[bcdfghjklmnpqrstvwxz2456789]{5}\s+1/1\s+Running\s+0\s+\S+\s+\S+\s+"
                             r"node-1\s")
        self.assertRegex(self.sim.kubectl("get", "deploy", "app-demo").splitlines()[1], r"^app-demo\s+2/2\s+2\s+2\s")

        r = wait_until(lambda: (lambda r: r if len(r["status"].get("currentOwners", [])) == 2 else None)(
            self.reservation()), timeout=15, message="two currentOwners")
        self.assertEqual(r["status"]["allocated"], {"cpu": "4", "memory": "20Gi"})
        self.assertEqual(r["status"]["phase"], "Available")
        uids = sorted(p["metadata"]["uid"] for p in
                      self.sim.get_json("/api/v1/namespaces/default/pods?labelSelector=app%3Dapp-demo")["items"])
        self.assertEqual(sorted(o["uid"] for o in r["status"]["currentOwners"]), uids)


if __name__ == "__main__":
    unittest.main()
