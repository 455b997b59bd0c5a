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
        self.assertEqual(kinds, ["ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Deployment",
                                 "Role", "RoleBinding", "Service", "ServiceAccount"])
        container = manager_container(docs)
        self.assertIn("--controllers=*,provisioningrequest,reservation,scheduler", container["args"])
        self.assertIn("--provisioning-classes=check-capacity.autoscaling.x-k8s.io,"
                      "best-effort-atomic-scale-up.autoscaling.x-k8s.io", container["args"])
        self.assertIn("--leader-elect", container["args"])
        self.assertIn("--leader-election-namespace=berth-system", container["args"])
        self.assertIn("--reservation-gc-duration=24h", container["args"])
        self.assertEqual(container["readinessProbe"]["httpGet"]["path"], "/readyz")
        pod_security = next(d for d in docs if d["kind"] == "Deployment")["spec"]["template"]["spec"]["securityContext"]
        self.assertEqual((pod_security["runAsNonRoot"], pod_security["runAsUser"], pod_security["runAsGroup"]),
                         (True, 65532, 65532))
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
        self.assertIn(PROVREQ_CRD, names)
        for name in names:
            # The ProvisioningRequest CRD is a switchable template fed from files/crds/; the others
            # are in crds/, which Helm always installs.
            folder = "files/crds" if name == PROVREQ_CRD else "crds"
            self.assertTrue(filecmp.cmp(os.path.join(ROOT, "crds", name), os.path.join(CHART, folder, name),
                                        shallow=False), f"charts/berth/{folder}/{name} differs from crds/{name}")
        self.assertNotIn(PROVREQ_CRD, os.listdir(os.path.join(CHART, "crds")))

    def test_provisioning_request_crd_renders_as_the_repository_crd_and_is_kept_on_uninstall(self):
        crd = next(d for d in render() if d["kind"] == "CustomResourceDefinition")
        with open(os.path.join(ROOT, "crds", PROVREQ_CRD)) as f:
            source = yaml.safe_load(f)
        self.assertEqual(crd["spec"], source["spec"])
        self.assertEqual(crd["metadata"]["name"], "provisioningrequests.autoscaling.x-k8s.io")
        self.assertEqual(crd["metadata"]["annotations"], {"helm.sh/resource-policy": "keep"})
        self.assertEqual(crd["metadata"]["labels"]["app.kubernetes.io/part-of"], "berth")

    def test_provisioning_request_crd_can_be_left_to_cluster_autoscaler(self):
        docs = render("provisioningRequest.installCRD=false")
        self.assertNotIn("CustomResourceDefinition", [d["kind"] for d in docs])
        # The controller still runs against the CRD someone else installed.
        self.assertIn("--controllers=*,provisioningrequest,reservation,scheduler", manager_container(docs)["args"])

    def test_controller_switches_render_into_controllers_flag_and_rbac(self):
        docs = render("controllers.scheduler.enabled=false", "controllers.provisioningrequest.enabled=false",
                      "provisioningRequest.classes={check-capacity.autoscaling.x-k8s.io}")
        args = manager_container(docs)["args"]
        self.assertIn("--controllers=*,-provisioningrequest,reservation,-scheduler", args)
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

    def test_cloud_provider_values_render_flags_and_the_client_cert_mount_berth_manager_accepts(self):
        self.assertNotIn("--cloud-provider-grpc-address", " ".join(manager_container(render())["args"]))
        docs = render("provisioningRequest.cloudProvider.address=ca-external-grpc-cloud-provider-service:8086",
                      "provisioningRequest.cloudProvider.tlsSecret=client-cert")
        container = manager_container(docs)
        args = container["args"]
        for flag in ("--cloud-provider-grpc-address=ca-external-grpc-cloud-provider-service:8086",
                     "--cloud-provider-grpc-timeout=5s", "--provisioning-request-scale-up-timeout=15m",
                     "--cloud-provider-grpc-cert=/etc/ssl/client-cert/tls.crt",
                     "--cloud-provider-grpc-key=/etc/ssl/client-cert/tls.key",
                     "--cloud-provider-grpc-cacert=/etc/ssl/client-cert/ca.crt"):
            self.assertIn(flag, args)
        self.assertEqual(container["volumeMounts"], [{"name": "cloud-provider-client-cert",
                                                      "mountPath": "/etc/ssl/client-cert", "readOnly": True}])
        deployment = next(d for d in docs if d["kind"] == "Deployment")
        self.assertEqual(deployment["spec"]["template"]["spec"]["volumes"],
                         [{"name": "cloud-provider-client-cert", "secret": {"secretName": "client-cert"}}])
        # berth-manager parses them (--help stops after parsing; the cert files are read only at start).
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *args, "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)


class ExtenderValuesTest(unittest.TestCase):
    """extender.enabled: the flag, the Service kube-scheduler calls and the example KubeSchedulerConfiguration."""

    def test_extender_is_off_by_default(self):
        docs = render()
        self.assertFalse([d for d in docs if d["metadata"]["name"].endswith(("-extender", "-kube-scheduler-config"))])
        self.assertNotIn("--extender-bind-address", " ".join(manager_container(docs)["args"]))

    def test_extender_renders_the_flag_service_and_a_kube_scheduler_configuration(self):
        docs = render("extender.enabled=true", "extender.ignorable=true")
        container = manager_container(docs)
        self.assertIn("--extender-bind-address=:8888", container["args"])
        self.assertIn({"name": "extender", "containerPort": 8888, "protocol": "TCP"}, container["ports"])
        service = next(d for d in docs if d["kind"] == "Service" and d["metadata"]["name"].endswith("-extender"))
        self.assertEqual(service["spec"]["ports"][0]["targetPort"], "extender")
        cm = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-kube-scheduler-config"))
        config = yaml.safe_load(cm["data"]["config.yaml"])
        self.assertEqual(config["apiVersion"], "kubescheduler.config.k8s.io/v1")
        self.assertEqual(config["kind"], "KubeSchedulerConfiguration")
        self.assertEqual(config["extenders"], [{
            "urlPrefix": f"http://{service['metadata']['name']}.berth-system.svc:8888",
            "filterVerb": "filter", "prioritizeVerb": "prioritize", "weight": 10, "bindVerb": "bind",
            "nodeCacheCapable": True, "httpTimeout": "5s", "ignorable": True}])
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *container["args"], "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_extender_refuses_several_replicas_and_a_disabled_scheduler(self):
        for sets, want in ((["extender.enabled=true", "replicaCount=2"], "extender.enabled needs replicaCount: 1"),
                           (["extender.enabled=true", "controllers.scheduler.enabled=false"],
                            "extender.enabled needs controllers.scheduler.enabled")):
            args = [HELM, "template", "r1", CHART]
            for s_ in sets:
                args += ["--set", s_]
            result = subprocess.run(args, capture_output=True, text=True, timeout=60)
            self.assertNotEqual(result.returncode, 0, sets)
            self.assertIn(want, result.stderr)


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
