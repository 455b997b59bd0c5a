"""What the ProvisioningRequest suites share: paths, object builders, one cluster per test class, and helpers
that read and wait on requests, their booking Reservations and pods in NS.

    class MySuite(ProvisioningCluster, ProvisioningHelpers, unittest.TestCase):
        manager_args = ["--provisioning-request-template-grace", "2s"]
        def tearDown(self):
            self.clean()
"""
import json

import yaml

from kubesim_fixture import ClusterPerClass, wait_until

NS = "default"
PR_PATH = f"/apis/autoscaling.x-k8s.io/v1/namespaces/{NS}/provisioningrequests"
PODS_PATH = f"/api/v1/namespaces/{NS}/pods"
RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
CHECK = "check-capacity.autoscaling.x-k8s.io"
ATOMIC = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
CONSUME = "autoscaling.x-k8s.io/consume-provisioning-request"


def pod_template(name, cpu):
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name, "namespace": NS},
            "template": {"spec": {"containers": [{"name": "main", "image": "busybox",
                                                  "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}]}}}


def prov_req(name, pod_sets, parameters=None, cls=CHECK, version="v1"):
    """A ProvisioningRequest of class cls; pod_sets: [(PodTemplate name, count), ...]."""
    spec = {"provisioningClassName": cls,
            "podSets": [{"podTemplateRef": {"name": t}, "count": n} for t, n in pod_sets]}
    if parameters:
        spec["parameters"] = parameters
    return {"apiVersion": f"autoscaling.x-k8s.io/{version}", "kind": "ProvisioningRequest",
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


class ProvisioningCluster(ClusterPerClass):
    """Two nodes of 4 cpu, unless a suite says otherwise."""

    nodes = 2
    sim_flags = {"node-cpu": "4"}


class ProvisioningHelpers:
    """Reading and waiting on ProvisioningRequests, their bookings and pods in NS (needs self.sim and self.mgr)."""

    CONDITION_TIMEOUT = 20  # wait_condition's default, in seconds

    def create(self, *objects):
        self.sim.apply_text(yaml.safe_dump_all(objects))

    def request(self, name):
        r = self.sim.http("GET", f"{PR_PATH}/{name}")
        return r.json() if r.status_code == 200 else None

    def requests(self):
        return self.sim.get_json(PR_PATH)["items"]

    def reservations(self, selector=None):
        params = {"labelSelector": selector} if selector else {}
        return self.sim.http("GET", RES_PATH, params=params).json()["items"]

    def condition(self, obj, ctype):
        for c in (obj or {}).get("status", {}).get("conditions", []):
            if c["type"] == ctype:
                return c
        return None

    def describe(self, name):
        """What a failed wait on the request shows besides berth-manager's log."""
        return f"request: {json.dumps(self.request(name), indent=1)}"

    def wait_condition(self, name, ctype, status, reason=None, timeout=None):
        def check():
            c = self.condition(self.request(name), ctype)
            return c if c and c["status"] == status and (reason is None or c["reason"] == reason) else None
        return self.mgr.wait(check, f"{name} {ctype}={status}/{reason}", timeout or self.CONDITION_TIMEOUT,
                             log_tail=3000, context=lambda: self.describe(name))

    def pod(self, name):
        r = self.sim.http("GET", f"{PODS_PATH}/{name}")
        return r.json() if r.status_code == 200 else None

    def clean(self):
        """Leaves the cluster empty: requests (their finalizer goes once their Reservations are gone), pods and
        templates."""
        self.sim.kubectl("delete", "provisioningrequests", "--all", "--wait=false")
        self.sim.kubectl("delete", "pods", "--all", "--wait=false")
        self.sim.kubectl("delete", "podtemplates", "--all")
        wait_until(lambda: not self.requests() and not self.reservations()
                   and not self.sim.get_json(PODS_PATH)["items"], timeout=20, message="the cluster to be empty")
