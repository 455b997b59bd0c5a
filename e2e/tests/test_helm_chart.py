"""The Helm chart (charts/berth) lints, renders, and starts berth-manager with flags it accepts.

Uses Helm 4 from .tools/ (scripts/setup.sh installs it). The chart is checked by rendering, and the
rendered manager command line is run against berth-manager itself; test_helm_install.py installs,
upgrades and uninstalls it against kubesim.
"""
import filecmp
import json
import os
import re
import subprocess
import unittest

import yaml

from kubesim_fixture import BIN, HELM, ROOT, BerthManager, Kubesim, wait_until

CHART = os.path.join(ROOT, "charts", "berth")
PROVREQ_CRD = "autoscaling.x-k8s.io_provisioningrequests.yaml"
PMJ_CRD = "scheduling.koordinator.sh_podmigrationjobs.yaml"
# CRDs shipped as switchable templates fed from files/crds/ (someone else may own them); the rest are in crds/.
TEMPLATED_CRDS = {PROVREQ_CRD: "provisioningRequest.installCRD", PMJ_CRD: "podMigrationJob.installCRD"}


def helm(*args):
    result = subprocess.run([HELM, *args], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"helm {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def render(*sets):
    args = ["template", "r1", CHART, "--namespace", "berth-system"]
    for s in sets:
        args += ["--set", s]
    return [d for d in yaml.safe_load_all(helm(*args)) if d]


def manager_container(docs):
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    return deployment["spec"]["template"]["spec"]["containers"][0]


class HelmChartTest(unittest.TestCase):
    def test_chart_lints_strictly(self):
        out = helm("lint", "--strict", CHART)
        self.assertIn("0 chart(s) failed", out)

    def test_default_render_has_the_manager_rbac_and_metrics_service(self):
        docs = render()
        kinds = sorted(d["kind"] for d in docs)
        self.assertEqual(kinds, ["ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
                                 "CustomResourceDefinition", "Deployment", "Role", "RoleBinding", "Service",
                                 "ServiceAccount"])
        container = manager_container(docs)
        self.assertIn("--controllers=*,migration,provisioningrequest,reservation,scheduler", container["args"])
        self.assertIn("--provisioning-classes=check-capacity.autoscaling.x-k8s.io,"
                      "best-effort-atomic-scale-up.autoscaling.x-k8s.io", container["args"])
        self.assertIn("--leader-elect", container["args"])
        self.assertIn("--leader-election-namespace=berth-system", container["args"])
        self.assertIn("--reservation-gc-duration=24h", container["args"])
        self.assertEqual(container["readinessProbe"]["httpGet"]["path"], "/readyz")
        role = next(d for d in docs if d["kind"] == "ClusterRole")
        granted = {(g, r) for rule in role["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
        for need in [("scheduling.koordinator.sh", "reservations/status"), ("", "pods/binding"), ("", "events")]:
            self.assertIn(need, granted)

    def test_values_switch_leader_election_and_service_monitor(self):
        docs = render("leaderElection.enabled=false", "metrics.serviceMonitor.enabled=true",
                      "reservation.gcDuration=0", "image.digest=sha256:abc")
        kinds = [d["kind"] for d in docs]
        self.assertNotIn("Role", kinds)
        self.assertIn("ServiceMonitor", kinds)
        container = manager_container(docs)
        self.assertNotIn("--leader-elect", container["args"])
        self.assertIn("--reservation-gc-duration=0", container["args"])
        self.assertTrue(container["image"].endswith("@sha256:abc"))

    def test_rendered_command_line_is_accepted_by_berth_manager(self):
        args = manager_container(render("extraArgs={--log-level=debug}"))["args"]
        # --help stops after every earlier flag was parsed: an unknown one exits 2 first.
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *args, "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_chart_crds_are_the_repository_crds(self):
        names = sorted(os.listdir(os.path.join(ROOT, "crds")))
        for templated in TEMPLATED_CRDS:
            self.assertIn(templated, names)
        for name in names:
            # Templated CRDs come from files/crds/; the others are in crds/, which Helm always installs.
            folder = "files/crds" if name in TEMPLATED_CRDS else "crds"
            self.assertTrue(filecmp.cmp(os.path.join(ROOT, "crds", name), os.path.join(CHART, folder, name),
                                        shallow=False), f"charts/berth/{folder}/{name} differs from crds/{name}")
        for templated in TEMPLATED_CRDS:
            self.assertNotIn(templated, os.listdir(os.path.join(CHART, "crds")))

    def test_templated_crds_render_as_the_repository_crds_and_are_kept_on_uninstall(self):
        rendered = {d["metadata"]["name"]: d for d in render() if d["kind"] == "CustomResourceDefinition"}
        for file_name in TEMPLATED_CRDS:
            with open(os.path.join(ROOT, "crds", file_name)) as f:
                source = yaml.safe_load(f)
            crd = rendered[source["metadata"]["name"]]
            self.assertEqual(crd["spec"], source["spec"])
            self.assertEqual(crd["metadata"]["annotations"], {"helm.sh/resource-policy": "keep"})
            self.assertEqual(crd["metadata"]["labels"]["app.kubernetes.io/part-of"], "berth")
        self.assertEqual(sorted(rendered), ["podmigrationjobs.scheduling.koordinator.sh",
                                            "provisioningrequests.autoscaling.x-k8s.io"])
        self.assertEqual(rendered["podmigrationjobs.scheduling.koordinator.sh"]["spec"]["names"]["shortNames"],
                         ["pmj"])

    def test_pod_migration_job_crd_can_be_left_to_koordinator(self):
        docs = render("podMigrationJob.installCRD=false")
        names = [d["metadata"]["name"] for d in docs if d["kind"] == "CustomResourceDefinition"]
        self.assertEqual(names, ["provisioningrequests.autoscaling.x-k8s.io"])
        self.assertIn("--controllers=*,migration,provisioningrequest,reservation,scheduler",
                      manager_container(docs)["args"])

    def test_provisioning_request_crd_can_be_left_to_cluster_autoscaler(self):
        docs = render("provisioningRequest.installCRD=false")
        names = [d["metadata"]["name"] for d in docs if d["kind"] == "CustomResourceDefinition"]
        self.assertEqual(names, ["podmigrationjobs.scheduling.koordinator.sh"])
        # The controller still runs against the CRD someone else installed.
        self.assertIn("--controllers=*,migration,provisioningrequest,reservation,scheduler", manager_container(docs)["args"])

    def test_controller_switches_render_into_controllers_flag_and_rbac(self):
        docs = render("controllers.scheduler.enabled=false", "controllers.provisioningrequest.enabled=false",
                      "provisioningRequest.classes={check-capacity.autoscaling.x-k8s.io}")
        args = manager_container(docs)["args"]
        self.assertIn("--controllers=*,migration,-provisioningrequest,reservation,-scheduler", args)
        self.assertIn("--provisioning-classes=check-capacity.autoscaling.x-k8s.io", args)
        role = next(d for d in docs if d["kind"] == "ClusterRole")
        groups = {g for rule in role["rules"] for g in rule["apiGroups"]}
        self.assertNotIn("autoscaling.x-k8s.io", groups)
        default_role = next(d for d in render() if d["kind"] == "ClusterRole")
        granted = {(g, r) for rule in default_role["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
        self.assertIn(("autoscaling.x-k8s.io", "provisioningrequests/status"), granted)
        self.assertIn(("", "podtemplates"), granted)

    def test_a_controller_switch_that_is_not_a_boolean_fails_the_render(self):
        result = subprocess.run([HELM, "template", "r1", CHART, "--set", "controllers.scheduler.enabled=yes"],
                                capture_output=True, text=True, timeout=60)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("controllers.scheduler.enabled must be true or false, got yes", result.stderr)

    def test_rendered_controller_switches_are_accepted_by_berth_manager(self):
        args = manager_container(render("controllers.scheduler.enabled=false",
                                        "controllers.reservation.enabled=false"))["args"]
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *args, "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)


class DashboardTest(unittest.TestCase):
    """The Grafana dashboard ships in the chart and queries only metrics berth-manager exports."""

    def test_dashboard_configmap_renders_with_the_sidecar_label(self):
        docs = render("grafana.dashboards.enabled=true")
        cm = next(d for d in docs if d["kind"] == "ConfigMap")
        self.assertEqual(cm["metadata"]["labels"]["grafana_dashboard"], "1")
        dashboard = json.loads(cm["data"]["berth-overview.json"])
        self.assertEqual(dashboard["uid"], "berth-overview")
        self.assertNotIn("ConfigMap", [d["kind"] for d in render()])

    def test_every_queried_metric_is_exported_by_berth_manager(self):
        with open(os.path.join(CHART, "dashboards", "berth-overview.json")) as f:
            dashboard = json.load(f)
        exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
        names = set()
        for expr in exprs:
            names |= {m for m in re.findall(r"\b([a-z_][a-z0-9_]*)\{", expr)}
        self.assertGreaterEqual(len(names), 10)
        sim = Kubesim(nodes=1)
        try:
            sim.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
            mgr = BerthManager(sim, extra_args=["--leader-elect", "--leader-election-namespace", "default"])
            try:
                # Some families appear only once observed: expire one reservation so all have samples.
                sim.kubectl("create", "-f", "-", input=json.dumps({
                    "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                    "metadata": {"name": "dash"}, "spec": {"ttl": "1s", "owners": [{"object": {"name": "x"}}],
                    "template": {"spec": {"schedulerName": "none", "containers": [{"name": "c"}]}}}}))
                exported = wait_until(lambda: self._families(mgr) if "berth_reservation_transitions_total"
                                      in self._families(mgr) else None, timeout=15, message="the expiry metrics")
                missing = sorted(n for n in names if n not in exported)
                self.assertEqual(missing, [], "dashboard queries metrics berth-manager does not export")
            finally:
                mgr.stop()
        finally:
            sim.stop()

    @staticmethod
    def _families(mgr):
        return {line.split("{")[0].split(" ")[0] for line in mgr.metrics_text().splitlines()
                if line and not line.startswith("#")}


if __name__ == "__main__":
    unittest.main()
