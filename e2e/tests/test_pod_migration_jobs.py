"""PodMigrationJobs on kubesim with berth-manager (reservation, scheduler and migration controllers) and real kubectl.
kubesim's Deployment and ReplicaSet controllers make the pods and their replacements, berth's scheduler binds them
(schedulerName koord-scheduler), and kubesim serves the Eviction subresource with PodDisruptionBudget maths.

- A ReservationFirst job moves a Deployment's pod under a PDB to another node, through a reservation that was
  Available before the eviction (kubesim's global resourceVersion orders the two watch events);
- an eviction berth's cached PDB forbids is not sent (the budget named in the job's Eviction condition) and goes
  out once the budget's update allows it (the 429 retry path is unit-tested: eviction_answer_test);
- a pod deleted mid-way (the reservation cannot be placed) fails the job with MissingPod and frees the reservation;
- a job whose reservation cannot be placed times out (ttl) and its reservation is deleted;
- koordinator's PodMigrationJob example manifest applies unchanged and shows in `kubectl get pmj`;
- held jobs next in line reserve a wave ahead (as many as the wave under way), stay Pending until admitted, then
  evict; a held job reserved ahead that times out deletes its reservation and evicts nothing.
"""
import unittest

import yaml

from kubesim_fixture import start_cluster_for
from workloads import deployment, ready

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"

# The example of koordinator's PodMigrationJob documentation (docs/user-manuals/pod-migration-job.md), with the
# pod name of this test.
KOORDINATOR_EXAMPLE = """apiVersion: scheduling.koordinator.sh/v1alpha1
kind: PodMigrationJob
metadata:
  name: migrationjob-demo
spec:
  paused: false
  ttl: 5m
  mode: ReservationFirst
  podRef:
    namespace: default
    name: {pod}
status:
  phase: Pending
"""


