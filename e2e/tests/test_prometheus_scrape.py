"""A real Prometheus (Debian's, on loopback) scrapes berth-manager through a scenario on kubesim; every query of the
Grafana dashboard and every alert of the chart's PrometheusRule then runs through Prometheus' HTTP API.

What it shows: the dashboard's panel queries and template-variable lookups return series (not just parse), Prometheus
evaluates every alert rule without an error, and each metric selector an alert uses (with the alert's own label
matchers, so `job`, `namespace`, `phase`, `state`, `result` and the Lease `name` are what berth-manager exports)
returns data. The scenario makes each of those series exist: a placed and an unplaceable Reservation, one that
expires and is garbage-collected, a ProvisioningRequest waiting for capacity, and a PodMigrationJob whose eviction a
PodDisruptionBudget holds, with some Event POSTs answered 429 by kubesim's fault injection.

Prometheus scrapes every second as job `r1-berth-metrics` with `namespace="berth-system"`, the labels a
ServiceMonitor of release r1 in berth-system gives; berth-manager leads the Lease that release would use.
"""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import requests
import yaml

from kubesim_fixture import HELM, ROOT, BerthManager, Kubesim, free_port, wait_until

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
CHART = os.path.join(ROOT, "charts", "berth")
DASHBOARD = os.path.join(CHART, "dashboards", "berth-overview.json")
JOB, NAMESPACE, LEASE = "r1-berth-metrics", "berth-system", "berth-manager-berth-system-r1"
PMJ_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"
PR_PATH = "/apis/autoscaling.x-k8s.io/v1/namespaces/default/provisioningrequests"
RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
# A metric selector: a name followed by a {...} matcher list (PromQL function names are never followed by '{').
SELECTOR = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}")


def rendered_alert_groups():
    out = subprocess.run([HELM, "template", "r1", CHART, "--namespace", NAMESPACE, "--show-only",
                          "templates/prometheusrule.yaml", "--set", "prometheusRule.enabled=true"],
                         capture_output=True, text=True, timeout=60, check=True)
    rule = next(d for d in yaml.safe_load_all(out.stdout) if d)
    return rule["spec"]["groups"]


def reservation(name, cpu, **spec):
    return {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": name},
            "spec": {"template": {"metadata": {"namespace": "default"},
                                  "spec": {"schedulerName": "koord-scheduler",
                                           "containers": [{"name": "c", "image": "busybox",
                                                           "resources": {"requests": {"cpu": cpu}}}]}},
                     "owners": [{"object": {"name": "owner", "namespace": "default"}}], **spec}}


def scenario_objects():
    app = {"app": "db"}
    return [
        reservation("placed", "3"),
        reservation("too-big", "64"),
        reservation("short-lived", "100m", ttl="2s"),
        {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "batch", "namespace": "default"},
         "template": {"spec": {"containers": [{"name": "c", "image": "busybox",
                                               "resources": {"requests": {"cpu": "3"}}}]}}},
        # Two pods of 3 cpu fit the empty cluster (two nodes of 4) but not beside `placed`: it waits for capacity.
        {"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
         "metadata": {"name": "batch", "namespace": "default"},
         "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
                  "podSets": [{"podTemplateRef": {"name": "batch"}, "count": 2}]}},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "db", "namespace": "default"},
         "spec": {"replicas": 2, "selector": {"matchLabels": app},
                  "template": {"metadata": {"labels": app},
                               "spec": {"schedulerName": "koord-scheduler",
                                        "containers": [{"name": "c", "image": "nginx",
                                                        "resources": {"requests": {"cpu": "100m"}}}]}}}},
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "default"},
         "spec": {"minAvailable": 2, "selector": {"matchLabels": app}}},
    ]


