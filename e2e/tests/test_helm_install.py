"""`helm install` of charts/berth against kubesim, as against a real cluster: Helm 4 stores its release in
a Secret, creates the ServiceAccount, RBAC objects, Service and the manager Deployment; kubesim's Deployment
and ReplicaSet controllers create the pod. kubesim runs no kube-scheduler, so the test binds pending pods
(the binding subresource, as the default scheduler would) and the simulated kubelet makes them Running and
Ready. Then the Deployment is Available, `helm upgrade --wait` rolls it to a new ReplicaSet, and
`helm uninstall --wait` removes everything it created.
"""
import json
import os
import shutil
import subprocess
import tempfile
import threading
import unittest

import yaml

from kubesim_fixture import HELM, ROOT, Kubesim, wait_until

CHART = os.path.join(ROOT, "charts", "berth")
PROVREQ_CRD = "provisioningrequests.autoscaling.x-k8s.io"
RESERVATION_CRD = "reservations.scheduling.koordinator.sh"
PMJ_CRD = "podmigrationjobs.scheduling.koordinator.sh"
NS = "berth-system"
DEPLOY = "berth"  # the chart's fullname for release "berth"


class Binder:
    """Binds every pending pod of NS to node-0 until stopped (kubesim has no default scheduler)."""

    def __init__(self, sim):
        self.sim = sim
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def bind_pending(self):
        pods = self.sim.get_json(f"/api/v1/namespaces/{NS}/pods?fieldSelector=spec.nodeName%3D")["items"]
        for p in pods:
            if p["metadata"].get("deletionTimestamp"):
                continue
            name = p["metadata"]["name"]
            self.sim.http("POST", f"/api/v1/namespaces/{NS}/pods/{name}/binding",
                          json={"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
                                "target": {"apiVersion": "v1", "kind": "Node", "name": "node-0"}})
        return True

    def _run(self):
        while not self.stop_event.wait(0.05):  # poll interval of a scheduler loop, not synchronisation
            self.bind_pending()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_event.set()
        self.thread.join(timeout=5)


class HelmInstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=1)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def helm(self, *args, check=True):
        result = subprocess.run([HELM, "--kubeconfig", self.sim.kubeconfig, *args], capture_output=True, text=True,
                                timeout=120, env=self.sim.env())
        if check and result.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def kubectl(self, *args):
        return self.sim.kubectl(*args)

    def deploy_row(self):
        lines = self.kubectl("get", "deploy", "-n", NS).splitlines()
        return lines[1].split() if len(lines) > 1 else []

    def test_install_status_upgrade_and_uninstall(self):
        out = self.helm("install", "berth", CHART, "--namespace", NS, "--create-namespace")
        self.assertIn("STATUS: deployed", out)

        # Release storage: a Secret of type helm.sh/release.v1, labelled owner=helm.
        secrets = self.kubectl("get", "secrets", "-n", NS, "-l", "owner=helm,name=berth").splitlines()
        self.assertEqual(secrets[1].split()[:3], ["sh.helm.release.v1.berth.v1", "helm.sh/release.v1", "1"])
        # The chart's ServiceAccount next to the namespace's "default" one (serviceaccount controller).
        self.assertEqual(self.kubectl("get", "sa", "-n", NS, "-o", "name").split(),
                         ["serviceaccount/berth", "serviceaccount/default"])
        self.assertEqual(self.kubectl("get", "role,rolebinding", "-n", NS, "-o", "name").split(),
                         ["role.rbac.authorization.k8s.io/berth-leader-election",
                          "rolebinding.rbac.authorization.k8s.io/berth-leader-election"])
        crb = self.kubectl("get", "clusterrolebinding", "berth").splitlines()
        self.assertEqual(crb[0].split(), ["NAME", "ROLE", "AGE"])
        self.assertEqual(crb[1].split()[:2], ["berth", "ClusterRole/berth"])
        # The CRDs are templates of the release (so upgrades reach them), kept on uninstall.
        self.kubectl("wait", "--for=condition=established", f"crd/{RESERVATION_CRD}",
                     f"crd/{PROVREQ_CRD}", f"crd/{PMJ_CRD}", "--timeout=10s")
        for name in (RESERVATION_CRD, PROVREQ_CRD, PMJ_CRD):
            crd = self.sim.get_json(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
            self.assertEqual(crd["metadata"]["annotations"]["meta.helm.sh/release-name"], "berth")
            self.assertEqual(crd["metadata"]["annotations"]["helm.sh/resource-policy"], "keep")
        wide = self.kubectl("get", "clusterrolebinding", "berth", "-o", "wide").splitlines()
        self.assertEqual(wide[0].split()[-1], "SERVICEACCOUNTS")
        self.assertEqual(wide[1].split()[-1], f"{NS}/berth")

        # The Deployment's ReplicaSet made one pod; once bound it runs and the Deployment is Available.
        self.assertEqual(self.deploy_row()[:4], [DEPLOY, "0/1", "1", "0"])
        wait_until(lambda: Binder(self.sim).bind_pending() and self.deploy_row()[:4] == [DEPLOY, "1/1", "1", "1"],
                   timeout=20, message="berth Deployment 1/1 available")
        self.kubectl("wait", "-n", NS, "--for=condition=Available", f"deploy/{DEPLOY}", "--timeout=10s")
        self.assertIn(f'deployment "{DEPLOY}" successfully rolled out',
                      self.kubectl("rollout", "status", f"deployment/{DEPLOY}", "-n", NS, "--timeout=10s"))
        status = self.helm("status", "berth", "--namespace", NS)
        self.assertIn("STATUS: deployed", status)
        self.assertIn("REVISION: 1", status)
        first_rs = self.kubectl("get", "rs", "-n", NS, "-o", "name").split()
        self.assertEqual(len(first_rs), 1)

        # An upgrade that changes the pod template rolls to a new ReplicaSet; --wait waits for it.
        with Binder(self.sim):
            out = self.helm("upgrade", "berth", CHART, "--namespace", NS, "--set", "logLevel=debug", "--wait",
                            "--timeout", "60s")
        self.assertIn("REVISION: 2", out)
        d = self.sim.get_json(f"/apis/apps/v1/namespaces/{NS}/deployments/{DEPLOY}")
        self.assertIn("--zap-log-level=debug", d["spec"]["template"]["spec"]["containers"][0]["args"])
        self.assertEqual(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2")
        wait_until(lambda: self.deploy_row()[:4] == [DEPLOY, "1/1", "1", "1"], timeout=20,
                   message="the upgraded Deployment available")
        rs_rows = {line.split()[0]: line.split()[1:4] for line in self.kubectl("get", "rs", "-n", NS).splitlines()[1:]}
        old = first_rs[0].split("/")[1]
        self.assertEqual(rs_rows.pop(old), ["0", "0", "0"])
        self.assertEqual(list(rs_rows.values()), [["1", "1", "1"]])
        history = self.helm("history", "berth", "--namespace", NS)
        self.assertRegex(history, r"1\s.*superseded")
        self.assertRegex(history, r"2\s.*deployed")

        out = self.helm("uninstall", "berth", "--namespace", NS, "--wait")
        self.assertIn('release "berth" uninstalled', out)
        self.assertEqual(self.helm("list", "--namespace", NS, "-q").strip(), "")
        wait_until(lambda: self.kubectl("get", "deploy,rs,pods,sa,secrets,role,rolebinding,svc", "-n", NS,
                                        "-o", "name").split() == ["serviceaccount/default"], timeout=20,
                   message="the release's objects gone")
        self.assertEqual(self.kubectl("get", "clusterrole,clusterrolebinding", "-o", "name").strip(), "")
        # CRDs outlive the release, so users' requests survive an uninstall.
        self.assertEqual(sorted(self.kubectl("get", "crds", "-o", "name").split()),
                         [f"customresourcedefinition.apiextensions.k8s.io/{PMJ_CRD}",
                          f"customresourcedefinition.apiextensions.k8s.io/{PROVREQ_CRD}",
                          "customresourcedefinition.apiextensions.k8s.io/reservations.scheduling.koordinator.sh",
                          "customresourcedefinition.apiextensions.k8s.io/resourcepolicies.scheduling.sigs.x-k8s.io"])


class HelmUpgradeCrdTest(unittest.TestCase):
    """The CRDs are templates: `helm upgrade` applies a changed CRD (Helm never upgrades a chart's crds/)."""

    def test_upgrade_applies_a_changed_crd(self):
        sim = Kubesim(nodes=1)
        self.addCleanup(sim.stop)
        work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, work)
        chart = os.path.join(work, "berth")
        shutil.copytree(CHART, chart)  # follows files/crds -> crds/, as `helm package` does

        def helm(*args):
            result = subprocess.run([HELM, "--kubeconfig", sim.kubeconfig, *args], capture_output=True, text=True,
                                    timeout=120, env=sim.env())
            self.assertEqual(result.returncode, 0, f"helm {args}: {result.stdout}{result.stderr}")
            return result.stdout

        def printer_columns():
            crd = sim.get_json(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{RESERVATION_CRD}")
            return [c["name"] for c in crd["spec"]["versions"][0].get("additionalPrinterColumns", [])]

        helm("install", "berth", chart, "--namespace", NS, "--create-namespace")
        before = printer_columns()
        self.assertNotIn("Upgraded", before)

        path = os.path.join(chart, "files", "crds", "scheduling.koordinator.sh_reservations.yaml")
        with open(path) as f:
            crd = yaml.safe_load(f)
        crd["spec"]["versions"][0].setdefault("additionalPrinterColumns", []).append(
            {"name": "Upgraded", "type": "string", "jsonPath": ".status.phase"})
        with open(path, "w") as f:
            yaml.safe_dump(crd, f)
        self.assertIn("REVISION: 2", helm("upgrade", "berth", chart, "--namespace", NS))
        self.assertEqual(printer_columns(), before + ["Upgraded"])
        # kubectl prints the new column, from the upgraded CRD's Table.
        sim.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": "r"},
            "spec": {"owners": [{"object": {"name": "x"}}],
                     "template": {"spec": {"schedulerName": "none", "containers": [{"name": "c"}]}}}}))
        self.assertEqual(sim.kubectl("get", "rsv").splitlines()[0].split()[-1], "UPGRADED")


