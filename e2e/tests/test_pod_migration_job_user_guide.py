"""koordinator's PodMigrationJob user guide (docs/user-manuals/pod-migration-job.md), its manifests verbatim, on
kubesim with berth-manager and real kubectl.

- Quick Start: the `pod-demo` Deployment and `migrationjob-demo`. The Deployment has one replica, which koordinator's
  arbitration refuses unless SkipCheckExpectedReplicas, so berth-manager runs with
  --migration-skip-check-expected-replicas=true. The job ends Succeeded/Complete; `kubectl get podmigrationjob`
  shows the guide's columns; `kubectl describe` shows the guide's Events with koordinator's messages
  (ReservationCreated, ReservationScheduled, Evicting, EvictComplete, Complete).
- Manually confirm: a `paused: true` job does nothing until `spec.paused` is set false; one whose `status.phase` is set
  to Failed instead is never run.
- EvictDirectly: the pod is evicted, no Reservation, `Pod "<ns>/<name>" has been evicted`.
- Evicting Pods Gracefully: `deleteOptions.gracePeriodSeconds: 60` reaches the Eviction (the pod's
  deletionGracePeriodSeconds).
- Use reserved resources when migrating: a Reservation made beforehand, named in `reservationOptions.reservationRef`,
  receives the replacement; the job makes none of its own.
"""
import json
import unittest

import yaml

from kubesim_fixture import start_cluster_for
from workloads import ready
# The guide's Quick Start job, the same document test_pod_migration_jobs applies.
from test_pod_migration_jobs import KOORDINATOR_EXAMPLE as QUICK_START

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"
PODS_PATH = "/api/v1/namespaces/default/pods"

# The guide's Deployment, verbatim but for its name (one per case).
POD_DEMO = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: default
spec:
  progressDeadlineSeconds: 600
  replicas: 1
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: {name}
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      creationTimestamp: null
      labels:
        app: {name}
      name: stress
    spec:
      containers:
      - args:
        - -c
        - "1"
        command:
        - stress
        image: polinux/stress
        imagePullPolicy: Always
        name: stress
        resources:
          limits:
            cpu: "2"
            memory: 4Gi
          requests:
            cpu: 200m
            memory: 400Mi
      restartPolicy: Always
      schedulerName: koord-scheduler
"""

# The guide's other jobs: manual confirmation, EvictDirectly, graceful eviction.
PAUSED = """apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: {job}
spec:
  # paused indicates whether the PodMigrationJob should to work or not.
  paused: true
  # ttl controls the PodMigrationJob timeout duration.
  ttl: 5m
  mode: ReservationFirst
  podRef:
    namespace: default
    name: {pod}
status:
  phase: Pending
"""
EVICT_DIRECTLY = """apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: migrationjob-direct
spec:
  paused: false
  ttl: 5m
  mode: EvictDirectly
  podRef:
    namespace: default
    name: {pod}
status:
  phase: Pending
"""
GRACEFUL = """apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: migrationjob-graceful
spec:
  paused: true
  ttl: 5m
  mode: ReservationFirst
  podRef:
    namespace: default
    name: {pod}
  deleteOptions:
    # The duration in seconds before the object should be deleted. Value must be non-negative integer.
    # The value zero indicates delete immediately. If this value is nil, the default grace period for the
    # specified type will be used.
    # Defaults to a per object value if not specified. zero means delete immediately.
    gracePeriodSeconds: 60
status:
  phase: Pending
