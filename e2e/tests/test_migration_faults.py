"""PodMigrationJobs and a node drain while the API server fails (kubesim's fault injection, PUT /kubesim/admin/faults).

Every API write can fail with 409/429/5xx, a watch can drop, a manager can die; what berth does in each case:
- an eviction answered 500/503 or a throttling 429 (Retry-After: 1, no budget named) is retried by the job with
  exponential backoff (--migration-eviction-backoff 1s here; at least the Retry-After); its Eviction condition and a
  Warning Evicting Event say which answer it waits on, a throttling 429 is not reported as a budget's refusal, no eviction
  gets past the PDB, and the job Succeeds once the faults stop, with exactly one accepted eviction of its pod;
- reservation creates and job spec/status writes answered 409/500/503: the job converges without a duplicate
  reservation (its name is the job's uid, so a repeated create is AlreadyExists; a "<uid>-1" only when another
  replacement of the workload took the first) and its phase never goes back;
- a drain whose evictions, job creates, job status writes and node patches (cordon, drain status) fail while every
  watch is cut each second: zero budget violations, each pod evicted once, the node Drained;
- a manager killed after an eviction whose status write failed: the restarted manager finds the eviction on the job's
  reservation (reservation-order "1", set before every eviction) and finishes the job, with no second eviction and no
  orphan reservation (before: the job failed MissingPod);
- the same with a leader paused (SIGSTOP) instead of killed: the standby takes the Lease and finishes the job, the
  old leader, resumed, writes nothing more and exits.
Assertions read real state: the objects, and kubesim's audit log (--audit-log: one line per request that reached the
API, so an injected fault is not in it; evictions are counted per pod from it).
"""
import json
import os
import re
import shutil
import signal
import tempfile
import unittest

import requests
import yaml

from kubesim_fixture import KUBECTL, BerthManager, Kubesim, wait_until
from test_leader_fencing import LEASE, MUTATING_VERBS, identity_of, leads
from test_node_drain import BudgetChecker, Watcher, pdb
from workloads import deployment, ready

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"
PODS_PATH = "/api/v1/namespaces/default/pods"
PDBS_PATH = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
FAULTS_PATH = "/kubesim/admin/faults"
MANAGER_AGENT_PREFIX = "berth/"
PHASE_ORDER = {"Pending": 0, "Running": 1, "Succeeded": 2, "Failed": 2}


