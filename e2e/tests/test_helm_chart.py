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
import tarfile
import tempfile
import unittest

import yaml

from kubesim_fixture import BIN, HELM, ROOT, BerthManager, Kubesim, wait_until

CHART = os.path.join(ROOT, "charts", "berth")
PROVREQ_NAME = "provisioningrequests.autoscaling.x-k8s.io"
PMJ_NAME = "podmigrationjobs.scheduling.koordinator.sh"


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
        crds = len(os.listdir(os.path.join(ROOT, "crds")))  # every CRD in crds/ is a template
        self.assertEqual(kinds, ["ClusterRole", "ClusterRoleBinding"] + ["CustomResourceDefinition"] * crds + [
                                 "Deployment",
                                 "Pod", "Role", "Role", "RoleBinding", "RoleBinding", "Service",
                                 "ServiceAccount"])  # Pod: helm test; Roles: leader election, rescheduler ConfigMap
        container = manager_container(docs)
        self.assertIn("--controllers=*,migration,provisioningrequest,rescheduler,reservation,resourcepolicy,scheduler", container["args"])
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
        self.assertEqual([d["metadata"]["name"] for d in of_kind(docs, "Role")], ["r1-berth-rescheduler-config"])
        self.assertIn("ServiceMonitor", kinds)
        container = manager_container(docs)
        self.assertNotIn("--leader-elect", container["args"])
        self.assertIn("--reservation-gc-duration=0", container["args"])
        self.assertTrue(container["image"].endswith("@sha256:abc"))

    def test_secure_metrics_values(self):
        docs = render("metrics.secure=true", "metrics.serviceMonitor.enabled=true")
        args = manager_container(docs)["args"]
        self.assertIn("--metrics-secure", args)
        self.assertFalse(any(a.startswith("--metrics-cert-dir") for a in args))
        rules = next(d for d in of_kind(docs, "ClusterRole") if d["metadata"]["name"] == "r1-berth")["rules"]
        self.assertIn({"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]}, rules)
        self.assertIn({"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]},
                      rules)
        reader = next(d for d in of_kind(docs, "ClusterRole") if d["metadata"]["name"] == "r1-berth-metrics-reader")
        self.assertEqual(reader["rules"], [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}])
        endpoint = of_kind(docs, "ServiceMonitor")[0]["spec"]["endpoints"][0]
        self.assertEqual(endpoint["scheme"], "https")
        self.assertEqual(endpoint["tlsConfig"], {"insecureSkipVerify": True})
        hook = of_kind(docs, "Pod")[0]["spec"]["containers"][0]["args"][0]
        self.assertIn("https://r1-berth-metrics.berth-system.svc:8080/metrics", hook)
        self.assertIn("401 Unauthorized", hook)
        # A mounted pair instead of the self-signed one.
        docs = render("metrics.secure=true", "metrics.certSecretName=metrics-tls")
        deploy = of_kind(docs, "Deployment")[0]["spec"]["template"]["spec"]
        self.assertIn("--metrics-cert-dir=/etc/berth/metrics-tls", deploy["containers"][0]["args"])
        self.assertIn({"name": "metrics-tls", "secret": {"secretName": "metrics-tls"}}, deploy["volumes"])
        # Off by default: no review rights, no reader role.
        default = render()
        self.assertNotIn("--metrics-secure", manager_container(default)["args"])
        self.assertEqual([d["metadata"]["name"] for d in of_kind(default, "ClusterRole")], ["r1-berth"])
        names = json.dumps(of_kind(default, "ClusterRole"))
        self.assertNotIn("tokenreviews", names)

    def test_rendered_command_line_is_accepted_by_berth_manager(self):
        args = manager_container(render("extraArgs={--log-level=debug}", "logging.encoder=console",
                                        "logging.timeEncoding=iso8601", "logging.stacktraceLevel=info"))["args"]
        # --help stops after every earlier flag was parsed: an unknown one exits 2 first.
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *args, "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_chart_crds_are_the_repository_crds_through_a_symlink_that_packaging_resolves(self):
        # One source: files/crds is a symlink to the repository's crds/, so a CRD is never edited twice.
        link = os.path.join(CHART, "files", "crds")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.path.realpath(link), os.path.realpath(os.path.join(ROOT, "crds")))
        self.assertFalse(os.path.exists(os.path.join(CHART, "crds")), "Helm's crds/ is never upgraded")
        with tempfile.TemporaryDirectory() as out:
            helm("package", CHART, "--destination", out)
            with tarfile.open(os.path.join(out, "berth-0.1.0.tgz")) as archive:
                packed = {m.name: m for m in archive.getmembers() if m.name.startswith("berth/files/crds/")}
                self.assertEqual(sorted(packed), sorted(f"berth/files/crds/{n}" for n in os.listdir(link)))
                for name, member in packed.items():
                    self.assertTrue(member.isfile(), f"{name} is packaged as a link")
                    with open(os.path.join(ROOT, "crds", os.path.basename(name)), "rb") as f:
                        self.assertEqual(archive.extractfile(member).read(), f.read())

    def test_every_repository_crd_renders_as_a_kept_template(self):
        crds = {d["metadata"]["name"]: d for d in render() if d["kind"] == "CustomResourceDefinition"}
        sources = {}
        for name in os.listdir(os.path.join(ROOT, "crds")):
            with open(os.path.join(ROOT, "crds", name)) as f:
                source = yaml.safe_load(f)
            sources[source["metadata"]["name"]] = source
        self.assertEqual(sorted(crds), sorted(sources))
        self.assertIn("reservations.scheduling.koordinator.sh", crds)
        for name, crd in crds.items():
            self.assertEqual(crd["spec"], sources[name]["spec"])
            self.assertEqual(crd["metadata"]["annotations"], {"helm.sh/resource-policy": "keep"})
            self.assertEqual(crd["metadata"]["labels"]["app.kubernetes.io/managed-by"], "Helm")
        self.assertEqual(crds[PROVREQ_NAME]["metadata"]["labels"]["app.kubernetes.io/part-of"], "berth")

    def test_crds_switches(self):
        def crds(*sets):
            return {d["metadata"]["name"]: d["metadata"] for d in render(*sets)
                    if d["kind"] == "CustomResourceDefinition"}
        self.assertEqual(crds("crds.enabled=false"), {})
        unkept = crds("crds.keep=false")
        self.assertEqual(len(unkept), len(os.listdir(os.path.join(ROOT, "crds"))))
        for meta in unkept.values():
            self.assertNotIn("annotations", meta)
        self.assertNotIn(PROVREQ_NAME, crds("provisioningRequest.installCRD=false"))
        self.assertIn(PMJ_NAME, crds("provisioningRequest.installCRD=false"))
        self.assertNotIn(PMJ_NAME, crds("podMigrationJob.installCRD=false"))
        self.assertIn(PROVREQ_NAME, crds("podMigrationJob.installCRD=false"))
        self.assertEqual(crds()[PMJ_NAME]["annotations"], {"helm.sh/resource-policy": "keep"})
        self.assertEqual(crds("crds.enabled=false", "provisioningRequest.installCRD=true"), {})

    def test_provisioning_request_crd_can_be_left_to_cluster_autoscaler(self):
        docs = render("provisioningRequest.installCRD=false")
        names = [d["metadata"]["name"] for d in docs if d["kind"] == "CustomResourceDefinition"]
        self.assertNotIn(PROVREQ_NAME, names)
        self.assertIn("reservations.scheduling.koordinator.sh", names)
        # The controller still runs against the CRD someone else installed.
        self.assertIn("--controllers=*,migration,provisioningrequest,rescheduler,reservation,resourcepolicy,scheduler", manager_container(docs)["args"])

    def test_controller_switches_render_into_controllers_flag_and_rbac(self):
        docs = render("controllers.scheduler.enabled=false", "controllers.provisioningrequest.enabled=false",
                      "provisioningRequest.classes={check-capacity.autoscaling.x-k8s.io}")
        args = manager_container(docs)["args"]
        self.assertIn("--controllers=*,migration,-provisioningrequest,rescheduler,reservation,resourcepolicy,-scheduler", args)
        self.assertIn("--provisioning-classes=check-capacity.autoscaling.x-k8s.io", args)
        role = next(d for d in docs if d["kind"] == "ClusterRole")
        groups = {g for rule in role["rules"] for g in rule["apiGroups"]}
        self.assertNotIn("autoscaling.x-k8s.io", groups)
        default_role = next(d for d in render() if d["kind"] == "ClusterRole")
        granted = {(g, r) for rule in default_role["rules"] for g in rule["apiGroups"] for r in rule["resources"]}
        self.assertIn(("autoscaling.x-k8s.io", "provisioningrequests/status"), granted)
        self.assertIn(("", "podtemplates"), granted)

    def test_the_rescheduler_switch_its_rbac_and_its_config_map(self):
        docs = render()
        self.assertEqual(of_kind(docs, "ConfigMap"), [])  # managed by the user unless createConfigMap
        args = manager_container(docs)["args"]
        self.assertIn("--rescheduler-config-namespace=berth-system", args)
        self.assertIn("--prefer-avoid-pods-ttl=1h", args)
        self.assertIn("--prefer-avoid-pods-max=32", args)
        role = next(d for d in of_kind(docs, "Role") if d["metadata"]["name"] == "r1-berth-rescheduler-config")
        self.assertEqual(role["metadata"]["namespace"], "berth-system")
        self.assertEqual(role["rules"], [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list", "watch"]}])
        off = render("controllers.rescheduler.enabled=false")
        self.assertIn("--controllers=*,migration,provisioningrequest,-rescheduler,reservation,resourcepolicy,scheduler",
                      manager_container(off)["args"])
        self.assertEqual([d["metadata"]["name"] for d in of_kind(off, "Role")], ["r1-berth-leader-election"])
        def pmj_create_rules(rendered_docs):
            cluster_role = next(d for d in rendered_docs if d["kind"] == "ClusterRole")
            return [r for r in cluster_role["rules"] if "podmigrationjobs" in r["resources"] and "create" in r["verbs"]]
        # The drain (controller migration) creates jobs too; the rescheduler's own grant goes with it.
        self.assertEqual(len(pmj_create_rules(docs)), 2)
        self.assertEqual(len(pmj_create_rules(off)), 1)
        rendered = render("rescheduler.createConfigMap=true", "rescheduler.config.dryRun=true",
                          "rescheduler.config.lowNodeUtilization.enabled=true")
        config_map = of_kind(rendered, "ConfigMap")
        self.assertEqual([c["metadata"]["name"] for c in config_map], ["berth-rescheduler"])
        config = yaml.safe_load(config_map[0]["data"]["config.yaml"])
        self.assertIs(config["dryRun"], True)
        self.assertIs(config["lowNodeUtilization"]["enabled"], True)
        self.assertEqual(config["lowNodeUtilization"]["targetThresholds"], {"cpu": 50, "memory": 50, "pods": 50})
        for bad, where in (("rescheduler.config.dryrun=true", "additional properties 'dryrun' not allowed"),
                           ("rescheduler.config.minImprovement=150", "/rescheduler/config/minImprovement"),
                           ("preferAvoidPods.ttl=1d", "/preferAvoidPods/ttl")):
            with self.subTest(bad=bad):
                self.assertIn(where, render_error("template", "r1", CHART, "--set", bad))

    def test_a_controller_switch_that_is_not_a_boolean_fails_the_render(self):
        # values.schema.json refuses it before the template's own check (berth.controllers) runs.
        result = subprocess.run([HELM, "template", "r1", CHART, "--set", "controllers.scheduler.enabled=yes"],
                                capture_output=True, text=True, timeout=60)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("at '/controllers/scheduler/enabled': got string, want boolean", result.stderr)

    def test_rendered_controller_switches_are_accepted_by_berth_manager(self):
        args = manager_container(render("controllers.scheduler.enabled=false",
                                        "controllers.reservation.enabled=false"))["args"]
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *args, "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_migration_arbitration_values_render_flags_berth_manager_accepts(self):
        defaults = manager_container(render())["args"]
        for flag in ("--migration-default-ttl=5m", "--migration-max-migrating-per-node=2",
                     "--migration-max-migrating-per-namespace=0", "--migration-max-migrating-globally=0",
                     "--migration-skip-check-expected-replicas=false", "--migration-evict-qps=10",
                     "--migration-evict-burst=1", "--migration-reserve-ahead=true",
                     "--migration-eviction-backoff=5s"):
            self.assertIn(flag, defaults)
        # Empty per-workload limits leave berth's default (by expected replicas): no flag at all.
        self.assertFalse([a for a in defaults if a.startswith("--migration-max-migrating-per-workload")])
        args = manager_container(render("podMigrationJob.arbitration.maxMigratingPerWorkload=10%",
                                        "podMigrationJob.arbitration.maxUnavailablePerWorkload=3",
                                        "podMigrationJob.arbitration.skipCheckExpectedReplicas=true",
                                        "podMigrationJob.arbitration.reserveAhead=false",
                                        "podMigrationJob.eviction.burst=5",
                                        "podMigrationJob.eviction.backoff=2s"))["args"]
        for flag in ("--migration-max-migrating-per-workload=10%", "--migration-max-unavailable-per-workload=3",
                     "--migration-skip-check-expected-replicas=true", "--migration-evict-burst=5",
                     "--migration-reserve-ahead=false", "--migration-eviction-backoff=2s"):
            self.assertIn(flag, args)
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *args, "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        for bad, where in (("podMigrationJob.arbitration.maxMigratingPerWorkload=ten", "/podMigrationJob/arbitration/maxMigratingPerWorkload"),
                           ("podMigrationJob.eviction.burst=0", "/podMigrationJob/eviction/burst"),
                           ("podMigrationJob.defaultTTL=5d", "/podMigrationJob/defaultTTL")):
            with self.subTest(bad=bad):
                self.assertIn(where, render_error("template", "r1", CHART, "--set", bad))

    def test_provisioning_request_timer_values_render_flags_berth_manager_accepts(self):
        defaults = manager_container(render())["args"]
        for flag in ("--provisioning-request-booking-time=10m", "--provisioning-request-pending-expiry=168h",
                     "--provisioning-request-terminal-ttl=168h", "--provisioning-request-template-grace=15s",
                     "--provisioning-request-initial-backoff-time=1m",
                     "--provisioning-request-max-backoff-time=10m"):
            self.assertIn(flag, defaults)
        args = manager_container(render("provisioningRequest.bookingTime=30m", "provisioningRequest.pendingExpiry=24h",
                                        "provisioningRequest.terminalTTL=1h", "provisioningRequest.templateGrace=0",
                                        "provisioningRequest.initialBackoffTime=30s",
                                        "provisioningRequest.maxBackoffTime=1h30m"))["args"]
        for flag in ("--provisioning-request-booking-time=30m", "--provisioning-request-pending-expiry=24h",
                     "--provisioning-request-terminal-ttl=1h", "--provisioning-request-template-grace=0",
                     "--provisioning-request-initial-backoff-time=30s",
                     "--provisioning-request-max-backoff-time=1h30m"):
            self.assertIn(flag, args)
        for rendered in (defaults, args):
            result = subprocess.run([os.path.join(BIN, "berth-manager"), *rendered, "--help"],
                                    capture_output=True, text=True, timeout=30)
            self.assertEqual(result.returncode, 0, result.stderr)
        # A value berth-manager would refuse at start fails the render instead.
        for value, message in {"provisioningRequest.bookingTime=10min": "'10min' does not match pattern",
                               "provisioningRequest.templateGrace=-1s": "/provisioningRequest/templateGrace",
                               "provisioningRequest.maxBackoff=10m": "additional properties 'maxBackoff' not allowed"
                               }.items():
            with self.subTest(value=value):
                self.assertIn(message, render_error("template", "r1", CHART, "--set", value))

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


def render_error(*args):
    """helm's stderr for a command that must fail; fails the test if helm succeeds."""
    result = subprocess.run([HELM, *args], capture_output=True, text=True, timeout=60)
    if result.returncode == 0:
        raise AssertionError(f"helm {' '.join(args)} succeeded but should have failed:\n{result.stdout}")
    return result.stdout + result.stderr  # lint reports on stdout


class ValuesValidationTest(unittest.TestCase):
    """values.schema.json and the templates' fail refuse wrong values with a message naming the value."""

    def test_schema_rejects_wrong_types_enums_and_unknown_keys_in_lint_and_template(self):
        cases = {
            "replicaCount=abc": "at '/replicaCount': got string, want integer",
            "scheduler.scoringStrategy=Bogus": "at '/scheduler/scoringStrategy': value must be one of "
                                               "'LeastAllocated', 'MostAllocated'",
            "logLevel=verbose": "at '/logLevel': value must be one of 'debug', 'info', 'warn', 'error'",
            "replicaCuont=2": "additional properties 'replicaCuont' not allowed",
            "metrics.serviceMonitor.intervall=1m": "at '/metrics/serviceMonitor': additional properties "
                                                    "'intervall' not allowed",
            "reservation.gcDuration=1d": "'1d' does not match pattern",
            "metrics.port=70000": "at '/metrics/port': maximum",
            "metrics.secure=yes": "at '/metrics/secure': got string, want boolean",
            "controllers.scheduler.enabled=yes": "at '/controllers/scheduler/enabled': got string, want boolean",
            "logging.encoder=text": "at '/logging/encoder': value must be one of 'json', 'console'",
            "logging.stacktraceLevel=warn": "at '/logging/stacktraceLevel': value must be one of 'info', 'error', "
                                            "'panic'",
            "logging.colour=true": "at '/logging': additional properties 'colour' not allowed",
            "kubeApiContentType=application/yaml": "at '/kubeApiContentType': value must be one of "
                                                   "'application/json', 'application/vnd.kubernetes.protobuf'",
        }
        for value, message in cases.items():
            with self.subTest(value=value):
                self.assertIn(message, render_error("template", "r1", CHART, "--set", value))
                self.assertIn(message, render_error("lint", "--strict", CHART, "--set", value))

    def test_schema_accepts_the_documented_forms(self):
        # 0 disables GC and is an integer when given with --set; durations are Go durations.
        args = manager_container(render("reservation.gcDuration=0", "reservation.ownerSyncInterval=1m30s",
                                        "scheduler.scoringStrategy=MostAllocated", "logLevel=warn",
                                        "controllers.newone.enabled=false"))["args"]
        self.assertIn("--reservation-gc-duration=0", args)
        self.assertIn("--reservation-owner-sync-interval=1m30s", args)
        self.assertIn("--zap-log-level=warn", args)
        self.assertIn("--kube-api-content-type=application/json", args)  # the default
        protobuf = manager_container(render("kubeApiContentType=application/vnd.kubernetes.protobuf"))["args"]
        self.assertIn("--kube-api-content-type=application/vnd.kubernetes.protobuf", protobuf)
        logging = manager_container(render("logging.encoder=console", "logging.timeEncoding=rfc3339nano",
                                           "logging.stacktraceLevel=panic"))["args"]
        self.assertEqual([a for a in logging if a.startswith("--zap-")],
                         ["--zap-log-level=info", "--zap-encoder=console", "--zap-time-encoding=rfc3339nano",
                          "--zap-stacktrace-level=panic"])
        self.assertIn("--controllers=*,migration,-newone,provisioningrequest,rescheduler,reservation,resourcepolicy,scheduler", args)

    def test_more_than_one_replica_without_leader_election_fails(self):
        err = render_error("template", "r1", CHART, "--set", "replicaCount=2", "--set", "leaderElection.enabled=false")
        self.assertIn("replicaCount=2 needs leaderElection.enabled=true", err)
        # helm lint renders `fail` as an INFO log and passes (Helm's lint mode); install and upgrade refuse, as
        # template does: they render the same way.
        # Either alone is fine.
        self.assertEqual(next(d for d in render("replicaCount=2") if d["kind"] == "Deployment")["spec"]["replicas"], 2)
        render("replicaCount=1", "leaderElection.enabled=false")


def of_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


class ChartFurnitureTest(unittest.TestCase):
    """NOTES, the helm test hook, name overrides, an existing ServiceAccount, HA extras, the Lease name."""

    def test_name_overrides_rename_every_object_and_the_selector(self):
        docs = render("nameOverride=capacity")
        deployment = of_kind(docs, "Deployment")[0]
        self.assertEqual(deployment["metadata"]["name"], "r1-capacity")
        self.assertEqual(deployment["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"], "capacity")
        docs = render("fullnameOverride=berth-prod")
        names = {d["kind"]: d["metadata"]["name"] for d in docs if d["kind"] != "CustomResourceDefinition"}
        self.assertEqual(names["Deployment"], "berth-prod")
        self.assertEqual(names["ServiceAccount"], "berth-prod")
        self.assertEqual(names["ClusterRole"], "berth-prod")
        self.assertEqual(names["Service"], "berth-prod-metrics")
        self.assertEqual(names["Role"], "berth-prod-leader-election")

    def test_an_existing_service_account_is_used_and_not_created(self):
        for sets, expected in ((["serviceAccount.create=false", "serviceAccount.name=ops-sa"], "ops-sa"),
                               (["serviceAccount.create=false"], "default")):
            with self.subTest(sets=sets):
                docs = render(*sets)
                self.assertEqual(of_kind(docs, "ServiceAccount"), [])
                spec = of_kind(docs, "Deployment")[0]["spec"]["template"]["spec"]
                self.assertEqual(spec["serviceAccountName"], expected)
                for binding in of_kind(docs, "ClusterRoleBinding") + of_kind(docs, "RoleBinding"):
                    self.assertEqual(binding["subjects"], [{"kind": "ServiceAccount", "name": expected,
                                                            "namespace": "berth-system"}])

    def test_lease_name_is_unique_per_release_and_namespace(self):
        def lease(docs):
            return [a for a in manager_container(docs)["args"] if a.startswith("--leader-election-id=")]
        self.assertEqual(lease(render()), ["--leader-election-id=berth-manager-berth-system-r1"])
        other = [d for d in yaml.safe_load_all(helm("template", "r2", CHART, "--namespace", "team-b")) if d]
        self.assertEqual(lease(other), ["--leader-election-id=berth-manager-team-b-r2"])
        self.assertEqual(lease(render("leaderElection.id=my-lease")), ["--leader-election-id=my-lease"])
        self.assertEqual(lease(render("leaderElection.enabled=false")), [])

    def test_one_replica_has_no_pdb_and_no_default_spread(self):
        docs = render()
        self.assertEqual(of_kind(docs, "PodDisruptionBudget"), [])
        self.assertNotIn("topologySpreadConstraints", of_kind(docs, "Deployment")[0]["spec"]["template"]["spec"])

    def test_several_replicas_get_a_pdb_and_spread_over_nodes_and_zones(self):
        docs = render("replicaCount=3")
        pdb = of_kind(docs, "PodDisruptionBudget")[0]
        deployment = of_kind(docs, "Deployment")[0]
        self.assertEqual(pdb["spec"]["minAvailable"], 1)
        self.assertEqual(pdb["spec"]["selector"], deployment["spec"]["selector"])
        spread = deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
        self.assertEqual([c["topologyKey"] for c in spread], ["kubernetes.io/hostname", "topology.kubernetes.io/zone"])
        for c in spread:
            self.assertEqual(c["labelSelector"]["matchLabels"], deployment["spec"]["selector"]["matchLabels"])
        pdb = of_kind(render("replicaCount=3", "podDisruptionBudget.maxUnavailable=1"), "PodDisruptionBudget")[0]
        self.assertEqual(pdb["spec"], {"maxUnavailable": 1, "selector": pdb["spec"]["selector"]})
        self.assertEqual(of_kind(render("replicaCount=3", "podDisruptionBudget.enabled=false"), "PodDisruptionBudget"),
                         [])
        custom = of_kind(render("replicaCount=2", "topologySpreadConstraints[0].maxSkew=2",
                                "topologySpreadConstraints[0].topologyKey=rack",
                                "topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule"), "Deployment")[0]
        self.assertEqual(custom["spec"]["template"]["spec"]["topologySpreadConstraints"],
                         [{"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"}])

    def test_helm_test_pod_reads_metrics_through_the_service(self):
        # kubesim's simulated kubelet runs no containers (a pod stays Running, never Succeeded), so `helm test`
        # cannot pass there; the hook is checked as rendered.
        pod = of_kind(render(), "Pod")[0]
        self.assertEqual(pod["metadata"]["annotations"]["helm.sh/hook"], "test")
        self.assertEqual(pod["spec"]["restartPolicy"], "Never")
        script = pod["spec"]["containers"][0]["args"][0]
        self.assertIn("http://r1-berth-metrics.berth-system.svc:8080/metrics", script)
        self.assertIn("grep -q '^workqueue_depth'", script)
        self.assertEqual(of_kind(render("test.enabled=false"), "Pod"), [])

    def test_notes_say_how_to_check_the_lease_reservations_and_metrics(self):
        out = helm("install", "--dry-run=client", "r1", CHART, "--namespace", "berth-system")
        notes = out[out.index("NOTES:"):]
        self.assertIn("kubectl -n berth-system get lease berth-manager-berth-system-r1", notes)
        self.assertIn("kubectl get rsv", notes)
        self.assertIn("kubectl -n berth-system port-forward svc/r1-berth-metrics 8080", notes)
        self.assertIn("helm test r1 -n berth-system", notes)
        self.assertIn("Do not install a second release", notes)
        out = helm("install", "--dry-run=client", "r1", CHART, "--namespace", "berth-system",
                   "--set", "leaderElection.enabled=false")
        self.assertNotIn("get lease", out[out.index("NOTES:"):])


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
            "filterVerb": "filter", "prioritizeVerb": "prioritize", "preemptVerb": "preempt", "weight": 13,
            "bindVerb": "bind",
            "nodeCacheCapable": True, "httpTimeout": "5s", "ignorable": True}])
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *container["args"], "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_extender_example_config_is_valid_for_kube_scheduler_and_lets_a_reservation_node_win(self):
        # The keys of kube-scheduler's config/v1 Extender (it decodes its config strictly: another key is an error).
        known = {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb", "enableHTTPS",
                 "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable"}
        for sets in ([], ["extender.bind=false", "extender.ignorable=true"],
                     ["extender.tls.secretName=s", "extender.tls.caData=Q0EK"]):
            docs = render("extender.enabled=true", *sets)
            cm = next(d for d in docs
                      if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-kube-scheduler-config"))
            config = yaml.safe_load(cm["data"]["config.yaml"])
            self.assertEqual(set(config), {"apiVersion", "kind", "profiles", "extenders"}, sets)
            extenders = config["extenders"]
            # validateExtenders: a positive weight with prioritizeVerb, at most one binder; httpTimeout a Go duration.
            for e in extenders:
                self.assertLessEqual(set(e), known, sets)
                if e.get("prioritizeVerb"):
                    self.assertIsInstance(e["weight"], int)
                    self.assertGreater(e["weight"], 0)
                self.assertRegex(e["httpTimeout"], r"^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$")
                self.assertIsInstance(e["nodeCacheCapable"], bool)
            self.assertLessEqual(len([e for e in extenders if e.get("bindVerb")]), 1)
            # berth scores a reservation node MaxExtenderPriority (10) and the others 0; kube-scheduler adds
            # score x weight x (MaxNodeScore 100 / MaxExtenderPriority 10). Its default score plugins' weights:
            in_tree = {"TaintToleration": 3, "NodeAffinity": 2, "PodTopologySpread": 2, "InterPodAffinity": 2,
                       "NodeResourcesFit": 1, "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}
            widest_in_tree_gap = 100 * sum(in_tree.values())
            self.assertGreater(10 * extenders[0]["weight"] * (100 // 10), widest_in_tree_gap, sets)

    def test_extender_tls_mounts_the_secret_and_configures_https(self):
        docs = render("extender.enabled=true", "extender.tls.secretName=berth-extender-tls",
                      "extender.tls.caData=Q0EK")
        container = manager_container(docs)
        self.assertIn("--extender-cert-dir=/etc/berth/extender-tls", container["args"])
        self.assertIn({"name": "extender-tls", "mountPath": "/etc/berth/extender-tls", "readOnly": True},
                      container["volumeMounts"])
        deployment = next(d for d in docs if d["kind"] == "Deployment")
        self.assertIn({"name": "extender-tls", "secret": {"secretName": "berth-extender-tls"}},
                      deployment["spec"]["template"]["spec"]["volumes"])
        cm = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-kube-scheduler-config"))
        extender = yaml.safe_load(cm["data"]["config.yaml"])["extenders"][0]
        self.assertTrue(extender["urlPrefix"].startswith("https://"), extender)
        self.assertTrue(extender["enableHTTPS"])
        self.assertEqual(extender["tlsConfig"], {"caData": "Q0EK"})
        # Without a CA the example still enables HTTPS (kube-scheduler then skips verification).
        docs = render("extender.enabled=true", "extender.tls.secretName=berth-extender-tls")
        cm = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-kube-scheduler-config"))
        extender = yaml.safe_load(cm["data"]["config.yaml"])["extenders"][0]
        self.assertTrue(extender["enableHTTPS"])
        self.assertNotIn("tlsConfig", extender)
        result = subprocess.run([os.path.join(BIN, "berth-manager"), *container["args"], "--help"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_extender_tls_values_are_checked_by_the_schema(self):
        for bad in ("extender.tls.secret=x", "extender.tls.caData=not base64!"):
            result = subprocess.run([HELM, "template", "r1", CHART, "--set", "extender.enabled=true", "--set", bad],
                                    capture_output=True, text=True, timeout=60)
            self.assertNotEqual(result.returncode, 0, bad)
            self.assertIn("values don't meet the specifications of the schema", result.stderr)

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
            # The reservation below names no scheduler berth serves: the flag lets the lifecycle controller expire it.
            mgr = BerthManager(sim, extra_args=["--leader-elect", "--leader-election-namespace", "default",
                                                "--reservation-lifecycle-all-schedulers", "true"])
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
