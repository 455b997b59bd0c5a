"""Which consumer pods consume a ProvisioningRequest's booking, with real kubectl on kubesim.

Cluster Autoscaler sets BookingExpired/CapacityBookingConsumed when the pods carrying the consume annotation
that are scheduled in its snapshot reach the request's pod count; that snapshot is built from its AllPodLister,
which leaves out Succeeded and Failed pods (cluster-autoscaler/utils/kubernetes/listers.go). So a consumer that
failed does not count: the booking stays for its replacement until the booking time ends.
"""
import unittest

from kubesim_fixture import wait_until
from provisioning_fixture import CONSUME, NS, ProvisioningCluster, ProvisioningHelpers, pod_template, prov_req


class FinishedConsumersTest(ProvisioningCluster, ProvisioningHelpers, unittest.TestCase):
    """Two nodes of 4 cpu; the booking time shortened to 12s so that its end is the other way out."""

    manager_args = ["--provisioning-request-booking-time", "12s"]

    def tearDown(self):
        self.clean()

    def create_consumer(self, name, request):
        self.create({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": name, "namespace": NS, "annotations": {CONSUME: request}},
                     "spec": {"schedulerName": "koord-scheduler", "restartPolicy": "Never",
                              "containers": [{"name": "main", "image": "busybox",
                                              "resources": {"requests": {"cpu": "3", "memory": "100Mi"}}}]}})
        return wait_until(lambda: (p := self.pod(name)) and p["spec"].get("nodeName") and p, message=f"{name} bound")

    def test_a_failed_consumer_does_not_count_toward_consuming_the_booking(self):
        self.create(pod_template("three-cpu", "3"), prov_req("jobs", [("three-cpu", 2)]))
        self.wait_condition("jobs", "Provisioned", "True", "CapacityIsFound")
        self.create_consumer("worker-0", "jobs")
        self.sim.kubectl("patch", "pod", "worker-0", "--subresource=status", "--type=merge",
                         "-p", '{"status":{"phase":"Failed"}}')
        wait_until(lambda: (self.pod("worker-0") or {}).get("status", {}).get("phase") == "Failed",
                   message="worker-0 Failed")
        self.create_consumer("worker-1", "jobs")
        # One live consumer of two: the booking is held until its time ends, not consumed.
        expired = self.wait_condition("jobs", "BookingExpired", "True", timeout=30)
        self.assertEqual((expired["reason"], expired["message"]),
                         ("CapacityReservationTimeExpired", "Capacity reservation time is expired"))


if __name__ == "__main__":
    unittest.main()
