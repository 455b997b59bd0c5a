"""The chart's PrometheusRule: rendered groups pass `promtool check rules` and the unit tests in
prometheus/berth-alerts.test.yaml (`promtool test rules`, one or more per alert), and every alert has a
runbook and queries metric names berth-manager registers.

promtool is Debian's (the prometheus package, scripts/setup.sh).
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import yaml

from kubesim_fixture import HELM, ROOT

CHART = os.path.join(ROOT, "charts", "berth")
UNIT_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prometheus", "berth-alerts.test.yaml")
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
ALERTS = {"BerthReservationsStuckPending", "BerthReservationExpiryLagHigh", "BerthReconcileErrors",
          "BerthWorkQueueGrowing", "BerthNoLeader", "BerthAPIThrottledOrFailing",
          "BerthProvisioningRequestsNotProvisioned", "BerthEvictionsBlockedByPDB"}
# Exported by controllers that have not landed yet; the alert is ready for them.
NOT_YET_REGISTERED = {"berth_pods_evicted_total"}


def render_rule(*sets):
    args = [HELM, "template", "r1", CHART, "--namespace", "berth-system", "--show-only",
            "templates/prometheusrule.yaml", "--set", "prometheusRule.enabled=true"]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    return next(d for d in yaml.safe_load_all(out.stdout) if d)


def rules_of(rule):
    return {r["alert"]: r for g in rule["spec"]["groups"] for r in g["rules"]}


class PrometheusRuleTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.work)

    def promtool(self, *args):
        return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=120, cwd=self.work)

    def write_rules(self, rule):
        path = os.path.join(self.work, "rules.yaml")
        with open(path, "w") as f:
            yaml.safe_dump({"groups": rule["spec"]["groups"]}, f)
        return path

    def test_rule_is_off_by_default_and_labelled_for_the_prometheus_selector(self):
        out = subprocess.run([HELM, "template", "r1", CHART], capture_output=True, text=True, timeout=60)
        self.assertNotIn("kind: PrometheusRule", out.stdout)
        rule = render_rule("prometheusRule.labels.release=kube-prometheus-stack")
        self.assertEqual(rule["metadata"]["labels"]["release"], "kube-prometheus-stack")
        self.assertEqual(rule["metadata"]["namespace"], "berth-system")

    def test_rules_pass_promtool_check(self):
        result = self.promtool("check", "rules", self.write_rules(render_rule()))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"SUCCESS: {len(ALERTS)} rules found", result.stdout)

    def test_every_alert_has_a_runbook_and_queries_this_release_only(self):
        rules = rules_of(render_rule())
        self.assertEqual(set(rules), ALERTS)
        for name, rule in rules.items():
            with self.subTest(alert=name):
                self.assertGreater(len(rule["annotations"]["runbook"]), 80)
                self.assertIn(rule["labels"]["severity"], ("warning", "critical"))
                selectors = re.findall(r"\{([^}]*)\}", rule["expr"])
                self.assertTrue(selectors)
                for selector in selectors:
                    self.assertIn('job="r1-berth-metrics",namespace="berth-system"', selector)

    def test_alerts_query_metrics_berth_manager_registers(self):
        sources = []
        for folder in ("clientgo-shim", "controllers"):
            for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
                for name in files:
                    if name.endswith(".cc"):
                        with open(os.path.join(dirpath, name)) as f:
                            sources.append(f.read())
        registered = set(re.findall(r'Add(?:Counter|Gauge|Histogram)\(\s*"([a-z_]+)"', "\n".join(sources)))
        self.assertIn("workqueue_depth", registered)
        for name, rule in rules_of(render_rule()).items():
            for metric in re.findall(r"\b([a-z_]+)\{", rule["expr"]):
                family = re.sub(r"_bucket$", "", metric)
                if family in NOT_YET_REGISTERED:
                    continue
                self.assertIn(family, registered, f"{name} queries {metric}")

    def test_switches_drop_the_alerts_of_what_is_off(self):
        rules = rules_of(render_rule("leaderElection.enabled=false", "controllers.provisioningrequest.enabled=false"))
        self.assertNotIn("BerthNoLeader", rules)
        self.assertNotIn("BerthProvisioningRequestsNotProvisioned", rules)
        self.assertIn("BerthReservationsStuckPending", rules)

    def test_promtool_unit_tests_of_every_alert_pass(self):
        rules = rules_of(render_rule())
        self.write_rules(render_rule())
        with open(UNIT_TESTS) as f:
            tests = yaml.safe_load(f)
        tested = set()
        for group in tests["tests"]:
            for case in group["alert_rule_test"]:
                tested.add(case["alertname"])
                for alert in case.get("exp_alerts", []):
                    alert["exp_annotations"].setdefault("runbook", rules[case["alertname"]]["annotations"]["runbook"])
        self.assertEqual(tested, ALERTS)
        with open(os.path.join(self.work, "berth-alerts.test.yaml"), "w") as f:
            yaml.safe_dump(tests, f)
        result = self.promtool("test", "rules", "berth-alerts.test.yaml")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("SUCCESS", result.stdout)

    def test_a_broken_expectation_fails_promtool(self):
        # The harness can fail: an alert expected too early is reported.
        self.write_rules(render_rule())
        with open(UNIT_TESTS) as f:
            tests = yaml.safe_load(f)
        group = next(g for g in tests["tests"] if g["name"] == "reservations stuck Pending")
        group["alert_rule_test"][0]["eval_time"] = "13m"
        tests["tests"] = [group]
        with open(os.path.join(self.work, "broken.test.yaml"), "w") as f:
            yaml.safe_dump(tests, f)
        result = self.promtool("test", "rules", "broken.test.yaml")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("BerthReservationsStuckPending", result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