"""


class PodMigrationJobUserGuideTest(unittest.TestCase):
    def setUp(self):
        start_cluster_for(self, extra_args=["--migration-skip-check-expected-replicas=true"])

    def job(self, name):
        r = self.sim.http("GET", f"{PMJ_PATH}/{name}")
        return r.json() if r.status_code == 200 else None

    def status(self, name):
        return (self.job(name) or {}).get("status", {})

    def running_pod(self, app):
        pods = self.sim.get_json(f"{PODS_PATH}?labelSelector=app%3D{app}")["items"]
        running = [p for p in pods if ready(p)]
        return running[0] if len(running) == 1 else None

    def start(self, app):
        self.sim.apply_text(POD_DEMO.format(name=app))
        return self.mgr.wait(lambda: self.running_pod(app), f"{app}'s pod Running and Ready")

    def events(self, job):
        items = self.sim.get_json("/api/v1/namespaces/default/events")["items"]
        items = [e for e in items if e["involvedObject"].get("name") == job]
        items.sort(key=lambda e: (e.get("lastTimestamp") or e.get("eventTime") or "", e["metadata"]["resourceVersion"]))
        return [(e["type"], e["reason"], e["message"]) for e in items]

    def test_quick_start_migrates_the_pod_with_the_guides_columns_and_events(self):
        pod = self.start("pod-demo")
        name, node = pod["metadata"]["name"], pod["spec"]["nodeName"]
        out = self.sim.kubectl("create", "-f", "-", input=QUICK_START.format(pod=name))
        self.assertEqual(out.strip(), "podmigrationjob.scheduling.koordinator.sh/migrationjob-demo created")
        self.mgr.wait(lambda: self.status("migrationjob-demo").get("phase") == "Succeeded", "the job Succeeded", 60)
        status = self.status("migrationjob-demo")
        reservation = self.job("migrationjob-demo")["spec"]["reservationOptions"]["reservationRef"]["name"]
        new_pod, target = status["podRef"]["name"], status["nodeName"]
        self.assertEqual(status["status"], "Complete")
        self.assertNotEqual(target, node)
        self.assertEqual(status["message"], f'Bind Pod "default/{new_pod}" in Reservation "{reservation}"')

        lines = self.sim.kubectl("get", "podmigrationjob", "migrationjob-demo").splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "PHASE", "STATUS", "AGE", "NODE", "RESERVATION", "PODNAMESPACE",
                                            "POD", "NEWPOD", "TTL"])
        row = lines[1].split()
        self.assertEqual(row[:3], ["migrationjob-demo", "Succeeded", "Complete"])
        self.assertEqual(row[4:9], [target, reservation, "default", name, new_pod])

        # The guide's Events, in order, with koordinator's messages.
        want = [("Normal", "ReservationCreated", f'Successfully create Reservation "{reservation}"'),
                ("Normal", "ReservationScheduled", f'Assigned Reservation "{reservation}" to node "{target}"'),
                ("Normal", "Evicting", f'Pod "default/{name}" evicted from node "{node}" by the reason ""'),
                ("Normal", "EvictComplete", f'Pod "default/{name}" has been evicted'),
                ("Normal", "Complete", f'Bind Pod "default/{new_pod}" in Reservation "{reservation}"')]
        got = self.mgr.wait(lambda: (e := self.events("migrationjob-demo")) and len(e) >= len(want) and e,
                            "the job's five Events")
        self.assertEqual(got, want)
        described = self.sim.kubectl("describe", "podmigrationjob", "migrationjob-demo")
        self.assertIn(f'Successfully create Reservation "{reservation}"', described)

    def test_a_paused_job_waits_for_confirmation_and_a_refused_one_never_runs(self):
        confirmed, refused = self.start("confirm"), self.start("refuse")
        self.sim.apply_text(PAUSED.format(job="confirmed", pod=confirmed["metadata"]["name"]) + "---\n" +
                            PAUSED.format(job="refused", pod=refused["metadata"]["name"]))
        # Refused: the guide sets status.phase=Failed to stop it for good.
        self.sim.kubectl("patch", "podmigrationjob", "refused", "--subresource=status", "--type=merge",
                         "-p", '{"status":{"phase":"Failed"}}')
        # Nothing was done for either before the confirmation (the refused job's end is checked below, after
        # berth has demonstrably handled the jobs).
        self.assertEqual(self.sim.get_json(RES_PATH)["items"], [])
        self.assertNotIn("phase", self.status("confirmed"))
        self.sim.kubectl("patch", "podmigrationjob", "confirmed", "--type=merge", "-p", '{"spec":{"paused":false}}')
        self.mgr.wait(lambda: self.status("confirmed").get("phase") == "Succeeded", "the confirmed job Succeeded", 60)
        self.sim.kubectl("patch", "podmigrationjob", "refused", "--type=merge", "-p", '{"spec":{"paused":false}}')
        # The refused job stays Failed and its pod in place, while berth handles its unpause.
        self.mgr.wait(lambda: any(r["metadata"]["name"] == self.job("confirmed")["spec"]["reservationOptions"]
                                  ["reservationRef"]["name"] for r in self.sim.get_json(RES_PATH)["items"]),
                      "the confirmed job's reservation listed")
        self.assertEqual(self.status("refused")["phase"], "Failed")
        self.assertEqual(self.running_pod("refuse")["metadata"]["uid"], refused["metadata"]["uid"])
        self.assertEqual(len(self.sim.get_json(RES_PATH)["items"]), 1, "no reservation for the refused job")

    def test_evict_directly_evicts_without_a_reservation(self):
        pod = self.start("direct")
        self.sim.apply_text(EVICT_DIRECTLY.format(pod=pod["metadata"]["name"]))
        self.mgr.wait(lambda: self.status("migrationjob-direct").get("phase") == "Succeeded", "the job Succeeded")
        status = self.status("migrationjob-direct")
        self.assertEqual(status["status"], "Complete")
        self.assertEqual(status["message"], f'Pod "default/{pod["metadata"]["name"]}" has been evicted')
        self.assertEqual(self.sim.get_json(RES_PATH)["items"], [])
        self.mgr.wait(lambda: (p := self.running_pod("direct")) and p["metadata"]["uid"] != pod["metadata"]["uid"],
                      "the Deployment's replacement Running")

    def test_evicting_gracefully_passes_the_grace_period_to_the_eviction(self):
        pod = self.start("graceful")
        start_rv = self.sim.get_json(PODS_PATH)["metadata"]["resourceVersion"]
        self.sim.apply_text(GRACEFUL.format(pod=pod["metadata"]["name"]))
        self.sim.kubectl("patch", "podmigrationjob", "migrationjob-graceful", "--type=merge",
                         "-p", '{"spec":{"paused":false}}')

        def terminating():
            r = self.sim.http("GET", f"{PODS_PATH}?watch=1&resourceVersion={start_rv}&timeoutSeconds=1", timeout=10)
            for line in r.text.splitlines():
                obj = json.loads(line)["object"] if line.strip() else {}
                if obj.get("metadata", {}).get("uid") == pod["metadata"]["uid"] and obj["metadata"].get(
                        "deletionTimestamp"):
                    return obj
            return None
        evicted = self.mgr.wait(terminating, "the pod terminating after the eviction", 60)
        self.assertEqual(evicted["metadata"]["deletionGracePeriodSeconds"], 60)

    def test_a_reservation_made_beforehand_is_used_through_reservation_ref(self):
        pod = self.start("prebooked")
        name, node = pod["metadata"]["name"], pod["spec"]["nodeName"]
        target = next(n for n in ("node-0", "node-1", "node-2") if n != node)
        # reservation-0, made before the job (the guide's "Use reserved resources when migrating"): the pod's
        # shape, for the Deployment's pods, on another node.
        self.sim.apply_text(yaml.safe_dump({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
            "metadata": {"name": "reservation-0"},
            "spec": {"template": {"metadata": {"namespace": "default"},
                                  "spec": {"nodeName": target, "schedulerName": "koord-scheduler",
                                           "containers": [{"name": "stress", "image": "polinux/stress",
                                                           "resources": {"requests": {"cpu": "200m",
                                                                                      "memory": "400Mi"}}}]}},
                     "owners": [{"labelSelector": {"matchLabels": {"app": "prebooked"}}}],
                     "allocateOnce": True, "ttl": "1h"}}))
        self.mgr.wait(lambda: self.sim.get_json(f"{RES_PATH}/reservation-0").get("status", {}).get("phase")
                      == "Available",
                      "reservation-0 Available")
        self.sim.apply_text(f"""apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: migrationjob-demo
spec:
  paused: false
  ttl: 5m
  mode: ReservationFirst
  podRef:
    namespace: default
    name: {name}
  reservationOptions:
    # the reservation-0 created before creating PodMigrationJob
    reservationRef:
      name: reservation-0
status:
  phase: Pending
""")
        self.mgr.wait(lambda: self.status("migrationjob-demo").get("phase") == "Succeeded", "the job Succeeded", 60)
        status = self.status("migrationjob-demo")
        self.assertEqual(status["nodeName"], target)
        self.assertEqual(status["message"], f'Bind Pod "default/{status["podRef"]["name"]}" in Reservation "reservation-0"')
        self.assertEqual([r["metadata"]["name"] for r in self.sim.get_json(RES_PATH)["items"]], ["reservation-0"],
                         "no reservation of its own")
        owners = self.sim.get_json(f"{RES_PATH}/reservation-0")["status"]["currentOwners"]
        self.assertEqual([o["name"] for o in owners], [status["podRef"]["name"]])


if __name__ == "__main__":
    unittest.main()