class MigrationFaultsTest(unittest.TestCase):
    def start(self, nodes=3, managers=1, manager_args=(), **sim_flags):
        audit_dir = tempfile.mkdtemp(prefix="berth-audit-")
        self.addCleanup(shutil.rmtree, audit_dir, True)
        self.audit_path = os.path.join(audit_dir, "audit.log")
        self.sim = Kubesim(nodes=nodes, audit_log=self.audit_path, **sim_flags)
        self.addCleanup(self.sim.stop)
        self.sim.install_crds()
        self.managers = []
        for n in range(managers):
            m = BerthManager(self.sim, extra_args=["--migration-eviction-backoff", "1s", *manager_args], start=False)
            m.runs = 100 * n  # its own log files: the fixture names them by run count only
            self.addCleanup(m.stop)
            self.managers.append(m.start(wait_ready=managers == 1))
        self.mgr = self.managers[0]

    def wait(self, predicate, message, timeout=30):
        return self.mgr.wait(predicate, message, timeout, interval=0.1, log_tail=6000)

    # --- faults and the audit log

    def faults(self, **config):
        r = self.sim.http("PUT", FAULTS_PATH, json=config)
        self.assertEqual(r.status_code, 200, r.text)

    def faults_off(self):
        self.faults(faultRate=0, watchDropEverySeconds=0, faultTargets=[])

    def injected(self):
        return {int(k): v for k, v in self.sim.get_json(FAULTS_PATH).get("injectedFaults", {}).items()}

    def audit(self):
        with open(self.audit_path) as f:
            return [json.loads(line) for line in f if line.strip()]

    def evictions(self, pod, accepted_only=True):
        """Eviction requests of `pod` that reached the API (accepted ones: 200/201)."""
        return sum(1 for l in self.audit() if l.get("resource") == "pods" and l.get("subresource") == "eviction"
                   and l.get("name") == pod and (not accepted_only or l["code"] in (200, 201)))

    def eviction_trail(self, pod):
        """For a failure message: the pod's eviction requests in the audit log and the manager's eviction log lines."""
        audit = [l for l in self.audit() if l.get("subresource") == "eviction" and l.get("name") == pod]
        answered = [l for l in self.mgr.log_text().splitlines() if "eviction answered" in l and pod in l]
        return "audit:\n" + "\n".join(map(json.dumps, audit)) + "\nmanager:\n" + "\n".join(answered)

    def written_phases(self, job):
        """The job's status.phase after each status write the API accepted, in order."""
        return [l["phase"] for l in self.audit() if l.get("resource") == "podmigrationjobs"
                and l.get("subresource") == "status" and l.get("name") == job and l["code"] == 200 and l.get("phase")]

    def assert_phases_never_go_back(self, job, last="Succeeded"):
        phases = self.written_phases(job)
        self.assertTrue(phases, f"no status write of {job} reached the API")
        ranks = [PHASE_ORDER[p] for p in phases]
        self.assertEqual(ranks, sorted(ranks), f"{job} phases written: {phases}")
        self.assertEqual(phases[-1], last, phases)

    # --- objects

    def pods(self, app=None):
        items = self.sim.get_json(PODS_PATH)["items"]
        return [p for p in items if app is None or p["metadata"].get("labels", {}).get("app") == app]

    def job(self, name):
        r = self.sim.http("GET", f"{PMJ_PATH}/{name}")
        return r.json() if r.status_code == 200 else None

    def job_status(self, name):
        return (self.job(name) or {}).get("status", {})

    def condition(self, name, kind):
        return {c["type"]: c for c in self.job_status(name).get("conditions", [])}.get(kind, {})

    def create_job(self, name, pod):
        self.sim.apply_text(yaml.safe_dump({"apiVersion": "scheduling.koordinator.sh/v1alpha1",
                                            "kind": "PodMigrationJob", "metadata": {"name": name},
                                            "spec": {"podRef": {"namespace": "default", "name": pod}}}))
        return self.job(name)["metadata"]["uid"]

    def reservations_of(self, job_uid):
        return [r for r in self.sim.get_json(RES_PATH)["items"]
                if any(o.get("uid") == job_uid for o in r["metadata"].get("ownerReferences", []))]

    def events(self, name, reason):
        return [e for e in self.sim.get_json("/api/v1/namespaces/default/events")["items"]
                if e["involvedObject"]["name"] == name and e["reason"] == reason]

    def start_app(self, name, replicas, cpu, **budget):
        self.sim.apply_text(yaml.safe_dump_all([deployment(name, replicas, cpu), pdb(name, **budget)]))
        self.wait(lambda: sum(1 for p in self.pods(name) if ready(p)) == replicas, f"{replicas} Ready pods of {name}")
        allowed = 1 if budget.get("maxUnavailable") == 1 else None
        if allowed is not None:
            self.wait(lambda: (self.sim.get_json(f"{PDBS_PATH}/{name}").get("status") or {})
                      .get("disruptionsAllowed") == allowed, f"the PDB of {name} allowing {allowed}")
        return [p for p in self.pods(name) if ready(p)]

    def watch_budgets(self, desired):
        checker = BudgetChecker(desired)
        listed = self.sim.get_json(PODS_PATH)
        checker.seed(listed["items"])
        pods = Watcher(self.sim, PODS_PATH, listed["metadata"]["resourceVersion"], checker.on_pod)
        pdbs = Watcher(self.sim, PDBS_PATH, self.sim.get_json(PDBS_PATH)["metadata"]["resourceVersion"],
                       checker.on_pdb)
        return checker, pods, pdbs

    # --- the suites

    def test_evictions_answered_5xx_and_throttled_are_retried_with_backoff_and_succeed_within_the_budget(self):
        self.start(3)
        pod = self.start_app("web", 3, "500m", maxUnavailable=1)[0]["metadata"]["name"]
        checker, pod_watch, pdb_watch = self.watch_budgets({"web": 2})
        self.addCleanup(pdb_watch.stop)
        self.addCleanup(pod_watch.stop)
        self.addCleanup(self.faults_off)
        self.faults(faultRate=1, faultCodes=[500, 503], faultTargets=["POST:pods/eviction"], seed=7)
        self.create_job("move-web", pod)

        def attempts():
            m = re.search(r"Eviction attempt (\d+) ", self.condition("move-web", "Eviction").get("message", ""))
            return int(m.group(1)) if m else 0
        self.wait(lambda: attempts() >= 1, "a refused eviction attempt")
        eviction = self.condition("move-web", "Eviction")
        self.assertEqual((eviction["status"], eviction["reason"]), ("False", "Evicting"))
        self.assertRegex(eviction["message"], r"failed \(HTTP 50[03]\)")
        self.assertEqual(self.job_status("move-web")["phase"], "Running")

        # A 429 that names no budget (the emulator's API Priority and Fairness answer, Retry-After: 1): the
        # client retries it 10 times, then the job waits its backoff; it does not say a budget refused it.
        self.faults(faultRate=1, faultCodes=[429], faultTargets=["POST:pods/eviction"], seed=7)
        self.wait(lambda: "failed (HTTP 429)" in self.condition("move-web", "Eviction").get("message", ""),
                  "a throttled eviction attempt", timeout=40)
        self.assertNotIn("PodDisruptionBudget", self.condition("move-web", "Eviction")["message"])
        self.assertGreaterEqual(attempts(), 2)
        # A Warning Evicting Event per refused try (koordinator's "Failed evict Pod ... caused by ..."), each wait
        # longer: exponential backoff from 1s (±20%). The recorder posts Events from its own queue, after the
        # condition: poll until two tries' are in.
        def retry_delays():
            return sorted(float(m.group(1)) for e in self.events("move-web", "Evicting") if e["type"] == "Warning"
                          and e["message"].startswith('Failed evict Pod "default/')
                          for m in [re.search(r"retrying in ([0-9.]+)s", e["message"])] if m)
        delays = self.wait(lambda: (d := retry_delays()) and len(d) >= 2 and d[-1] >= 1.6 and d,
                           "Warning Evicting Events of two tries, the later one waiting longer")
        self.assertLessEqual(delays[0], 1.2)
        self.assertGreaterEqual(delays[-1], 1.6)
        self.assertEqual(self.evictions(pod, accepted_only=False), 0, "no refused eviction reached the API")
        self.assertNotIn("deletionTimestamp", self.sim.get_json(f"{PODS_PATH}/{pod}")["metadata"])
        self.assertEqual(self.mgr.metric("berth_pods_evicted_total", result="blocked_by_pdb",
                                         strategy="PodMigrationJob"), 0.0)
        # Each try waited its backoff: no wake-up of the job (its own status writes, the budget's updates) was
        # taken for the end of it (before: a refused try was repeated every ~100 ms while the budget allowed it).
        tries = [json.loads(l)["ts"] for l in self.mgr.log_text().splitlines()
                 if '"eviction answered"' in l and '"result":"error"' in l]
        gaps = [b - a for a, b in zip(tries, tries[1:])]
        self.assertGreaterEqual(len(tries), 2)
        self.assertGreaterEqual(min(gaps), 0.75, f"tries {len(tries)}, gaps {gaps}")
        # Counted as errors (a try may end between the two reads, hence at least).
        self.assertGreaterEqual(self.mgr.metric("berth_pods_evicted_total", result="error",
                                                strategy="PodMigrationJob"), float(len(tries)))
        injected = self.injected()
        self.assertGreaterEqual(injected.get(429, 0), 10, injected)
        self.assertGreaterEqual(injected.get(500, 0) + injected.get(503, 0), 1, injected)

        self.faults_off()
        self.wait(lambda: self.job_status("move-web").get("phase") == "Succeeded", "the job Succeeded", timeout=40)
        self.wait(lambda: sum(1 for p in self.pods("web") if ready(p)) == 3, "3 Ready pods of web again")
        pod_watch.stop()
        pdb_watch.stop()
        self.assertEqual(checker.violations, [])
        self.assertEqual(checker.min_healthy["web"], 2, "the one eviction did happen, within the budget")
        self.assertEqual(self.evictions(pod, accepted_only=False), 1, self.eviction_trail(pod))
        self.assertEqual(self.condition("move-web", "Eviction")["reason"], "EvictComplete")
        self.assertEqual(self.mgr.metric("berth_pods_evicted_total", result="success", strategy="PodMigrationJob"), 1.0)
        self.assert_phases_never_go_back("move-web")

    def test_reservation_creates_and_job_writes_answered_409_and_5xx_converge_without_duplicate_reservations(self):
        self.start(3)
        pods = [p["metadata"]["name"] for p in self.start_app("api", 4, "200m", maxUnavailable=1)[:3]]
        checker, pod_watch, pdb_watch = self.watch_budgets({"api": 3})
        self.addCleanup(pdb_watch.stop)
        self.addCleanup(pod_watch.stop)
        self.addCleanup(self.faults_off)
        self.faults(faultRate=0.5, faultCodes=[409, 500, 503], seed=3,
                    faultTargets=["POST:reservations", "PATCH:podmigrationjobs", "PATCH:podmigrationjobs/status"])
        jobs = {f"move-{i}": self.create_job(f"move-{i}", pod) for i, pod in enumerate(pods)}
        # The faults stay on: every job gets through them.
        self.wait(lambda: all(self.job_status(j).get("phase") == "Succeeded" for j in jobs), "3 jobs Succeeded",
                  timeout=60)
        injected = self.injected()
        self.faults_off()
        self.assertGreaterEqual(injected.get(409, 0), 1, injected)
        self.assertGreaterEqual(injected.get(500, 0) + injected.get(503, 0), 1, injected)
        self.wait(lambda: sum(1 for p in self.pods("api") if ready(p)) == 4, "4 Ready pods of api again")
        pod_watch.stop()
        pdb_watch.stop()
        self.assertEqual(checker.violations, [])
        for name, uid in jobs.items():
            owned = {r["metadata"]["name"]: r for r in self.reservations_of(uid)}
            ref = self.job(name)["spec"]["reservationOptions"]["reservationRef"]["name"]
            # A retried create never makes a second reservation: a job's reservations are its uid, then (only when
            # another replacement of the workload took the one before, the README's limits) "<uid>-1", "<uid>-2".
            # The one it names is its last. Every one left was consumed: a job whose pod's replacement went
            # through a sibling's reservation deletes its own, unconsumed.
            chain = [uid] + [f"{uid}-{n}" for n in range(1, 4)]
            self.assertIn(ref, chain, name)
            self.assertLessEqual(set(owned), set(chain[:chain.index(ref) + 1]), f"{name}: {sorted(owned)}")
            for r in owned.values():
                self.assertEqual(r["status"]["phase"], "Succeeded", (r["metadata"]["name"], r["status"]))
            if ref not in owned:
                bound = self.condition(name, "ReservationBound")["message"]
                self.assertIn(f"of the same workload (Reservation {ref} was not consumed)", bound, name)
            if ref != uid:
                created = self.condition(name, "ReservationCreated")["message"]
                self.assertIn("was bound by another Pod", created, name)
            self.assert_phases_never_go_back(name)
        left = self.sim.get_json(RES_PATH)["items"]
        self.assertEqual([r["metadata"]["name"] for r in left if r["status"].get("phase") != "Succeeded"], [],
                         "no orphan reservation holding capacity")
        for pod in pods:
            self.assertEqual(self.evictions(pod), 1, pod)

    def test_a_drain_completes_while_watches_drop_and_evictions_and_job_creates_fail(self):
        # A watch reads its drop time when it starts: from kubesim's start, so the manager's watches are cut too.
        self.start(3, pod_ready_delay="200ms", watch_drop_every="1s")
        self.sim.kubectl("cordon", "node-1", "node-2")
        self.sim.apply_text(yaml.safe_dump_all([deployment("alpha", 6, "100m"), pdb("alpha", maxUnavailable=1)]))
        self.wait(lambda: sum(1 for p in self.pods("alpha") if ready(p)) == 6, "6 Ready pods")
        originals = [p["metadata"]["name"] for p in self.pods("alpha")]
        self.sim.kubectl("uncordon", "node-1", "node-2")
        self.wait(lambda: (self.sim.get_json(f"{PDBS_PATH}/alpha").get("status") or {}).get("disruptionsAllowed") == 1,
                  "the PDB allowing 1")
        checker, pod_watch, pdb_watch = self.watch_budgets({"alpha": 5})
        self.addCleanup(pdb_watch.stop)
        self.addCleanup(pod_watch.stop)
        self.addCleanup(self.faults_off)
        watches_before = self.manager_pod_watches()
        self.faults(faultRate=0.3, faultCodes=[500, 503, 409], watchDropEverySeconds=1, seed=11,
                    faultTargets=["POST:pods/eviction", "POST:podmigrationjobs", "PATCH:podmigrationjobs/status",
                                  "PATCH:nodes"])
        # kubectl's PATCH of the label meets the faults too: tried again here, a bounded number of times.
        for _ in range(10):
            if self.sim.run(KUBECTL, "label", "--overwrite", "node", "node-0", "berth.dev/drain=true",
                            check=False).returncode == 0:
                break
        else:
            self.fail("kubectl label failed 10 times")
        self.wait(lambda: (self.drain_status("node-0") or {}).get("status") == "Drained", "node-0 Drained", 60)
        self.wait(lambda: sum(1 for p in self.pods("alpha") if ready(p)) == 6, "6 Ready pods after the drain")
        dropped_watches = self.manager_pod_watches() - watches_before
        injected = self.injected()
        self.faults_off()
        pod_watch.stop()
        pdb_watch.stop()
        self.assertEqual(checker.violations, [])
        self.assertEqual(checker.min_healthy["alpha"], 5)
        self.assertGreaterEqual(sum(injected.values()), 1, injected)
        self.assertGreaterEqual(dropped_watches, 3, "the manager's pods watch was cut and resumed")
        for name in originals:
            self.assertEqual(self.evictions(name), 1, name)
        self.assertNotIn("node-0", {p["spec"]["nodeName"] for p in self.pods("alpha")
                                    if not p["metadata"].get("deletionTimestamp")})
        # Drained means no evictable pod is left; a job whose own reservation a sibling's replacement took ends
        # when it credits another replacement of its workload, which may come a little later.
        self.wait(lambda: all((j.get("status") or {}).get("phase") in ("Succeeded", "Failed", "Aborted")
                              for j in self.sim.get_json(PMJ_PATH)["items"]), "every job to end", 30)
        for job in self.sim.get_json(PMJ_PATH)["items"]:
            self.assertEqual(job["status"]["phase"], "Succeeded", job["status"])
            self.assert_phases_never_go_back(job["metadata"]["name"])

    def evict_without_a_status_write(self):
        """A job moving a pod of web (node-0) whose eviction is accepted while every status write of the job fails:
        a filler taking node-1 keeps the reservation unschedulable (written in the job's status) until it is scaled
        away with the faults on. Returns (pod name, job uid) once the audit log shows the accepted eviction."""
        self.sim.kubectl("cordon", "node-1")
        pod = self.start_app("web", 2, "500m", maxUnavailable=1)[0]["metadata"]["name"]
        self.sim.kubectl("uncordon", "node-1")
        self.sim.kubectl("cordon", "node-0")
        self.sim.apply_text(yaml.safe_dump(deployment("filler", 1, "7800m")))
        self.wait(lambda: any(ready(p) for p in self.pods("filler")), "the filler Ready on node-1")
        self.sim.kubectl("uncordon", "node-0")
        job_uid = self.create_job("move-web", pod)
        self.wait(lambda: self.condition("move-web", "ReservationScheduled").get("reason") == "Unschedulable",
                  "the reservation unschedulable, in the job's status")
        self.addCleanup(self.faults_off)
        self.faults(faultRate=1, faultCodes=[500, 409], faultTargets=["PATCH:podmigrationjobs/status"], seed=5)
        self.sim.kubectl("scale", "deployment", "filler", "--replicas=0")
        self.wait(lambda: self.evictions(pod) == 1, "the eviction accepted")
        return pod, job_uid

    def assert_moved_once_through_its_reservation(self, pod, job_uid):
        status = self.job_status("move-web")
        self.assertEqual(status["phase"], "Succeeded", status)
        self.assertEqual(self.condition("move-web", "Eviction")["reason"], "EvictComplete")
        self.assertEqual(self.evictions(pod, accepted_only=False), 1, "no second eviction")
        owned = self.reservations_of(job_uid)
        self.assertEqual([r["metadata"]["name"] for r in owned], [job_uid])
        self.assertEqual(owned[0]["status"]["phase"], "Succeeded")
        self.assertEqual([o["name"] for o in owned[0]["status"]["currentOwners"]], [status["podRef"]["name"]])
        self.assertEqual(len(self.sim.get_json(RES_PATH)["items"]), 1, "no orphan reservation")
        self.assert_phases_never_go_back("move-web")

    def test_a_manager_killed_after_an_unrecorded_eviction_resumes_without_a_second_eviction_or_an_orphan(self):
        self.start(2)
        pod, job_uid = self.evict_without_a_status_write()
        self.mgr.kill()
        self.assertEqual(self.job_status("move-web")["phase"], "Running")
        self.assertNotIn("Eviction", {c["type"] for c in self.job_status("move-web")["conditions"]})
        self.faults_off()
        self.mgr.start()

        self.wait(lambda: self.job_status("move-web").get("phase") in ("Succeeded", "Failed"), "the job ended",
                  timeout=40)
        self.assert_moved_once_through_its_reservation(pod, job_uid)

    def test_a_leader_paused_after_an_unrecorded_eviction_is_fenced_and_the_standby_finishes_the_job(self):
        # Shorter than test_leader_fencing's: the standby leads 3 s after the leader's last renewal.
        self.start(2, managers=2, manager_args=["--leader-elect", "--leader-election-namespace", "default",
                                                "--leader-election-id", LEASE, "--leader-elect-lease-duration", "3s",
                                                "--leader-elect-renew-deadline", "2s",
                                                "--leader-elect-retry-period", "500ms"])
        agents = {f"berth/0.1 ({wait_until(lambda m=m: identity_of(m), timeout=10, message='identity')})": n
                  for n, m in enumerate(self.managers)}
        def leaders():
            try:
                leading = [n for n, m in enumerate(self.managers) if leads(m)]
            except requests.RequestException:  # a manager not serving /metrics yet
                return None
            return leading if len(leading) == 1 else None
        leader = self.wait(leaders, "one leader")[0]
        standby = 1 - leader
        self.mgr = self.managers[leader]  # whose log a timeout shows
        pod, job_uid = self.evict_without_a_status_write()
        old = self.managers[leader]
        old.proc.send_signal(signal.SIGSTOP)
        self.addCleanup(lambda: old.proc.poll() is None and old.proc.send_signal(signal.SIGCONT))
        self.faults_off()
        self.mgr = self.managers[standby]
        self.wait(lambda: leads(self.mgr), "the standby to take the Lease")
        self.wait(lambda: self.job_status("move-web").get("phase") in ("Succeeded", "Failed"), "the job ended",
                  timeout=40)
        old.proc.send_signal(signal.SIGCONT)
        # The old leader finds its fence closed and exits, its remembered eviction never acted on again.
        self.assertEqual(old.proc.wait(timeout=30), 1, old.log_text()[-3000:])
        self.assert_moved_once_through_its_reservation(pod, job_uid)
        lines = self.audit()
        takeover = next(n for n, l in enumerate(lines) if agents.get(l["userAgent"]) == standby
                        and l.get("resource") == "leases" and l["verb"] in ("create", "update") and l["code"] < 300)
        late = [f"{l['verb']} {l.get('resource')}/{l.get('subresource')} {l.get('name')}" for l in lines[takeover + 1:]
                if agents.get(l["userAgent"]) == leader and l["verb"] in MUTATING_VERBS]
        self.assertEqual(late, [], "writes of the paused leader after the standby took over")

    # --- drain helpers

    def drain_status(self, node):
        text = self.sim.get_json(f"/api/v1/nodes/{node}")["metadata"].get("annotations", {}).get("berth.dev/drain-status")
        return json.loads(text) if text else None

    def manager_pod_watches(self):
        return sum(1 for l in self.audit() if l.get("verb") == "watch" and l.get("resource") == "pods"
                   and l.get("userAgent", "").startswith(MANAGER_AGENT_PREFIX))


if __name__ == "__main__":
    unittest.main()
