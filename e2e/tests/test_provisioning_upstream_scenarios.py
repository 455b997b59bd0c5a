"""ProvisioningRequest scenarios from upstream's docs and tests that the other suites do not cover, with real kubectl.

- Kueue's ProvisioningRequest docs sample (sample-job.yaml through prov-test-config): pods tolerating a
  `nvidia.com/gpu` taint and asking for one GPU each, the Job annotation passed as the parameter
  maxRunDurationSeconds. On a cluster whose only GPU node is tainted, the request is
  Provisioned=True/CapacityIsFound with its booking on that node, and the Job's pods, annotated by Kueue's
  podSetUpdates with the consume and class-name keys, land in it until BookingExpired=True/CapacityBookingConsumed.
- Consumers carrying only the deprecated `cluster-autoscaler.kubernetes.io/` keys consume the booking too (CA's
  pods filter honours both keys).
- Two podSets naming one missing PodTemplate: upstream's errMissingPodTemplates counts it per podSet.
- Cluster Autoscaler's processor-instance routing (supported_classes.go, --check-capacity-processor-instance):
  without an instance, a check-capacity request whose parameters name a processorInstance belongs to that
  instance and is never touched; with --check-capacity-processor-instance team-a, only check-capacity requests
  naming team-a are handled, and best-effort-atomic-scale-up is left alone.
- A cluster whose ProvisioningRequest CRD serves only v1beta1 (Cluster Autoscaler's before 1.31, left in place with
  provisioningRequest.installCRD=false): berth finds v1 not served, reads and writes v1beta1, and the check-capacity
  example is provisioned and consumed as on v1.
"""
import json
import os
import unittest

import yaml

from kubesim_fixture import ROOT, wait_until
from provisioning_fixture import (ATOMIC, CHECK, NS, ProvisioningCluster, ProvisioningHelpers, pod_template,
                                  prov_req)

TESTDATA = os.path.join(ROOT, "e2e", "testdata", "provisioningrequest")
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


class Helpers(ProvisioningHelpers):
    def assert_untouched(self, name):
        obj = self.request(name)
        self.assertIsNotNone(obj, name)
        self.assertNotIn("status", obj, f"{name} got a status")
        self.assertNotIn("finalizers", obj["metadata"], f"{name} got a finalizer")
        self.assertFalse(self.reservations(f"berth.dev/provisioning-request-name={name}"), f"{name} got a booking")


