"""A ProvisioningRequest shaped like Kueue's (issue 10) goes through berth, driven with real kubectl.

e2e/testdata/provisioningrequest/kueue-shaped.yaml is created as Kueue's provisioning admission check
creates it: the `ppt-` PodTemplate and the request `<workload>-<check>-<attempt>`, both controller-owned by
their Workload (a stand-in Workload CRD, kueue-workload-crd.yaml), the PodTemplate first. Then, as Kueue
does, the PodTemplate's controller moves from the Workload to the request. What Kueue reads from the
conditions: Accepted, Provisioned=True/CapacityIsFound (→ the check is Ready and the job's pods get the
consume and class annotations), the booking held until those pods are bound, then
BookingExpired=True/CapacityBookingConsumed (ignored by Kueue once admitted). Deleting the finished
Workload cascades: the request goes once berth has released its booking, then its PodTemplate.
A second attempt that cannot fit (noRetry, from the file) fails with Failed=True/CapacityIsNotFound, which
Kueue retries with a new attempt; Kueue #3957's order (request before its template) still provisions.
"""
import json
import os
import unittest

import yaml

from kubesim_fixture import ROOT, wait_until
from provisioning_fixture import CHECK, NS, ProvisioningCluster, ProvisioningHelpers

TESTDATA = os.path.join(ROOT, "e2e", "testdata", "provisioningrequest")
WL_PATH = f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads"
REQUEST = "job-sample-prov-check-1"
TEMPLATE = "ppt-job-sample-prov-check-1-main"


