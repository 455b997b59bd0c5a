"""koordinator's status for a PodMigrationJob whose pod its filters refuse: phase Failed, reason
ForbiddenMigratePod and the message `Pod "<ns>/<name>" is forbidden to migrate because it does not
meet the requirements` (descheduler arbitrator updateFailedJob), also on the Warning Event. berth
wrote its own explanation into status.message (`Pod ns/p is forbidden to migrate: it is a bare
pod ...`); it now keeps koordinator's message there and adds the explanation to the Event only, as
it does for Timeout.
"""
import unittest

from kubesim_fixture import ManagerLogOnFailure, start_cluster_for
from workloads import ready

PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"

BARE_POD = """apiVersion: v1
kind: Pod
metadata:
  name: lonely
  namespace: default
spec:
  schedulerName: koord-scheduler
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources: {requests: {cpu: 100m}}
"""

JOB = """apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: migrate-lonely
spec:
  ttl: 2m
  podRef: {namespace: default, name: lonely}
"""


class ForbiddenMigrationMessageTest(ManagerLogOnFailure, unittest.TestCase):
    def setUp(self):
        start_cluster_for(self)

    def test_a_bare_pod_fails_the_job_with_koordinators_message_and_the_reason_in_the_event(self):
        self.sim.apply_text(BARE_POD)
        self.mgr.wait(lambda: ready(self.sim.get_json("/api/v1/namespaces/default/pods/lonely")), "the pod Ready")
        self.sim.apply_text(JOB)

        def failed():
            status = self.sim.get_json(f"{PMJ_PATH}/migrate-lonely").get("status", {})
            return status if status.get("phase") == "Failed" else None
        status = self.mgr.wait(failed, "the job Failed", 30)
        want = 'Pod "default/lonely" is forbidden to migrate because it does not meet the requirements'
        self.assertEqual((status["reason"], status["message"]), ("ForbiddenMigratePod", want))

        def event():
            items = self.sim.get_json("/api/v1/namespaces/default/events")["items"]
            return next((e for e in items if e["involvedObject"].get("name") == "migrate-lonely"
                         and e["reason"] == "ForbiddenMigratePod"), None)
        e = self.mgr.wait(event, "the Warning Event")
        self.assertEqual(e["type"], "Warning")
        # koordinator's message first, then berth's reason for it.
        self.assertTrue(e["message"].startswith(want + ": "), e["message"])
        self.assertGreater(len(e["message"]), len(want) + 2)


if __name__ == "__main__":
    unittest.main()