class UpstreamScenariosTest(ProvisioningCluster, Helpers, unittest.TestCase):
    manager_args = ["--provisioning-request-template-grace", "1s"]

    @classmethod
    def set_up_cluster(cls):
        # The one GPU node, tainted as GPU node pools are (the docs' Job tolerates it).
        cls.sim.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-0"},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
            "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "4"},
                       "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "4"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}))

    def tearDown(self):
        self.clean()

    def consumer(self, name, request, annotations, cpu="100m", gpu=None):
        resources = {"requests": {"cpu": cpu, "memory": "100Mi"}}
        spec = {"schedulerName": "koord-scheduler", "restartPolicy": "Never",
                "containers": [{"name": "dummy-job", "image": "registry.k8s.io/e2e-test-images/agnhost:2.53",
                                "args": ["pause"], "resources": resources}]}
        if gpu:
            resources["requests"]["nvidia.com/gpu"] = gpu
            resources["limits"] = {"nvidia.com/gpu": gpu}
            spec["tolerations"] = [GPU_TOLERATION]
        self.create({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": name, "namespace": NS, "annotations": annotations}, "spec": spec})

    def test_kueues_docs_sample_job_is_provisioned_on_the_tainted_gpu_node_and_consumed_by_its_pods(self):
        self.sim.kubectl("create", "-f", os.path.join(TESTDATA, "kueue-sample-job-gpu.yaml"))
        name = "sample-job-gpu-sample-prov-1"
        provisioned = self.wait_condition(name, "Provisioned", "True", "CapacityIsFound")
        self.assertEqual(provisioned["message"], "Capacity is found in the cluster")
        # kubectl wait, as a user (or a script) waits for it.
        out = self.sim.kubectl("wait", "--for=condition=Provisioned", f"provreq/{name}", "--timeout=10s")
        self.assertIn("condition met", out)
        booked = self.reservations(f"berth.dev/provisioning-request-name={name}")
        self.assertEqual([r["spec"]["template"]["spec"]["nodeName"] for r in booked], ["gpu-0"])
        # The maxRunDurationSeconds parameter (GKE's) is carried, not refused.
        self.assertEqual(self.request(name)["spec"]["parameters"], {"maxRunDurationSeconds": "600"})
        self.assertIsNone(self.condition(self.request(name), "Failed"))

        # The Job's pods as Kueue starts them once the check is Ready (podSetUpdates: both annotations).
        kueue_annotations = {"autoscaling.x-k8s.io/consume-provisioning-request": name,
                             "autoscaling.x-k8s.io/provisioning-class-name": CHECK}
        for i in range(3):
            self.consumer(f"sample-job-{i}", name, kueue_annotations, gpu=1)
        for i in range(3):
            pod = wait_until(lambda: (p := self.pod(f"sample-job-{i}")) and p["spec"].get("nodeName") and p,
                             timeout=15, message=f"sample-job-{i} bound")
            self.assertEqual(pod["spec"]["nodeName"], "gpu-0")
        consumed = self.wait_condition(name, "BookingExpired", "True", "CapacityBookingConsumed")
        self.assertEqual(consumed["message"], "Capacity booking consumed: all pods scheduled")
        wait_until(lambda: not self.reservations(), message="the consumed booking to be released")

    def test_a_fourth_gpu_pod_does_not_fit_beside_the_booking(self):
        self.sim.kubectl("create", "-f", os.path.join(TESTDATA, "kueue-sample-job-gpu.yaml"))
        self.wait_condition("sample-job-gpu-sample-prov-1", "Provisioned", "True", "CapacityIsFound")
        # 3 of the node's 4 GPUs are booked: a second request for 2 GPU pods finds 1.
        self.create(prov_req("two-more", [("ppt-sample-job-gpu-sample-prov-1-main", 2)]))
        c = self.wait_condition("two-more", "Provisioned", "False", "CapacityIsNotFound")
        self.assertTrue(c["message"].startswith(
            'Capacity is not found, CA will try to find it later. podSet 0 (podTemplate '
            '"ppt-sample-job-gpu-sample-prov-1-main"): 1 of 2 pods did not fit: '), c["message"])
        self.assertIn("Insufficient nvidia.com/gpu", c["message"])

    def test_consumers_with_the_deprecated_annotation_keys_take_the_booking(self):
        self.create(pod_template("three-cpu", "3"), prov_req("legacy", [("three-cpu", 2)]))
        self.wait_condition("legacy", "Provisioned", "True", "CapacityIsFound")
        legacy = {"cluster-autoscaler.kubernetes.io/consume-provisioning-request": "legacy",
                  "cluster-autoscaler.kubernetes.io/provisioning-class-name": CHECK}
        for i in range(2):
            self.consumer(f"legacy-{i}", "legacy", legacy, cpu="3")
        nodes = {wait_until(lambda: (p := self.pod(f"legacy-{i}")) and p["spec"].get("nodeName"), timeout=15,
                            message=f"legacy-{i} bound") for i in range(2)}
        self.assertEqual(nodes, {"node-0", "node-1"})
        self.wait_condition("legacy", "BookingExpired", "True", "CapacityBookingConsumed")

    def test_a_pod_template_missing_for_two_pod_sets_is_counted_for_each(self):
        self.create(prov_req("twice", [("never-created", 1), ("never-created", 2)]))
        failed = self.wait_condition("twice", "Failed", "True", "FailedToCreatePods", timeout=15)
        self.assertEqual(failed["message"], "missing pod templates, 2 pod templates were referenced, "
                                            "2 templates were missing: never-created,never-created")

    def test_a_request_routed_to_another_processor_instance_is_never_touched(self):
        self.create(pod_template("one-cpu", "1"),
                    prov_req("for-team-a", [("one-cpu", 1)], {"processorInstance": "team-a"}),
                    prov_req("mine", [("one-cpu", 1)]))
        self.wait_condition("mine", "Provisioned", "True", "CapacityIsFound")
        before = self.request("for-team-a")["metadata"]["resourceVersion"]
        self.assert_untouched("for-team-a")
        wait_until(lambda: "ignoring a ProvisioningRequest whose processorInstance is not this instance's"
                   in self.mgr.log_text(), message="the log line naming why")
        self.assertEqual(self.request("for-team-a")["metadata"]["resourceVersion"], before)


class ProcessorInstanceTest(ProvisioningCluster, Helpers, unittest.TestCase):
    """berth-manager --check-capacity-processor-instance team-a: upstream's instance routing."""

    nodes = 1
    manager_args = ["--check-capacity-processor-instance", "team-a"]

    def tearDown(self):
        self.clean()

    def test_only_check_capacity_requests_naming_the_instance_are_handled(self):
        self.create(pod_template("one-cpu", "1"),
                    prov_req("team-a-job", [("one-cpu", 1)], {"processorInstance": "team-a"}),
                    prov_req("team-b-job", [("one-cpu", 1)], {"processorInstance": "team-b"}),
                    prov_req("no-instance", [("one-cpu", 1)]),
                    prov_req("atomic", [("one-cpu", 1)], {"processorInstance": "team-a"}, cls=ATOMIC))
        self.wait_condition("team-a-job", "Provisioned", "True", "CapacityIsFound")
        self.assertEqual(len(self.reservations("berth.dev/provisioning-request-name=team-a-job")), 1)
        for name in ("team-b-job", "no-instance", "atomic"):
            with self.subTest(request=name):
                self.assert_untouched(name)
        # The requests are decided one after another: wait for the atomic one's, then check nothing was written.
        wait_until(lambda: "ignoring a best-effort-atomic-scale-up ProvisioningRequest: a processor instance is set"
                   in self.mgr.log_text(), timeout=10, message="the atomic request's log line")
        for name in ("team-b-job", "no-instance", "atomic"):
            with self.subTest(request=name, after="all decided"):
                self.assert_untouched(name)
        self.assertIn('"check_capacity_processor_instance":"team-a"', self.mgr.log_text())

    def test_an_instance_name_longer_than_a_parameter_can_hold_exits_2(self):
        from kubesim_fixture import BIN
        import subprocess
        result = subprocess.run([os.path.join(BIN, "berth-manager"), "--check-capacity-processor-instance", "x" * 256,
                                 "--kubeconfig", self.sim.kubeconfig], capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("--check-capacity-processor-instance", result.stderr)
        self.assertIn("255", result.stderr)



class V1beta1OnlyCrdTest(Helpers, unittest.TestCase):
    """The CRD of a Cluster Autoscaler before 1.31: v1beta1 served and stored, no v1."""

    @classmethod
    def setUpClass(cls):
        from kubesim_fixture import BerthManager, Kubesim
        cls.sim = Kubesim(nodes=2, node_cpu="4")
        cls.mgr = None
        try:
            crds = os.path.join(ROOT, "crds")
            for name in sorted(os.listdir(crds)):
                path = os.path.join(crds, name)
                if not name.startswith("autoscaling.x-k8s.io_"):
                    cls.sim.kubectl("apply", "-f", path)
                    continue
                with open(path) as f:
                    crd = yaml.safe_load(f)
                v1beta1 = next(v for v in crd["spec"]["versions"] if v["name"] == "v1beta1")
                v1beta1["storage"] = True
                v1beta1.pop("deprecated", None)
                v1beta1.pop("deprecationWarning", None)
                crd["spec"]["versions"] = [v1beta1]
                cls.sim.kubectl("apply", "-f", "-", input=yaml.safe_dump(crd))
            cls.sim.kubectl("wait", "--for=condition=established", "crd/provisioningrequests.autoscaling.x-k8s.io",
                            "--timeout=10s")
            cls.mgr = BerthManager(cls.sim)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.mgr:
            cls.mgr.stop()
        cls.sim.stop()

    def request(self, name):
        r = self.sim.http("GET", f"/apis/autoscaling.x-k8s.io/v1beta1/namespaces/{NS}/provisioningrequests/{name}")
        return r.json() if r.status_code == 200 else None

    def test_the_check_capacity_example_is_provisioned_and_consumed_through_v1beta1(self):
        self.assertEqual(self.sim.http("GET", "/apis/autoscaling.x-k8s.io/v1").status_code, 404, "v1 not served")
        with open(os.path.join(TESTDATA, "check-capacity.yaml")) as f:
            example = f.read().replace("autoscaling.x-k8s.io/v1\n", "autoscaling.x-k8s.io/v1beta1\n")
        self.assertIn("apiVersion: autoscaling.x-k8s.io/v1beta1", example)
        out = self.sim.kubectl("apply", "-f", "-", input=example)
        self.assertIn("provisioningrequest.autoscaling.x-k8s.io/provreq-check-capacity created", out)
        accepted = self.wait_condition("provreq-check-capacity", "Accepted", "True", "Accepted")
        self.assertEqual(accepted["message"], "ProvisioningRequest is accepted by ClusterAutoscaler")
        self.wait_condition("provreq-check-capacity", "Provisioned", "True", "CapacityIsFound")
        self.assertIn("ProvisioningRequest v1 is not served; using the deprecated v1beta1", self.mgr.log_text())
        obj = self.request("provreq-check-capacity")
        self.assertEqual(obj["apiVersion"], "autoscaling.x-k8s.io/v1beta1")
        self.assertIn("berth.dev/provisioning-request-booking", obj["metadata"]["finalizers"])
        self.assertEqual(len(self.reservations("berth.dev/provisioning-request-name=provreq-check-capacity")), 1)
        # Events go out after the status write, from the recorder's own queue: poll for it.
        found = wait_until(lambda: [e for e in self.sim.get_json(f"/api/v1/namespaces/{NS}/events")["items"]
                                    if e["involvedObject"].get("name") == "provreq-check-capacity"
                                    and e["reason"] == "CapacityIsFound"],
                           timeout=10, message="the CapacityIsFound Event")
        self.assertEqual(found[0]["involvedObject"]["apiVersion"], "autoscaling.x-k8s.io/v1beta1")

        # The consumer (the template's pod, annotated) takes the booking; then it is released.
        self.create({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "pi", "namespace": NS,
            "annotations": {"autoscaling.x-k8s.io/consume-provisioning-request": "provreq-check-capacity",
                            "autoscaling.x-k8s.io/provisioning-class-name": CHECK}},
            "spec": {"schedulerName": "koord-scheduler", "restartPolicy": "Never",
                     "containers": [{"name": "pi", "image": "perl", "command": ["/bin/sh"],
                                     "resources": {"limits": {"cpu": "700m", "memory": "500Mi"},
                                                   "requests": {"cpu": "700m", "memory": "500Mi"}}}]}})
        wait_until(lambda: (self.pod("pi") or {}).get("spec", {}).get("nodeName"), timeout=15, message="pi bound")
        self.wait_condition("provreq-check-capacity", "BookingExpired", "True", "CapacityBookingConsumed")
        wait_until(lambda: not self.reservations(), message="the consumed booking to be released")
        # Deleting it goes through the finalizer on v1beta1 too.
        self.sim.kubectl("delete", "provreq", "provreq-check-capacity", "--wait=false")
        wait_until(lambda: self.request("provreq-check-capacity") is None, message="the request deleted")


if __name__ == "__main__":
    unittest.main()