class PodMigrationJobTest(unittest.TestCase):
    def setUp(self):
        start_cluster_for(self, extra_args=["--log-level", "debug"])

    def pods(self, app):
        return self.sim.get_json(f"/api/v1/namespaces/default/pods?labelSelector=app%3D{app}")["items"]

    def ready_pods(self, app):
        return [p for p in self.pods(app) if ready(p)]

    def job(self, name):
        r = self.sim.http("GET", f"{PMJ_PATH}/{name}")
        return r.json() if r.status_code == 200 else None

    def job_status(self, name):
        return (self.job(name) or {}).get("status", {})

    def create_job(self, name, pod, **spec):
        body = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "PodMigrationJob",
                "metadata": {"name": name}, "spec": {"podRef": {"namespace": "default", "name": pod}, **spec}}
        self.sim.apply_text(yaml.safe_dump(body))
        return self.job(name)["metadata"]["uid"]

    def start_app(self, name, replicas, cpu="500m", pdb=None):
        docs = [deployment(name, replicas, cpu)]
        if pdb:
            docs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                         "metadata": {"name": name, "namespace": "default"},
                         "spec": {**pdb, "selector": {"matchLabels": {"app": name}}}})
        self.sim.apply_text(yaml.safe_dump_all(docs))
        self.mgr.wait(lambda: len(self.ready_pods(name)) == replicas, f"{replicas} Ready pods of {name}")
        return self.ready_pods(name)

    def test_reservation_first_moves_a_deployment_pod_under_a_pdb_through_an_available_reservation(self):
        pods = self.start_app("web", 3, pdb={"maxUnavailable": 1})
        victim = pods[0]
        name, node, uid = victim["metadata"]["name"], victim["spec"]["nodeName"], victim["metadata"]["uid"]
        start_rv = self.sim.resource_version("/api/v1/namespaces/default/pods")
        job_uid = self.create_job("move-web", name)

        self.mgr.wait(lambda: self.job_status("move-web").get("phase") == "Succeeded", "the job Succeeded", timeout=60)
        status = self.job_status("move-web")
        self.assertEqual(status["status"], "Complete")
        conditions = {c["type"]: c for c in status["conditions"]}
        for t in ("ReservationCreated", "ReservationScheduled", "Eviction", "ReservationBound", "BoundPodReady",
                  "PodBoundReservation"):
            self.assertEqual(conditions[t]["status"], "True", t)
        self.assertEqual(conditions["Eviction"]["reason"], "EvictComplete")
        new_pod = status["podRef"]["name"]
        self.assertNotEqual(new_pod, name)
        target = status["nodeName"]
        self.assertNotEqual(target, node)
        spec = self.job("move-web")["spec"]
        self.assertEqual(spec["podRef"]["uid"], uid)
        self.assertEqual(spec["reservationOptions"]["reservationRef"]["name"], job_uid)

        reservation = self.sim.get_json(f"{RES_PATH}/{job_uid}")
        self.assertEqual(reservation["status"]["phase"], "Succeeded")
        self.assertEqual(reservation["status"]["nodeName"], target)
        self.assertEqual(reservation["metadata"]["ownerReferences"][0]["uid"], job_uid)
        self.assertEqual([o["name"] for o in reservation["status"]["currentOwners"]], [new_pod])
        replacement = self.sim.get_json(f"/api/v1/namespaces/default/pods/{new_pod}")
        self.assertEqual(replacement["spec"]["nodeName"], target)
        self.assertIn("scheduling.koordinator.sh/reservation-allocated", replacement["metadata"]["annotations"])

        # Order, by kubesim's global resourceVersion: the reservation Available, then the old pod evicted.
        available_rv = min(rv for rv, _, r in self.sim.events_since(RES_PATH, start_rv)
                           if r["metadata"]["name"] == job_uid and r.get("status", {}).get("phase") == "Available")
        evicted_rv = min(rv for rv, _, p in self.sim.events_since("/api/v1/namespaces/default/pods", start_rv)
                         if p["metadata"]["uid"] == uid and p["metadata"].get("deletionTimestamp"))
        self.assertLess(available_rv, evicted_rv)
        # The budget held: 3 replicas, maxUnavailable 1, and the eviction went through the Eviction API.
        self.assertTrue(any(c["type"] == "DisruptionTarget" for c in
                            next(p for rv, _, p in self.sim.events_since("/api/v1/namespaces/default/pods", start_rv)
                                 if p["metadata"]["uid"] == uid and p["metadata"].get("deletionTimestamp"))
                            ["status"]["conditions"]))
        row = self.sim.kubectl("get", "pmj", "move-web").splitlines()
        self.assertEqual(row[0].split(), ["NAME", "PHASE", "STATUS", "AGE", "NODE", "RESERVATION", "PODNAMESPACE",
                                          "POD", "NEWPOD", "TTL"])
        self.assertEqual(row[1].split()[1:3], ["Succeeded", "Complete"])
        self.assertEqual(self.mgr.metric("berth_pods_evicted_total", result="success", strategy="PodMigrationJob"),
                         1.0)
        events = self.sim.kubectl("get", "events", "-A", "--field-selector", "involvedObject.name=move-web")
        self.assertIn("ReservationCreated", events)
        self.assertIn("Complete", events)

    def test_an_eviction_its_cached_pdb_forbids_is_not_sent_and_goes_out_when_the_budget_allows_it(self):
        pods = self.start_app("db", 2, cpu="100m", pdb={"minAvailable": 2})
        name = pods[0]["metadata"]["name"]
        self.create_job("move-db", name)
        waiting = ("Eviction of Pod default/" + name + " waits for PodDisruptionBudget default/db to allow a disruption "
                   "(0 allowed, 2 healthy, 2 desired); not sent, as the API server would refuse it")

        def eviction():
            return {c["type"]: c for c in self.job_status("move-db").get("conditions", [])}.get("Eviction", {})
        self.mgr.wait(lambda: eviction().get("message") == waiting, "the budget named in the job's conditions")
        self.assertEqual(eviction()["status"], "False")
        self.assertEqual(self.job_status("move-db")["phase"], "Running")
        # berth's own PDB cache kept the request from the API server (the pod below is untouched); the budget
        # blocked it all the same, which is what the BerthEvictionsBlockedByPDB alert counts.
        self.assertGreaterEqual(self.mgr.metric("berth_pods_evicted_total", result="blocked_by_pdb",
                                                strategy="PodMigrationJob"), 1.0)
        self.assertEqual(self.mgr.metric("berth_pods_evicted_total", result="success", strategy="PodMigrationJob"), 0.0)
        pod = self.sim.get_json(f"/api/v1/namespaces/default/pods/{name}")
        self.assertNotIn("deletionTimestamp", pod["metadata"])
        # The budget's update wakes the job, which evicts at once.
        self.sim.kubectl("patch", "pdb", "db", "--type=merge", "-p", '{"spec":{"minAvailable":1}}')
        self.mgr.wait(lambda: self.job_status("move-db").get("phase") == "Succeeded", "the job Succeeded", timeout=60)
        self.assertEqual(self.mgr.metric("berth_pods_evicted_total", result="success", strategy="PodMigrationJob"), 1.0)

    def test_a_pod_deleted_mid_way_fails_the_job_with_missing_pod(self):
        # Each pod takes more than half a node: the reservation for a second one cannot be placed, so the job
        # waits (ReservationScheduled False/Unschedulable) until its pod is deleted by hand.
        pods = self.start_app("big", 3, cpu="5")  # kubesim nodes have 8 cpus: one such pod per node
        name = pods[0]["metadata"]["name"]
        job_uid = self.create_job("move-big", name)
        self.mgr.wait(lambda: {c["type"]: c for c in self.job_status("move-big").get("conditions", [])}
                      .get("ReservationScheduled", {}).get("reason") == "Unschedulable",
                      "the reservation Unschedulable")
        self.sim.kubectl("delete", "pod", name, "--wait=false")
        self.mgr.wait(lambda: self.job_status("move-big").get("phase") == "Failed", "the job Failed")
        status = self.job_status("move-big")
        self.assertEqual(status["reason"], "MissingPod")
        self.assertEqual(status["message"], f'Abort job caused by missing Pod "default/{name}"')
        self.mgr.wait(lambda: self.sim.http("GET", f"{RES_PATH}/{job_uid}").status_code == 404,
                      "the job's reservation deleted")

    def test_the_ttl_aborts_the_job_and_frees_its_reservation(self):
        pods = self.start_app("huge", 3, cpu="5")
        name = pods[0]["metadata"]["name"]
        start_rv = self.sim.resource_version(RES_PATH)
        job_uid = self.create_job("slow", name, ttl="4s")
        self.mgr.wait(lambda: self.job_status("slow").get("phase") == "Failed", "the job timed out")
        # From kubesim's watch history, not a poll: the reservation may live for less than a poll under load.
        self.assertTrue(any(r["metadata"]["name"] == job_uid for _, _, r in self.sim.events_since(RES_PATH, start_rv)),
                        "the job's reservation was created")
        status = self.job_status("slow")
        self.assertEqual(status["reason"], "Timeout")
        self.assertEqual(status["message"], "Abort job caused by timeout")  # koordinator's; the Event names the step
        timeouts = self.mgr.wait(lambda: [e for e in self.sim.get_json("/api/v1/namespaces/default/events")["items"]
                                          if e["reason"] == "Timeout" and e["involvedObject"]["name"] == "slow"],
                                 "the Timeout Event")
        self.assertTrue(timeouts[0]["message"].startswith("Abort job caused by timeout (ReservationScheduled: "),
                        timeouts[0]["message"])
        self.mgr.wait(lambda: self.sim.http("GET", f"{RES_PATH}/{job_uid}").status_code == 404,
                      "the job's reservation deleted")
        self.assertEqual(len(self.ready_pods("huge")), 3)  # nothing was evicted

    def test_koordinators_example_manifest_applies_unchanged(self):
        pods = self.start_app("demo", 2, cpu="100m")
        name = pods[0]["metadata"]["name"]
        out = self.sim.apply_text(KOORDINATOR_EXAMPLE.format(pod=name), verb="apply")
        self.assertIn("podmigrationjob.scheduling.koordinator.sh/migrationjob-demo created", out)
        self.mgr.wait(lambda: self.job_status("migrationjob-demo").get("phase") == "Succeeded",
                      "koordinator's example job Succeeded", timeout=60)
        self.assertIn("migrationjob-demo", self.sim.kubectl("get", "pmj"))