def owner(kind, api_version, obj):
    return {"apiVersion": api_version, "kind": kind, "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True}


class KueueShapedRequestTest(ProvisioningCluster, ProvisioningHelpers, unittest.TestCase):
    # test_c creates the template after the request and must do so within the grace, which runs from a
    # whole-second creationTimestamp: 15 s leaves room for two kubectl runs and a poll on a loaded machine.
    manager_args = ["--provisioning-request-template-grace", "15s"]

    @classmethod
    def set_up_cluster(cls):
        cls.sim.kubectl("apply", "-f", os.path.join(TESTDATA, "kueue-workload-crd.yaml"))
        cls.sim.kubectl("wait", "--for=condition=established", "crd/workloads.kueue.x-k8s.io")

    def tearDown(self):
        self.sim.kubectl("delete", "workloads", "--all", "--wait=false")
        self.clean()

    # ---- helpers ----
    def kueue_objects(self):
        with open(os.path.join(TESTDATA, "kueue-shaped.yaml")) as f:
            return [d for d in yaml.safe_load_all(f) if d]

    def create_workload(self, name):
        self.sim.apply_text(yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                                            "metadata": {"name": name, "namespace": NS}, "spec": {}}))
        return self.sim.get_json(f"{WL_PATH}/{name}")

    def create_owned(self, obj, workload):
        """kubectl create of one object of the file, controller-owned by the Workload as Kueue creates it."""
        obj = json.loads(json.dumps(obj))
        obj["metadata"]["ownerReferences"] = [owner("Workload", "kueue.x-k8s.io/v1beta2", workload)]
        return self.sim.apply_text(yaml.safe_dump(obj))

    def kueue_condition(self, ctype):
        return self.condition(self.request(REQUEST), ctype)

    # ---- cases ----
    def test_a_kueue_shaped_request_is_provisioned_consumed_and_collected_with_its_workload(self):
        template, request = self.kueue_objects()
        self.assertEqual((template["kind"], request["kind"]), ("PodTemplate", "ProvisioningRequest"))
        self.assertEqual(request["metadata"]["name"], REQUEST)
        workload = self.create_workload("job-sample")
        # Kueue creates the template first (fix for kueue #3957), then the request.
        out = self.create_owned(template, workload) + self.create_owned(request, workload)
        self.assertEqual(out.split("\n")[:2], [f"podtemplate/{TEMPLATE} created",
                                               f"provisioningrequest.autoscaling.x-k8s.io/{REQUEST} created"])
        obj = self.request(REQUEST)
        self.assertEqual(obj["spec"]["parameters"], {"noRetry": "true"})
        # Kueue then moves the template's controller to the request (GC cascades from it).
        self.sim.kubectl("patch", "podtemplate", TEMPLATE, "--type=merge", "-p", json.dumps(
            {"metadata": {"ownerReferences": [owner("ProvisioningRequest", "autoscaling.x-k8s.io/v1", obj)]}}))

        accepted = self.wait_condition(REQUEST, "Accepted", "True", "Accepted")
        self.assertEqual(accepted["message"], "ProvisioningRequest is accepted by ClusterAutoscaler")
        provisioned = self.wait_condition(REQUEST, "Provisioned", "True", "CapacityIsFound")
        self.assertEqual(provisioned["message"], "Capacity is found in the cluster")
        self.assertEqual(provisioned["observedGeneration"], self.request(REQUEST)["metadata"]["generation"])
        self.assertIsNone(self.kueue_condition("Failed"))
        booked = self.sim.kubectl("get", "reservations", "-l", f"berth.dev/provisioning-request-name={REQUEST}",
                                  "-o", "jsonpath={range .items[*]}{.spec.template.spec.nodeName} {end}").split()
        self.assertTrue(booked, "the booking is held by Reservations")
        labels = self.request(REQUEST)["metadata"]["labels"]
        self.assertEqual(labels, {"kueue.x-k8s.io/managed": "true"}, "berth leaves Kueue's labels alone")

        # The job's pods, with the annotations Kueue's podSetUpdates add, land in the booking.
        pod_spec = json.loads(json.dumps(template["template"]["spec"]))
        pod_spec["schedulerName"] = "koord-scheduler"
        for i in range(3):
            self.sim.apply_text(yaml.safe_dump({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": f"job-sample-{i}", "namespace": NS,
                             "annotations": {"autoscaling.x-k8s.io/consume-provisioning-request": REQUEST,
                                             "autoscaling.x-k8s.io/provisioning-class-name": CHECK}},
                "spec": pod_spec}))
        for i in range(3):
            pod = wait_until(lambda: (p := self.pod(f"job-sample-{i}")) and p["spec"].get("nodeName") and p,
                             message=f"job-sample-{i} bound")
            self.assertIn(pod["spec"]["nodeName"], booked)
        expired = self.wait_condition(REQUEST, "BookingExpired", "True", "CapacityBookingConsumed")
        self.assertEqual(expired["message"], "Capacity booking consumed: all pods scheduled")
        wait_until(lambda: not self.reservations(), message="the booking Reservations to be deleted")

        # The Workload finishes and is deleted: the request (after berth's finalizer) and its template follow.
        self.sim.kubectl("delete", "workload", "job-sample", "--wait=false")
        wait_until(lambda: self.request(REQUEST) is None, timeout=20, message="the request collected with its Workload")
        wait_until(lambda: self.sim.http("GET", f"/api/v1/namespaces/{NS}/podtemplates/{TEMPLATE}").status_code == 404,
                   timeout=20, message="the PodTemplate collected with its request")

    def test_b_an_attempt_that_cannot_fit_fails_for_kueue_to_retry(self):
        template, request = self.kueue_objects()
        workload = self.create_workload("job-big")
        template["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3"
        self.create_owned(template, workload)
        self.create_owned(request, workload)  # 3 pods of 3 cpu on two 4-cpu nodes; noRetry "true"
        failed = self.wait_condition(REQUEST, "Failed", "True", "CapacityIsNotFound")
        self.assertTrue(failed["message"].startswith(
            f'CA could not find requested capacity: podSet 0 (podTemplate "{TEMPLATE}"): 1 of 3 pods did not fit'),
            failed["message"])
        self.assertIsNone(self.kueue_condition("Provisioned"),
                          "noRetry: no Provisioned=False backoff for Kueue to wait on")
        self.assertEqual(self.reservations(), [])

    def test_c_a_request_created_before_its_template_waits_for_it(self):
        template, request = self.kueue_objects()
        workload = self.create_workload("job-racy")
        self.create_owned(request, workload)  # kueue #3957's order
        self.wait_condition(REQUEST, "Accepted", "True", "Accepted")
        self.assertIsNone(self.kueue_condition("Failed"), "a missing template is waited for during the grace")
        self.create_owned(template, workload)
        self.wait_condition(REQUEST, "Provisioned", "True", "CapacityIsFound")
        self.assertIsNone(self.kueue_condition("Failed"))


if __name__ == "__main__":
    unittest.main()
