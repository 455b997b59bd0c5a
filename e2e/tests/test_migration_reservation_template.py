"""A PodMigrationJob's `spec.reservationOptions.template` as koordinator uses it (descheduler
controllers/migration/reservation: CreateOrUpdateReservationOptions and CreateReservation build the
Reservation from the template's ObjectMeta): the template's `metadata.name` names the Reservation
(the job's uid only when it has none) and its annotations, such as
`scheduling.koordinator.sh/reservation-resize-allocatable`, are on the Reservation. berth used to
name it after the job's uid whatever the template said and drop the annotations.
"""
import unittest

from kubesim_fixture import ManagerLogOnFailure, start_cluster_for
from quantities import quantity
from workloads import ready

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"
PODS_PATH = "/api/v1/namespaces/default/pods"
RESIZE = "scheduling.koordinator.sh/reservation-resize-allocatable"

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      schedulerName: koord-scheduler
      containers:
      - name: c
        image: registry.k8s.io/pause:3.10
        resources: {requests: {cpu: 100m, memory: 100Mi}}
"""

JOB = """apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: migrate-named
spec:
  ttl: 2m
  mode: ReservationFirst
  podRef:
    namespace: default
    name: {pod}
  reservationOptions:
    template:
      metadata:
        name: web-migration-target
        labels: {{team: payments}}
        annotations:
          scheduling.koordinator.sh/reservation-resize-allocatable: '{{"resources":{{"cpu":"300m"}}}}'
      spec:
        ttl: 10m
"""


class MigrationReservationTemplateTest(ManagerLogOnFailure, unittest.TestCase):
    def setUp(self):
        start_cluster_for(self, extra_args=["--migration-skip-check-expected-replicas=true"])

    def job(self):
        r = self.sim.http("GET", f"{PMJ_PATH}/migrate-named")
        return r.json() if r.status_code == 200 else {}

    def test_the_templates_name_and_annotations_make_the_reservation(self):
        self.sim.apply_text(DEPLOYMENT)
        pod = self.mgr.wait(lambda: next((p for p in self.sim.get_json(f"{PODS_PATH}?labelSelector=app%3Dweb")["items"]
                                          if ready(p)), None), "web's pod Running and Ready")
        self.sim.apply_text(JOB.format(pod=pod["metadata"]["name"]))

        def named():
            r = self.sim.http("GET", f"{RES_PATH}/web-migration-target")
            return r.json() if r.status_code == 200 else None
        reservation = self.mgr.wait(named, "the reservation named by the template", 30)
        self.assertEqual(reservation["metadata"]["annotations"].get(RESIZE), '{"resources":{"cpu":"300m"}}')
        self.assertEqual(reservation["metadata"]["labels"].get("team"), "payments")
        self.assertEqual(reservation["spec"]["ttl"], "10m")
        # The only reservation: none named after the job's uid.
        self.assertEqual([r["metadata"]["name"] for r in self.sim.get_json(RES_PATH)["items"]], ["web-migration-target"])
        self.mgr.wait(lambda: self.job().get("status", {}).get("phase") == "Succeeded", "the job Succeeded", 60)
        job = self.job()
        self.assertEqual(job["spec"]["reservationOptions"]["reservationRef"]["name"], "web-migration-target")
        self.assertEqual(job["status"]["message"].split(" in Reservation ")[1], '"web-migration-target"')
        # The resize annotation took effect: 300m reserved, not the pod's 100m.
        self.assertEqual(quantity(named()["status"]["allocatable"]["cpu"]), quantity("300m"))


if __name__ == "__main__":
    unittest.main()