class ReserveAheadTest(unittest.TestCase):
    """Held jobs next in line reserve a wave ahead (--migration-reserve-ahead, on by default): 6 jobs on a Deployment
    of 6 replicas, whose workload limits (koordinator's defaults for 4-10 replicas) let 2 migrate at once; a pod
    turns Ready 6 s after binding, so the first wave runs for 6 s while the other 4 jobs wait."""

    # PodMigrationJobTest's helpers (not its tests).
    pods, ready_pods = PodMigrationJobTest.pods, PodMigrationJobTest.ready_pods
    job, job_status, create_job = PodMigrationJobTest.job, PodMigrationJobTest.job_status, PodMigrationJobTest.create_job
    start_app = PodMigrationJobTest.start_app

    def setUp(self):
        start_cluster_for(self, sim_flags={"pod_ready_delay": "6s"}, extra_args=["--log-level", "debug"])

    def jobs(self):
        return {j["metadata"]["name"]: j for j in self.sim.get_json(PMJ_PATH)["items"]}

    @staticmethod
    def phase(job):
        return job.get("status", {}).get("phase") or "Pending"

    @staticmethod
    def reservation_ref(job):
        return job["spec"].get("reservationOptions", {}).get("reservationRef", {}).get("name")

    def start_jobs(self, ttl_after_first_wave=None):
        """6 jobs, one per pod of the Deployment `wave`, in pod-name order: (job names, {job: its pod})."""
        pods = sorted(self.start_app("wave", 6, cpu="100m"), key=lambda p: p["metadata"]["name"])
        names = [f"move-{i}" for i in range(6)]
        for i, (name, pod) in enumerate(zip(names, pods)):
            extra = {"ttl": ttl_after_first_wave} if ttl_after_first_wave and i >= 2 else {}
            self.create_job(name, pod["metadata"]["name"], **extra)
        return names, dict(zip(names, pods))

    @staticmethod
    def first_rv(history, name, predicate):
        """The resourceVersion of the first watch event of object `name` in `history` for which predicate holds."""
        return min((rv for rv, _, o in history if o["metadata"]["name"] == name and predicate(o)), default=None)

    def test_the_two_held_jobs_next_in_line_reserve_ahead_stay_pending_and_evict_once_admitted(self):
        start_rv = self.sim.resource_version(PMJ_PATH)
        names, pod_of = self.start_jobs()
        state = {}

        def wave_and_two_ahead():
            listed = self.sim.get_json(PMJ_PATH)
            jobs = {j["metadata"]["name"]: j for j in listed["items"]}
            running = [n for n in names if self.phase(jobs[n]) == "Running"]
            ahead = [n for n in names if self.phase(jobs[n]) == "Pending" and self.reservation_ref(jobs[n])]
            waiting = [n for n in names if self.phase(jobs[n]) == "Pending" and not self.reservation_ref(jobs[n])]
            state.update(jobs=jobs, running=running, ahead=ahead, waiting=waiting,
                         rv=int(listed["metadata"]["resourceVersion"]))
            return len(running) == 2 and len(ahead) == 2 and len(waiting) == 2
        self.mgr.wait(wave_and_two_ahead, "2 jobs running, the next 2 held with a reservation, the last 2 without one")
        self.assertEqual(state["ahead"], names[2:4], "the first in line reserve ahead")
        for name in state["ahead"]:
            job = state["jobs"][name]
            self.assertEqual(self.reservation_ref(job), job["metadata"]["uid"])
            self.assertEqual([c["type"] for c in job.get("status", {}).get("conditions", [])
                              if c["type"] != "Arbitration"], [], "nothing but arbitration in its status")

        def created_ahead(name):
            return [e["message"] for e in self.sim.get_json("/api/v1/namespaces/default/events")["items"]
                    if e["reason"] == "ReservationCreated" and e["involvedObject"]["name"] == name
                    and "created ahead" in e["message"]]
        for name in state["ahead"]:
            messages = self.mgr.wait(lambda: created_ahead(name), f"the ReservationCreated Event of {name}")
            self.assertIn(f"created ahead for Pod default/{pod_of[name]['metadata']['name']}, which waits for "
                          "arbitration", messages[0])

        self.mgr.wait(lambda: all(self.phase(j) == "Succeeded" for j in self.jobs().values()), "all 6 jobs Succeeded",
                      timeout=90)
        self.assertEqual(len(self.ready_pods("wave")), 6)
        self.assertFalse({p["metadata"]["name"] for p in pod_of.values()} & {p["metadata"]["name"]
                                                                             for p in self.pods("wave")})
        # The order, from kubesim's watch history (by its global resourceVersion), so that no step depends on the
        # test polling while the first wave still runs: each job reserved ahead had its reservation Available before
        # it went Running; its pod was still there when the job was listed Pending, and was evicted only after the
        # reservation was Available (the Running status is written with the eviction's outcome, after it).
        reservations = self.sim.events_since(RES_PATH, start_rv)
        jobs = self.sim.events_since(PMJ_PATH, start_rv)
        pods = self.sim.events_since("/api/v1/namespaces/default/pods", start_rv)
        for name in state["ahead"]:
            uid, pod = state["jobs"][name]["metadata"]["uid"], pod_of[name]
            available = self.first_rv(reservations, uid, lambda r: (r.get("status") or {}).get("phase") == "Available")
            running = self.first_rv(jobs, name, lambda j: self.phase(j) == "Running")
            evicted = self.first_rv(pods, pod["metadata"]["name"], lambda p: p["metadata"].get("deletionTimestamp"))
            self.assertIsNotNone(available, f"the reservation of {name} Available")
            self.assertLess(available, running, f"{name} reserved ahead, before it was admitted")
            self.assertLess(state["rv"], evicted, f"{name} evicted nothing while it was held")
            self.assertLess(available, evicted, f"{name} evicted its pod after its reservation was Available")
            # Placed off the pod's node, and without reservation-order (replacements take the running wave's first).
            reservation = next(r for rv, _, r in reservations if rv == available)
            self.assertNotEqual(reservation["status"]["nodeName"], pod["spec"]["nodeName"])
            self.assertNotIn("scheduling.koordinator.sh/reservation-order",
                             reservation["metadata"].get("labels", {}))
            conds = {c["type"]: c for c in self.job_status(name)["conditions"]}
            if "Arbitration" in conds:  # written only for a job held 10 s or more
                self.assertEqual(conds["Arbitration"]["reason"], "PassedArbitration")
            self.assertEqual(conds["ReservationCreated"]["status"], "True")
            self.assertEqual(conds["Eviction"]["reason"], "EvictComplete")
        for name in state["waiting"]:  # no reservation while the 2 ahead of it held theirs; one later
            created = self.first_rv(reservations, state["jobs"][name]["metadata"]["uid"], lambda r: True)
            self.assertIsNotNone(created, f"the reservation of {name}")
            self.assertGreater(created, state["rv"], f"{name} had no reservation while it was listed without one")

    def test_a_held_job_reserved_ahead_that_times_out_frees_its_reservation_and_keeps_its_pod(self):
        start_rv = self.sim.resource_version(PMJ_PATH)
        names, pod_of = self.start_jobs(ttl_after_first_wave="3s")
        uids = {n: self.job(n)["metadata"]["uid"] for n in names}
        self.mgr.wait(lambda: all(self.job_status(n).get("phase") == "Failed" for n in names[2:]),
                      "the 4 held jobs timed out")
        for name in names[2:]:
            status = self.job_status(name)
            self.assertEqual(status["reason"], "Timeout")
            self.assertTrue(status["message"].startswith("Abort job caused by timeout"), status["message"])
        self.mgr.wait(lambda: all(self.sim.http("GET", f"{RES_PATH}/{uids[n]}").status_code == 404 for n in names[2:]),
                      "the reservations held ahead deleted")
        # The 2 next in line had reserved ahead: kubesim's watch history shows it even if the reservations lived for
        # less than a poll.
        reservations = self.sim.events_since(RES_PATH, start_rv)
        for name in names[2:4]:
            self.assertIsNotNone(self.first_rv(reservations, uids[name], lambda r: True), f"{name} reserved ahead")
        pods_now = {p["metadata"]["name"] for p in self.pods("wave") if not p["metadata"].get("deletionTimestamp")}
        for name in names[2:]:
            self.assertIn(pod_of[name]["metadata"]["name"], pods_now, f"{name} evicted nothing")
        self.mgr.wait(lambda: all(self.job_status(n).get("phase") == "Succeeded" for n in names[:2]),
                      "the first wave Succeeded", timeout=60)


if __name__ == "__main__":
    unittest.main()
