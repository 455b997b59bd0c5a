"""The rescheduler (controllers/rescheduler) on kubesim with berth-manager and real kubectl.

kubesim's Deployment and ReplicaSet controllers make the pods and their replacements, berth's scheduler binds them
(schedulerName koord-scheduler), berth's migration controller executes the PodMigrationJobs the rescheduler creates.
Two nodes of 4 cpu; a Deployment of 6 pods x 500m is started while node-1 is cordoned, so node-0 is at 75% cpu
requests and node-1 at 0% once uncordoned.

- LowNodeUtilization (thresholds cpu 20, targetThresholds cpu 50) moves exactly two pods from node-0 to node-1
  (75% -> 50%), through ReservationFirst jobs; node-0 then records the ReplicaSet in its PreferAvoidPods annotation;
- dry-run reports the same moves (Event WouldReschedule, berth_rescheduler_moves_total{result="dry_run"}) and
  evicts nothing, creates no job;
- preferred node affinity moves a pod whose node satisfies none of its preferredDuringScheduling weight to the node
  that satisfies it, and leaves it there;
- a pod whose PodDisruptionBudget allows no disruption is not moved (no job, no reservation holding capacity); a
  pass plans at most the disruptions the budget allows;
- job creates the API server refuses (500/429/409) are counted as errors and decided again on the next pass;
- a malformed ConfigMap keeps the last good configuration (dry-run reports go on), is reported as a Warning Event
  InvalidConfiguration on the ConfigMap, an error log line and berth_rescheduler_config_valid 0, and a fixed one
  is taken without a restart.
"""
import json
import unittest

import yaml

from kubesim_fixture import start_cluster_for
from workloads import ready

PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"
CONFIG_NAMESPACE = "berth-system"
AVOID_ANNOTATION = "scheduler.alpha.kubernetes.io/preferAvoidPods"


def config_map(text):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "berth-rescheduler", "namespace": CONFIG_NAMESPACE},
            "data": {"config.yaml": text}}


def lnu_config(dry_run):
    return yaml.safe_dump({
        "dryRun": dry_run, "interval": "1s", "cooldown": "10m", "minImprovement": 5,
        "limits": {"maxPodsPerCycle": 5, "maxPodsPerNode": 0, "maxActiveJobs": 10},
        "lowNodeUtilization": {"enabled": True, "thresholds": {"cpu": 20}, "targetThresholds": {"cpu": 50}}})


def create_config_namespace(sim):
    sim.kubectl("create", "namespace", CONFIG_NAMESPACE)


