"""Leader election as operators watch it with kubectl: client-go's Lease lock (and so every controller-runtime
manager, kube-controller-manager and kube-scheduler) records a Normal Event with reason LeaderElection on the Lease,
"<identity> became leader" when a replica takes it and "<identity> stopped leading" when it gives it up. berth-manager
records the same, so `kubectl get events --field-selector reason=LeaderElection` and `kubectl describe lease` show
who led when; SIGTERM releases the Lease (holderIdentity "", leaseDurationSeconds 1, as ReleaseOnCancel writes)."""
import json
import re
import unittest

from kubesim_fixture import BerthManager, Kubesim, wait_until

LEASE = "berth-events"


def identity(mgr):
    found = re.search(r'"identity":"([^"]+)"', mgr.log_text())
    assert found, "berth-manager logged no identity:\n" + mgr.log_text()[-2000:]
    return found.group(1)


class LeaderElectionEventsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=1)
        cls.sim.install_crds()

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def events(self):
        """(source.component, message) of the LeaderElection Events on the Lease, oldest first."""
        items = json.loads(self.sim.kubectl("get", "events", "-n", "default", "-o", "json"))["items"]
        lease = json.loads(self.sim.kubectl("get", "lease", LEASE, "-n", "default", "-o", "json"))
        found = []
        for e in items:
            if e.get("reason") != "LeaderElection":
                continue
            obj = e["involvedObject"]
            self.assertEqual((obj["apiVersion"], obj["kind"], obj["name"], obj.get("namespace"), obj.get("uid")),
                             ("coordination.k8s.io/v1", "Lease", LEASE, "default", lease["metadata"]["uid"]))
            self.assertEqual(e["type"], "Normal")
            found.append((e["metadata"]["name"], e["source"]["component"], e["message"]))
        return [(component, message) for _, component, message in sorted(found)]

    def test_taking_and_handing_over_the_lease_are_events_kubectl_shows(self):
        args = ["--leader-elect", "--leader-election-namespace", "default", "--leader-election-id", LEASE]
        a = BerthManager(self.sim, extra_args=args)
        self.addCleanup(a.stop)
        a_id = identity(a)
        wait_until(lambda: self.events() == [(a_id, f"{a_id} became leader")], timeout=20,
                   message="the leader's 'became leader' Event")
        b = BerthManager(self.sim, extra_args=args)
        self.addCleanup(b.stop)
        b_id = identity(b)
        self.assertEqual(a.stop(), 0)
        lease = json.loads(self.sim.kubectl("get", "lease", LEASE, "-n", "default", "-o", "json"))["spec"]
        self.assertIn(lease["holderIdentity"], ("", b_id), "released on SIGTERM, or already taken by the standby")
        wait_until(lambda: len(self.events()) == 3, timeout=20, message="the hand-over's Events")
        self.assertEqual(self.events(), [(a_id, f"{a_id} became leader"), (a_id, f"{a_id} stopped leading"),
                                         (b_id, f"{b_id} became leader")])
        # kubectl finds them by reason, and `describe lease` lists them (it selects on the Lease's uid).
        by_reason = self.sim.kubectl("get", "events", "-n", "default", "--field-selector", "reason=LeaderElection")
        self.assertIn(f"{a_id} stopped leading", by_reason)
        described = self.sim.kubectl134("describe", "lease", LEASE, "-n", "default")
        self.assertRegex(described, rf"Normal\s+LeaderElection\s+.*{re.escape(b_id)} became leader")


if __name__ == "__main__":
    unittest.main()
