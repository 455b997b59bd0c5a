"""koordinator's PodMigrationJob for a Pending pod the scheduler could not place (descheduler
controllers/migration: reservation/util.go GenerateReserveResourceOwners, controller.go
waitForPendingPodScheduled): the job reserves for the pod itself (a Reservation whose only owner is
the pod as an `object`), evicts nothing, and succeeds once the pod is scheduled, with
`Assign Pod "<ns>/<name>" to node "<node>"`. berth used to fail such a job at once with
ForbiddenMigratePod ("it is not scheduled to a node yet").
"""
import unittest

from kubesim_fixture import ManagerLogOnFailure, start_cluster_for

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"
PODS_PATH = "/api/v1/namespaces/default/pods"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: spare
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: {app: spare}
  template:
    metadata:
      labels: {app: spare}
    spec:
      schedulerName: koord-scheduler
      nodeSelector: {pool: spare}
      containers:
      - name: c
        image: registry.k8s.io/pause:3.10
        resources: {requests: {cpu: 100m, memory: 100Mi}}
"""

JOB = """apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: migrate-pending
spec:
  ttl: 2m
  mode: ReservationFirst
  podRef:
    namespace: default
    name: {pod}
"""


def pod_scheduled(pod):
    return next((c for c in pod.get("status", {}).get("conditions", []) if c["type"] == "PodScheduled"), None)


class PendingPodMigrationTest(ManagerLogOnFailure, unittest.TestCase):
    def setUp(self):
        start_cluster_for(self, extra_args=["--migration-skip-check-expected-replicas=true"])

    def status(self):
        r = self.sim.http("GET", f"{PMJ_PATH}/migrate-pending")
        return r.json().get("status", {}) if r.status_code == 200 else {}

    def cond(self, type_):
        return next((c for c in self.status().get("conditions", []) if c["type"] == type_), None)

    def test_an_unschedulable_pod_is_reserved_for_itself_and_the_job_succeeds_when_it_is_scheduled(self):
        self.sim.apply_text(DEPLOYMENT)

        def unschedulable():
            pods = self.sim.get_json(f"{PODS_PATH}?labelSelector=app%3Dspare")["items"]
            return pods[0] if len(pods) == 1 and (pod_scheduled(pods[0]) or {}).get("status") == "False" else None
        pod = self.mgr.wait(unschedulable, "the pod Pending with PodScheduled=False")
        name, uid = pod["metadata"]["name"], pod["metadata"]["uid"]
        self.sim.apply_text(JOB.format(pod=name))

        # The reservation is the pod's own (koordinator's object owner), and as unschedulable as the pod:
        # the job mirrors that and waits.
        cond = self.mgr.wait(lambda: (c := self.cond("ReservationScheduled")) and c.get("reason") == "Unschedulable" and c,
                             "ReservationScheduled=False/Unschedulable", 30)
        self.assertEqual(cond["status"], "False")
        self.assertIn("didn't match Pod's node affinity/selector", cond["message"])
        self.assertEqual(self.status()["phase"], "Running")
        ref = self.sim.get_json(f"{PMJ_PATH}/migrate-pending")["spec"]["reservationOptions"]["reservationRef"]["name"]
        reservation = self.sim.get_json(f"{RES_PATH}/{ref}")
        self.assertEqual(reservation["spec"]["owners"],
                         [{"object": {"uid": uid, "kind": "Pod", "name": name, "namespace": "default"}}])
        self.assertTrue(reservation["spec"]["allocateOnce"])

        # Room appears: the pod is scheduled (into its reservation or beside it) and the job succeeds.
        self.sim.kubectl("label", "node", "node-2", "pool=spare")
        self.mgr.wait(lambda: self.status().get("phase") == "Succeeded", "the job Succeeded", 60)
        status = self.status()
        self.assertEqual(status["status"], "Complete")
        self.assertEqual(status.get("reason", ""), "")
        self.assertEqual(status["message"], f'Assign Pod "default/{name}" to node "node-2"')
        self.assertEqual(self.cond("PodScheduled")["status"], "True")
        # Nothing was evicted: the same pod, now on node-2.
        same = self.sim.get_json(f"{PODS_PATH}/{name}")
        self.assertEqual((same["metadata"]["uid"], same["spec"]["nodeName"]), (uid, "node-2"))
        self.assertNotIn("deletionTimestamp", same["metadata"])
        self.assertIsNone(self.cond("Eviction"))
        def events():
            return [(e["type"], e["reason"], e["message"])
                    for e in self.sim.get_json("/api/v1/namespaces/default/events")["items"]
                    if e["involvedObject"].get("name") == "migrate-pending"]
        # The recorder posts the Event from its own queue, after the status write: waited for, not read at once.
        self.mgr.wait(lambda: any(reason == "Complete" for _, reason, _ in events()), "the job's Complete Event")
        self.assertIn(("Normal", "Complete", f'Assign Pod "default/{name}" to node "node-2"'), events())


if __name__ == "__main__":
    unittest.main()
