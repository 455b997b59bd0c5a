"""berth-manager on a cluster where some of its CRDs are not installed (kubesim, real kubectl).

The PodMigrationJob and ResourcePolicy CRDs are removed before berth starts: the controllers that need the
PodMigrationJob CRD (migration, rescheduler) are not started, each with an error line naming the API, and the others
work: berth is ready and a check-capacity ProvisioningRequest is provisioned. Without this the manager waited for the
PodMigrationJob informer, which can never sync, and no controller started at all.
"""
import os
import unittest

from kubesim_fixture import ROOT, start_cluster_for
from provisioning_fixture import ProvisioningHelpers

TESTDATA = os.path.join(ROOT, "e2e", "testdata", "provisioningrequest")


def remove_optional_crds(sim):
    sim.kubectl("delete", "crd", "podmigrationjobs.scheduling.koordinator.sh", "resourcepolicies.scheduling.sigs.x-k8s.io")


class MissingCrdsTest(ProvisioningHelpers, unittest.TestCase):
    def setUp(self):
        start_cluster_for(self, 2, {"node_cpu": "4"}, setup=remove_optional_crds)  # waits for /readyz

    def test_controllers_whose_crd_is_missing_are_not_started_and_the_others_work(self):
        log = self.mgr.log_text()
        for controller in ("migration", "rescheduler"):
            self.assertRegex(log, r'"msg":"controller not started: the API server does not serve an API it needs[^"]*"'
                                  rf'[^\n]*"controller":"{controller}","api":"scheduling.koordinator.sh/v1alpha1 '
                                  r'podmigrationjobs"')
        self.assertNotIn('"controller":"reservation","api"', log)
        with open(os.path.join(TESTDATA, "check-capacity.yaml")) as f:
            self.sim.kubectl("apply", "-f", "-", input=f.read())
        self.wait_condition("provreq-check-capacity", "Provisioned", "True", "CapacityIsFound")


if __name__ == "__main__":
    unittest.main()