class Prometheus:
    """Debian's prometheus on 127.0.0.1, scraping one target every second and evaluating `rule_groups`."""

    def __init__(self, target, rule_groups):
        self.dir = tempfile.mkdtemp(prefix="berth-prometheus-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        with open(os.path.join(self.dir, "rules.yaml"), "w") as f:
            yaml.safe_dump({"groups": rule_groups}, f)
        config = {"global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                  "rule_files": ["rules.yaml"],
                  "scrape_configs": [{"job_name": JOB, "static_configs": [
                      {"targets": [target], "labels": {"namespace": NAMESPACE}}]}]}
        with open(os.path.join(self.dir, "prometheus.yml"), "w") as f:
            yaml.safe_dump(config, f)
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w")
        self.proc = subprocess.Popen([PROMETHEUS, "--config.file", os.path.join(self.dir, "prometheus.yml"),
                                      "--storage.tsdb.path", os.path.join(self.dir, "data"),
                                      "--web.listen-address", f"127.0.0.1:{self.port}"],
                                     stdout=self.log, stderr=subprocess.STDOUT, cwd=self.dir)
        self.http = requests.Session()
        self.http.trust_env = False

    def api(self, path, **params):
        r = self.http.get(self.url + "/api/v1/" + path, params=params, timeout=10)
        body = r.json()
        if body.get("status") != "success":
            raise AssertionError(f"{path} {params}: {r.status_code} {body}")
        return body["data"]

    def query(self, expr):
        return self.api("query", query=expr)["result"]

    def log_text(self):
        with open(os.path.join(self.dir, "prometheus.log")) as f:
            return f.read()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@unittest.skipUnless(os.path.exists(PROMETHEUS), "prometheus is not installed (scripts/setup.sh installs it)")
class PrometheusScrapeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Some Event POSTs answered 429 (Events are best-effort), so the throttling alert's selector has series.
        cls.sim = Kubesim(nodes=2, **{"node-cpu": "4", "fault-rate": "0.3", "fault-codes": "429",
                                      "fault-target": "POST:events"})
        cls.mgr = cls.prom = None
        try:
            cls.sim.install_crds()
            cls.sim.kubectl("create", "namespace", NAMESPACE)
            cls.mgr = BerthManager(cls.sim, gc_duration="2s", extra_args=[
                "--leader-elect", "--leader-election-namespace", NAMESPACE, "--leader-election-id", LEASE])
            cls.groups = rendered_alert_groups()
            cls.prom = Prometheus(f"127.0.0.1:{cls.mgr.metrics_port}", cls.groups)
            cls.drive_scenario()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.prom:
            cls.prom.stop()
        if cls.mgr:
            cls.mgr.stop()
        cls.sim.stop()

    @classmethod
    def drive_scenario(cls):
        sim = cls.sim

        # Scraping first, so the counters' moves below happen between samples and rate() sees them.
        def targets_up():
            try:
                active = cls.prom.api("targets")["activeTargets"]
            except requests.ConnectionError:
                return False  # still starting
            return active and all(t["health"] == "up" for t in active)
        wait_until(targets_up, timeout=60, interval=0.5, message="Prometheus scraping berth-manager")
        sim.apply_text(yaml.safe_dump_all(scenario_objects()))

        def phase(name):
            r = sim.http("GET", f"{RES_PATH}/{name}")
            return r.json().get("status", {}).get("phase") if r.status_code == 200 else "Deleted"
        wait_until(lambda: phase("placed") == "Available" and phase("too-big") == "Pending", timeout=30,
                   message="one reservation placed, one Pending")
        wait_until(lambda: phase("short-lived") == "Deleted", timeout=30,
                   message="the 2 s reservation expired and garbage-collected")

        def ready_db_pods():
            pods = sim.get_json("/api/v1/namespaces/default/pods?labelSelector=app%3Ddb")["items"]
            return [p for p in pods if any(c["type"] == "Ready" and c["status"] == "True"
                                           for c in p.get("status", {}).get("conditions", []))]
        wait_until(lambda: len(ready_db_pods()) == 2, timeout=30, message="2 Ready pods of db")
        sim.apply_text(yaml.safe_dump({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "PodMigrationJob",
            "metadata": {"name": "move-db"},
            "spec": {"podRef": {"namespace": "default", "name": ready_db_pods()[0]["metadata"]["name"]}}}))

        def eviction_waits():
            r = sim.http("GET", f"{PMJ_PATH}/move-db")
            conditions = r.json().get("status", {}).get("conditions", []) if r.status_code == 200 else []
            return any(c["type"] == "Eviction" and "waits for PodDisruptionBudget default/db" in c.get("message", "")
                       for c in conditions)
        wait_until(eviction_waits, timeout=30, message="the job's eviction held by the PDB")
        wait_until(lambda: cls.mgr.metric("berth_pods_evicted_total", result="blocked_by_pdb",
                                          strategy="PodMigrationJob") >= 1,
                   timeout=30, message="the held eviction counted as blocked_by_pdb")

        # rate() over [5m] needs two samples of a series that moved in between: wait for a transition's rate.
        wait_until(lambda: any(float(s["value"][1]) > 0 for s in cls.prom.query(
            f'rate(berth_reservation_transitions_total{{job="{JOB}"}}[5m])')), timeout=60, interval=0.5,
            message="a non-zero rate of reservation transitions in Prometheus")

    def test_every_dashboard_query_returns_series(self):
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        queries = [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p.get("targets", [])]
        self.assertGreaterEqual(len(queries), 10)
        for title, expr in queries:
            concrete = expr.replace("$job", JOB).replace("$namespace", NAMESPACE)
            with self.subTest(panel=title, expr=concrete):
                series = self.prom.query(concrete)
                self.assertTrue(series, f"{title}: no series for {concrete}")
                for s in series:
                    value = float(s["value"][1])
                    # A quantile over buckets that saw no observation in the window is NaN; anything else is a number.
                    self.assertTrue(math.isnan(value) or math.isfinite(value), s)

    def test_dashboard_variables_find_this_job_and_namespace(self):
        with open(DASHBOARD) as f:
            variables = {v["name"]: v for v in json.load(f)["templating"]["list"]}
        # label_values(metric, label) is Grafana's call of /api/v1/label/<label>/values?match[]=metric.
        for name, expected in (("job", JOB), ("namespace", NAMESPACE)):
            match = re.fullmatch(r"label_values\((.+), (\w+)\)", variables[name]["query"])
            self.assertIsNotNone(match, variables[name]["query"])
            selector = match.group(1).replace("$job", JOB)
            values = self.prom.api(f"label/{match.group(2)}/values", **{"match[]": selector})
            self.assertIn(expected, values)

    def test_prometheus_evaluates_every_alert_rule_without_error(self):
        def evaluated():
            rules = [r for g in self.prom.api("rules")["groups"] for r in g["rules"]]
            return rules if rules and all(r.get("lastEvaluation", "").startswith("20") for r in rules) else None
        rules = wait_until(evaluated, timeout=30, interval=0.5, message="every rule evaluated once")
        names = {r["name"] for r in rules if r["type"] == "alerting"}
        self.assertEqual(names, {r["alert"] for g in self.groups for r in g["rules"]})
        for r in rules:
            with self.subTest(alert=r["name"]):
                self.assertEqual(r["health"], "ok", r.get("lastError"))
        # A healthy leader, so the no-leader alert is quiet while its selector finds the Lease's series.
        no_leader = next(r for r in rules if r["name"] == "BerthNoLeader")
        self.assertEqual(no_leader["state"], "inactive")

    def test_every_metric_selector_of_every_alert_returns_data(self):
        checked = 0
        for group in self.groups:
            for rule in group["rules"]:
                selectors = SELECTOR.findall(rule["expr"])
                self.assertTrue(selectors, rule["alert"])
                for metric, matchers in selectors:
                    selector = f"{metric}{{{matchers}}}"
                    with self.subTest(alert=rule["alert"], selector=selector):
                        self.assertTrue(self.prom.query(selector), f"{rule['alert']}: no series for {selector}")
                        checked += 1
        self.assertGreaterEqual(checked, 10)


if __name__ == "__main__":
    unittest.main()