class ReschedulerTest(unittest.TestCase):
    def setUp(self):
        start_cluster_for(self, 2, {"node_cpu": "4"}, setup=create_config_namespace,
                          extra_args=["--log-level", "debug", "--rescheduler-config-namespace", CONFIG_NAMESPACE])
        self.start_hot_node()

    def wait(self, predicate, message, timeout=30):
        return self.mgr.wait(predicate, message, timeout, log_tail=6000)

    def ready_pods(self):
        pods = self.sim.get_json("/api/v1/namespaces/default/pods?labelSelector=app%3Dweb")["items"]
        return [p for p in pods if ready(p)]

    def per_node(self):
        out = {}
        for p in self.ready_pods():
            out[p["spec"]["nodeName"]] = out.get(p["spec"]["nodeName"], 0) + 1
        return out

    def jobs(self):
        return self.sim.get_json(PMJ_PATH)["items"]

    def events(self, reason):
        out = self.sim.kubectl("get", "events", "-A", "--field-selector", f"reason={reason}", "-o", "json")
        return json.loads(out)["items"]

    def apply_config(self, text):
        self.sim.apply_text(yaml.safe_dump(config_map(text)), verb="apply")

    def start_hot_node(self):
        self.sim.kubectl("cordon", "node-1")
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
                      "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}},
                               "template": {"metadata": {"labels": {"app": "web"}},
                                            "spec": {"schedulerName": "koord-scheduler",
                                                     "containers": [{"name": "c", "image": "nginx",
                                                                     "resources": {"requests": {"cpu": "500m"}}}]}}}}
        self.sim.apply_text(yaml.safe_dump(deployment))
        self.wait(lambda: self.per_node() == {"node-0": 6}, "6 Ready pods on node-0")
        self.sim.kubectl("uncordon", "node-1")
        self.original = {p["metadata"]["uid"] for p in self.ready_pods()}

    def test_low_node_utilization_moves_pods_from_the_hot_node_to_the_cold_one(self):
        self.apply_config(lnu_config(dry_run=False))
        self.wait(lambda: len(self.jobs()) == 2 and all(j.get("status", {}).get("phase") == "Succeeded"
                                                        for j in self.jobs()),
                  "two PodMigrationJobs Succeeded", timeout=90)
        self.wait(lambda: self.per_node() == {"node-0": 4, "node-1": 2}, "4 pods on node-0 and 2 on node-1")
        reasons = []
        for job in self.jobs():
            annotations = job["metadata"]["annotations"]
            self.assertEqual(annotations["koordinator.sh/evict-trigger"], "LowNodeUtilization")
            self.assertEqual(annotations["koordinator.sh/job-created-by"], "berth-rescheduler")
            reasons.append(annotations["koordinator.sh/evict-reason"])
            self.assertEqual(job["spec"]["mode"], "ReservationFirst")
            self.assertEqual(job["status"]["nodeName"], "node-1")
        self.assertTrue(any("node node-0 is over its targetThresholds (cpu 75% > 50%)" in r for r in reasons), reasons)
        # The moved pods' ReplicaSet is recorded on the node they left.
        node0 = self.sim.get_json("/api/v1/nodes/node-0")
        avoid = json.loads(node0["metadata"]["annotations"][AVOID_ANNOTATION])["preferAvoidPods"]
        self.assertEqual(len(avoid), 1)
        self.assertEqual(avoid[0]["podSignature"]["podController"]["kind"], "ReplicaSet")
        # Stable: a pass after the moves finds node-1 no longer under its threshold and plans nothing more.
        mark = len(self.mgr.log_text())
        self.wait(lambda: "LowNodeUtilization: no node is under its thresholds" in self.mgr.log_text()[mark:],
                  "a later pass that finds no under-utilised node")
        self.assertEqual(len(self.jobs()), 2)
        self.assertEqual(self.mgr.metric("berth_rescheduler_moves_total", strategy="LowNodeUtilization",
                                         result="created"), 2.0)

    def test_failed_job_creates_are_counted_and_decided_again_on_the_next_pass(self):
        r = self.sim.http("PUT", "/kubesim/admin/faults",
                          json={"faultRate": 1, "faultCodes": [500, 429, 409], "faultTargets": ["POST:podmigrationjobs"]})
        self.assertEqual(r.status_code, 200, r.text)
        self.apply_config(lnu_config(dry_run=False))
        errors = lambda: self.mgr.metric("berth_rescheduler_moves_total", strategy="LowNodeUtilization", result="error")
        self.wait(lambda: errors() >= 2, "job creates refused by the API server", timeout=90)
        self.assertEqual(self.jobs(), [])
        self.assertIn("creating the PodMigrationJob of pod", self.mgr.log_text())
        self.assertEqual(self.per_node(), {"node-0": 6})
        r = self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0})
        self.assertEqual(r.status_code, 200, r.text)
        self.wait(lambda: self.per_node() == {"node-0": 4, "node-1": 2}, "the moves once creates succeed", timeout=90)
        self.assertEqual(len(self.jobs()), 2)

    def test_a_budget_that_allows_no_disruption_stops_the_moves_until_it_allows_them(self):
        pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"minAvailable": 6, "selector": {"matchLabels": {"app": "web"}}}}
        self.sim.apply_text(yaml.safe_dump(pdb))
        self.wait(lambda: self.sim.get_json("/apis/policy/v1/namespaces/default/poddisruptionbudgets/web")
                  .get("status", {}).get("currentHealthy") == 6, "the budget's status")
        mark = len(self.mgr.log_text())
        self.apply_config(lnu_config(dry_run=False))
        self.wait(lambda: "PodDisruptionBudget default/web allows no disruption now" in self.mgr.log_text()[mark:],
                  "a pass that leaves the pods to their budget")
        self.assertEqual(self.jobs(), [], "no job (and no reservation holding capacity) for a move the budget forbids")
        # One disruption allowed: each pass moves at most one pod of the budget, so the two moves come one by one.
        self.sim.kubectl("patch", "pdb", "web", "--type=merge", "-p", '{"spec":{"minAvailable":5}}')
        self.wait(lambda: self.per_node() == {"node-0": 4, "node-1": 2}, "the two moves once the budget allows",
                  timeout=120)
        self.assertEqual(len(self.jobs()), 2)

    def test_dry_run_reports_the_moves_and_evicts_nothing(self):
        self.apply_config(lnu_config(dry_run=True))
        self.wait(lambda: self.mgr.metric("berth_rescheduler_moves_total", strategy="LowNodeUtilization",
                                          result="dry_run") >= 4, "two dry-run passes of two moves each")
        would = self.events("WouldReschedule")
        self.assertTrue(would)
        self.assertTrue(all(e["involvedObject"]["kind"] == "Pod" and "dry run" in e["message"] for e in would))
        self.assertIn("dry run: would reschedule pod", self.mgr.log_text())
        self.assertEqual(self.jobs(), [])
        self.assertEqual({p["metadata"]["uid"] for p in self.ready_pods()}, self.original)
        self.assertEqual(self.per_node(), {"node-0": 6})

    def test_a_malformed_config_map_keeps_the_last_good_configuration(self):
        self.apply_config(lnu_config(dry_run=True))
        dry_runs = lambda: self.mgr.metric("berth_rescheduler_moves_total", strategy="LowNodeUtilization",
                                           result="dry_run")
        self.wait(lambda: dry_runs() >= 2, "the good configuration in force")
        self.assertEqual(self.mgr.metric("berth_rescheduler_config_valid"), 1.0)

        self.apply_config("lowNodeUtilization: {enabled: true, thresholds: {cpu: abc}, targetThresholds: {cpu: 50}}\n")
        self.wait(lambda: self.events("InvalidConfiguration"), "the InvalidConfiguration Event")
        event = self.events("InvalidConfiguration")[0]
        self.assertEqual(event["type"], "Warning")
        self.assertEqual(event["involvedObject"]["kind"], "ConfigMap")
        self.assertEqual(event["involvedObject"]["name"], "berth-rescheduler")
        self.assertIn("config.yaml: lowNodeUtilization.thresholds.cpu: must be a number from 0 to 100",
                      event["message"])
        self.assertEqual(self.mgr.metric("berth_rescheduler_config_valid"), 0.0)
        self.assertIn("malformed ConfigMap: keeping the last good configuration", self.mgr.log_text())
        # The last good configuration (dry-run LowNodeUtilization) is still in force: reports go on.
        before = dry_runs()
        self.wait(lambda: dry_runs() > before, "dry-run passes after the malformed ConfigMap")
        self.assertEqual(self.jobs(), [])

        # A fixed ConfigMap is taken without a restart: dry-run off, so the moves now happen.
        self.apply_config(lnu_config(dry_run=False))
        self.wait(lambda: self.mgr.metric("berth_rescheduler_config_valid") == 1.0, "the fixed ConfigMap taken")
        self.wait(lambda: len(self.jobs()) == 2, "two PodMigrationJobs once dry-run is off", timeout=60)
        self.assertEqual(self.mgr.runs, 1)