class HelmAdoptsAReservationCrdFromChartCrdsFolderTest(unittest.TestCase):
    """Before the CRDs became templates the chart installed the Reservation CRD from its crds/ folder, without
    Helm ownership metadata. The README's steps (label and annotate the CRD) let the release take it over;
    without them Helm refuses (install and upgrade check ownership alike)."""

    def test_release_adopts_the_crd_after_the_readme_steps(self):
        sim = Kubesim(nodes=1)
        self.addCleanup(sim.stop)
        sim.kubectl("apply", "-f", os.path.join(ROOT, "crds", "scheduling.koordinator.sh_reservations.yaml"))

        def helm(*args):
            return subprocess.run([HELM, "--kubeconfig", sim.kubeconfig, *args], capture_output=True, text=True,
                                  timeout=120, env=sim.env())

        refused = helm("install", "berth", CHART, "--namespace", NS, "--create-namespace")
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn(f'CustomResourceDefinition "{RESERVATION_CRD}" in namespace "" exists and cannot be imported',
                      refused.stderr)
        helm("uninstall", "berth", "--namespace", NS)
        sim.kubectl("label", "crd", RESERVATION_CRD, "app.kubernetes.io/managed-by=Helm")
        sim.kubectl("annotate", "crd", RESERVATION_CRD, "meta.helm.sh/release-name=berth",
                    f"meta.helm.sh/release-namespace={NS}")
        installed = helm("install", "berth", CHART, "--namespace", NS, "--create-namespace")
        self.assertEqual(installed.returncode, 0, installed.stderr)
        crd = sim.get_json(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{RESERVATION_CRD}")
        self.assertEqual(crd["metadata"]["annotations"]["helm.sh/resource-policy"], "keep")
        self.assertEqual(crd["metadata"]["labels"]["app.kubernetes.io/instance"], "berth")


class HelmInstallBesideClusterAutoscalerTest(unittest.TestCase):
    """Where Cluster Autoscaler already installed the ProvisioningRequest CRD, Helm refuses to take it over;
    provisioningRequest.installCRD=false installs berth beside it and leaves it alone."""

    def test_install_skips_a_provisioning_request_crd_someone_else_owns(self):
        sim = Kubesim(nodes=1)
        self.addCleanup(sim.stop)
        sim.kubectl("apply", "-f", os.path.join(ROOT, "crds", "autoscaling.x-k8s.io_provisioningrequests.yaml"))
        before = sim.get_json(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{PROVREQ_CRD}")

        def helm(*args):
            return subprocess.run([HELM, "--kubeconfig", sim.kubeconfig, *args], capture_output=True, text=True,
                                  timeout=120, env=sim.env())

        refused = helm("install", "berth", CHART, "--namespace", NS, "--create-namespace")
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn(PROVREQ_CRD, refused.stderr)
        self.assertIn("cannot be imported into the current release", refused.stderr)
        helm("uninstall", "berth", "--namespace", NS)  # whatever the refused install left behind

        installed = helm("install", "berth", CHART, "--namespace", NS, "--create-namespace",
                         "--set", "provisioningRequest.installCRD=false")
        self.assertEqual(installed.returncode, 0, installed.stderr)
        self.assertIn("STATUS: deployed", installed.stdout)
        after = sim.get_json(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{PROVREQ_CRD}")
        self.assertEqual(after["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"])
        self.assertNotIn("meta.helm.sh/release-name", after["metadata"].get("annotations", {}))


if __name__ == "__main__":
    unittest.main()
