"""kubesim's simulated default scheduler (--default-scheduler): pods of schedulerName default-scheduler are bound
by resource fit, so `helm install --wait` of charts/berth completes on kubesim as on a cluster; a pod that fits
nowhere stays Pending with kube-scheduler's FailedScheduling message; `kubectl create -f` of a Binding works
through the bindings collection in discovery.

`helm test` is not run here: the chart's test hook runs wget in a container, and kubesim's kubelet runs no
containers (a started pod stays Running and never Succeeds), so the hook cannot honestly pass on kubesim. Its
render is checked by test_helm_chart.py.
"""
import json
import os
import subprocess
import unittest

from kubesim_fixture import HELM, KUBECTL, ROOT, Kubesim, wait_until

CHART = os.path.join(ROOT, "charts", "berth")
NS = "berth-system"


def pod(name, cpu, scheduler=None):
    spec = {"containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}]}
    if scheduler:
        spec["schedulerName"] = scheduler
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


class DefaultSchedulerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=3, node_cpu="2", default_scheduler=True)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def get_pod(self, name, ns="default"):
        return self.sim.get_json(f"/api/v1/namespaces/{ns}/pods/{name}")

    def events_of(self, name, ns="default"):
        items = self.sim.get_json(f"/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.name%3D{name}")["items"]
        return [(e["type"], e["reason"], e["message"], e["source"].get("component")) for e in items]

    def test_helm_install_wait_completes_with_the_manager_pod_running(self):
        result = subprocess.run([HELM, "--kubeconfig", self.sim.kubeconfig, "install", "berth", CHART, "--namespace",
                                 NS, "--create-namespace", "--wait", "--timeout", "60s"],
                                capture_output=True, text=True, timeout=120, env=self.sim.env())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("STATUS: deployed", result.stdout)
        pods = self.sim.get_json(f"/api/v1/namespaces/{NS}/pods?labelSelector=app.kubernetes.io%2Finstance%3Dberth")
        self.assertEqual(len(pods["items"]), 1)
        manager = pods["items"][0]
        self.assertEqual(manager["status"]["phase"], "Running")
        self.assertIn(manager["spec"]["nodeName"], ["node-0", "node-1", "node-2"])
        name = manager["metadata"]["name"]
        self.assertIn(("Normal", "Scheduled", f"Successfully assigned {NS}/{name} to {manager['spec']['nodeName']}",
                       "default-scheduler"), self.events_of(name, NS))
        self.assertIn("STATUS: deployed", self.sim.run(HELM, "status", "berth", "--namespace", NS).stdout)

    def test_unfit_pod_stays_pending_with_kube_schedulers_message_until_capacity_appears(self):
        self.sim.kubectl("create", "-f", "-", input=json.dumps(pod("too-big", "3")))

        def unschedulable():
            conds = self.get_pod("too-big").get("status", {}).get("conditions", [])
            return next((c for c in conds if c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable"), None)
        cond = wait_until(unschedulable, timeout=10, message="PodScheduled=False Unschedulable")
        self.assertEqual(cond["status"], "False")
        self.assertEqual(cond["message"], "0/3 nodes are available: 3 Insufficient cpu.")
        self.assertEqual(self.get_pod("too-big")["status"]["phase"], "Pending")
        self.assertIn(("Warning", "FailedScheduling", "0/3 nodes are available: 3 Insufficient cpu.", "default-scheduler"),
                      self.events_of("too-big"))
        # kubectl shows it as kubectl shows an unschedulable pod on a cluster.
        self.assertIn("0/3 nodes are available: 3 Insufficient cpu.", self.sim.kubectl("describe", "pod", "too-big"))
        # A bigger node joins: the pending pod lands there.
        self.sim.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "big"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}))
        wait_until(lambda: self.get_pod("too-big")["spec"].get("nodeName") == "big", timeout=10,
                   message="too-big bound to the new node")
        wait_until(lambda: self.get_pod("too-big")["status"]["phase"] == "Running", timeout=10, message="Running")

    def test_kubectl_create_binding_binds_a_pod_of_another_scheduler(self):
        self.sim.kubectl("create", "-f", "-", input=json.dumps(pod("manual", "100m", scheduler="my-scheduler")))
        resources = json.loads(self.sim.kubectl("get", "--raw", "/api/v1"))["resources"]
        self.assertIn({"name": "bindings", "singularName": "binding", "namespaced": True, "kind": "Binding",
                       "verbs": ["create"]}, resources)
        # The default scheduler leaves it alone.
        self.assertNotIn("nodeName", self.get_pod("manual")["spec"])
        out = self.sim.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "manual", "namespace": "default"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "node-1"}}))
        # The binding storage answers a Status (201), which kubectl prints as "status/<unknown> created".
        self.assertIn("created", out)
        self.assertEqual(self.get_pod("manual")["spec"]["nodeName"], "node-1")
        again = self.sim.run(KUBECTL, "create", "-f", "-", check=False, input=json.dumps({
            "apiVersion": "v1", "kind": "Binding", "metadata": {"name": "manual", "namespace": "default"},
            "target": {"name": "node-2"}}))
        self.assertNotEqual(again.returncode, 0)
        self.assertIn('pod manual is already assigned to node "node-1"', again.stderr)


class SecureMetricsChartOnKubesimTest(unittest.TestCase):
    """The chart with metrics.secure=true installs and rolls out; its metrics-reader ClusterRole, bound to a scraper's
    ServiceAccount, is what kubesim's SubjectAccessReview (the one berth-manager asks) allows."""

    def test_install_and_the_reader_role_authorises_a_scraper(self):
        sim = Kubesim(nodes=1, default_scheduler=True)
        self.addCleanup(sim.stop)
        result = subprocess.run([HELM, "--kubeconfig", sim.kubeconfig, "install", "berth", CHART, "--namespace", NS,
                                 "--create-namespace", "--set", "metrics.secure=true", "--wait", "--timeout", "60s"],
                                capture_output=True, text=True, timeout=120, env=sim.env())
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        deploy = sim.get_json(f"/apis/apps/v1/namespaces/{NS}/deployments/berth")
        self.assertIn("--metrics-secure", deploy["spec"]["template"]["spec"]["containers"][0]["args"])
        self.assertEqual(deploy["status"].get("availableReplicas"), 1)

        def allowed(user):
            r = sim.http("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json={
                "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                "spec": {"user": user, "groups": ["system:serviceaccounts", "system:authenticated"],
                         "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}})
            self.assertEqual(r.status_code, 201, r.text)
            return r.json()["status"]["allowed"]

        def manager_may_create(group, resource):
            r = sim.http("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json={
                "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                "spec": {"user": f"system:serviceaccount:{NS}:berth", "groups": ["system:serviceaccounts"],
                         "resourceAttributes": {"group": group, "resource": resource, "verb": "create"}}})
            return r.json()["status"]["allowed"]

        scraper = "system:serviceaccount:monitoring:prometheus"
        self.assertFalse(allowed(scraper))
        sim.kubectl("create", "clusterrolebinding", "prometheus-berth-metrics", "--clusterrole=berth-metrics-reader",
                    "--serviceaccount=monitoring:prometheus")
        self.assertTrue(allowed(scraper))
        # The manager's own rights to ask: kubebuilder's metrics_auth_role, in the chart's ClusterRole.
        self.assertTrue(manager_may_create("authentication.k8s.io", "tokenreviews"))
        self.assertTrue(manager_may_create("authorization.k8s.io", "subjectaccessreviews"))
        self.assertFalse(manager_may_create("", "secrets"))


if __name__ == "__main__":
    unittest.main()