class PreferredNodeAffinityTest(unittest.TestCase):
    def setUp(self):
        # The Deployment has one replica: koordinator's arbitration holds a single-replica workload's
        # job (ExpectedReplicas) unless this flag lets it through.
        start_cluster_for(self, 2, {"node_cpu": "4"}, setup=create_config_namespace,
                          extra_args=["--log-level", "debug", "--rescheduler-config-namespace", CONFIG_NAMESPACE,
                                      "--migration-skip-check-expected-replicas=true"])

    def pods(self):
        pods = self.sim.get_json("/api/v1/namespaces/default/pods?labelSelector=app%3Dpref")["items"]
        return [p for p in pods if ready(p)]

    def wait(self, predicate, message, timeout=30):
        return self.mgr.wait(predicate, message, timeout, log_tail=6000)

    def test_a_pod_moves_to_the_node_that_satisfies_its_preferred_affinity(self):
        self.sim.kubectl("label", "node", "node-1", "zone=west")
        self.sim.kubectl("cordon", "node-1")
        affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["west"]}]}}]}}
        deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "pref", "namespace": "default"},
                      "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "pref"}},
                               "template": {"metadata": {"labels": {"app": "pref"}},
                                            "spec": {"schedulerName": "koord-scheduler", "affinity": affinity,
                                                     "containers": [{"name": "c", "image": "nginx",
                                                                     "resources": {"requests": {"cpu": "100m"}}}]}}}}
        self.sim.apply_text(yaml.safe_dump(deployment))
        self.wait(lambda: [p["spec"]["nodeName"] for p in self.pods()] == ["node-0"], "the pod on node-0")
        self.sim.kubectl("uncordon", "node-1")
        self.sim.apply_text(yaml.safe_dump(config_map(yaml.safe_dump({
            "interval": "1s", "minImprovement": 50, "preferredNodeAffinity": {"enabled": True}}))), verb="apply")
        self.wait(lambda: [p["spec"]["nodeName"] for p in self.pods()] == ["node-1"], "the pod on node-1", timeout=60)
        jobs = self.sim.get_json(PMJ_PATH)["items"]
        self.assertEqual(len(jobs), 1)
        self.assertEqual(jobs[0]["metadata"]["annotations"]["koordinator.sh/evict-trigger"], "PreferredNodeAffinity")
        self.wait(lambda: self.sim.get_json(
            f"{PMJ_PATH}/{jobs[0]['metadata']['name']}").get("status", {}).get("phase") == "Succeeded",
                  "the job Succeeded")
        # On its best node the pod is left alone: later passes create no job.
        mark = self.mgr.metric("berth_rescheduler_moves_total", strategy="PreferredNodeAffinity", result="created")
        self.assertEqual(mark, 1.0)
        log_mark = len(self.mgr.log_text())
        self.wait(lambda: self.mgr.log_text()[log_mark:].count("rescheduling pass planned") >= 2,
                  "two later passes")
        self.assertEqual(len(self.sim.get_json(PMJ_PATH)["items"]), 1)


if __name__ == "__main__":
    unittest.main()
