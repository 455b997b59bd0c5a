"""The Reservation user guide (shared/seeds/reservation-user-guide.md) against kubesim with real kubectl: every
Reservation, Pod and Deployment YAML of the guide is accepted verbatim (e2e/testdata/), `get -o wide` prints the
CRD's printer columns, ttl defaults to 24h, and the CRD schema's validation refuses what it must."""
import datetime
import json
import os
import unittest

import yaml

from kubesim_fixture import KUBECTL, KUBECTL134, ROOT, SimPerClass, kubectl_table

KUBECTLS = (("v1.32", KUBECTL), ("v1.34", KUBECTL134))
TESTDATA = os.path.join(ROOT, "e2e", "testdata")


def testdata(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return f.read()


class ReservationUserGuide(SimPerClass, unittest.TestCase):
    def get_wide(self, kubectl, name):
        out = self.sim.run(kubectl, "get", "reservation", name, "-o", "wide").stdout
        names, rows = kubectl_table(out)
        self.assertEqual(names, ["NAME", "PHASE", "AGE", "NODE", "TTL", "EXPIRES"])
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["NAME"], name)
        return rows[0]

    def test_quick_start_then_advanced_example_are_created_verbatim(self):
        out = self.sim.run(KUBECTL, "create", "-f", os.path.join(TESTDATA, "reservation-demo.yaml")).stdout
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-demo created")
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                row = self.get_wide(kubectl, "reservation-demo")
                self.assertEqual(row["TTL"], "1h")
                self.assertEqual(row["EXPIRES"], "")
                self.assertRegex(row["AGE"], r"^\d+s$")
        obj = json.loads(self.sim.kubectl("get", "reservation", "reservation-demo", "-o", "json"))
        self.assertEqual(obj["spec"]["owners"], [{"object": {"name": "pod-demo-0", "namespace": "default"}}])
        self.assertEqual(obj["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"],
                         {"cpu": "500m", "memory": "800Mi"})
        self.assertNotIn("namespace", obj["metadata"])  # cluster-scoped
        # The guide's pod for it is accepted verbatim.
        out = self.sim.run(KUBECTL, "create", "-f", os.path.join(TESTDATA, "pod-demo-0.yaml")).stdout
        self.assertEqual(out.strip(), "pod/pod-demo-0 created")
        # Cleanup as in the guide, then the advanced example (same name) with a real future `expires`.
        out = self.sim.kubectl("delete", "reservation", "reservation-demo")
        self.assertEqual(out.strip(), 'reservation.scheduling.koordinator.sh "reservation-demo" deleted')
        self.assertEqual(self.sim.kubectl("get", "pod", "pod-demo-0", "-o", "name").strip(), "pod/pod-demo-0")
        expires = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=3)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")
        text = testdata("reservation-advanced.yaml")
        self.assertIn('expires: "YYYY-MM-DDTHH:MM:SSZ"', text)
        out = self.sim.apply_text(text.replace("YYYY-MM-DDTHH:MM:SSZ", expires), binary=KUBECTL134)
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-demo created")
        row = self.get_wide(KUBECTL, "reservation-demo")
        self.assertEqual(row["TTL"], "1h")
        self.assertEqual(row["EXPIRES"], expires)
        obj = json.loads(self.sim.kubectl("get", "rsv", "reservation-demo", "-o", "json"))
        self.assertEqual(len(obj["spec"]["owners"]), 2)
        self.assertEqual(obj["spec"]["owners"][1], {"labelSelector": {"matchLabels": {"app": "app-demo"}}})

    def test_reservation_demo_big_and_app_demo_deployment_are_accepted(self):
        out = self.sim.run(KUBECTL134, "create", "-f", os.path.join(TESTDATA, "reservation-demo-big.yaml")).stdout
        self.assertEqual(out.strip(), "reservation.scheduling.koordinator.sh/reservation-demo-big created")
        row = self.get_wide(KUBECTL, "reservation-demo-big")
        self.assertEqual(row["TTL"], "1h")
        obj = json.loads(self.sim.kubectl("get", "reservation", "reservation-demo-big", "-o", "json"))
        self.assertIs(obj["spec"]["allocateOnce"], False)
        self.assertEqual(obj["spec"]["template"]["spec"]["nodeName"], "node-1")
        # An integer cpu quantity survives as written.
        self.assertEqual(obj["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], 6)
        out = self.sim.run(KUBECTL, "create", "-f", os.path.join(TESTDATA, "app-demo.yaml")).stdout
        self.assertEqual(out.strip(), "deployment.apps/app-demo created")
        dep = json.loads(self.sim.kubectl("get", "deployment", "app-demo", "-o", "json"))
        self.assertEqual(dep["spec"]["replicas"], 2)
        self.assertEqual(dep["spec"]["template"]["spec"]["schedulerName"], "koord-scheduler")
        self.assertEqual(dep["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["memory"], "20Gi")

    def test_integer_quantities_in_builtin_types_come_back_as_canonical_strings(self):
        doc = yaml.safe_load(testdata("app-demo.yaml"))
        doc["metadata"]["name"] = "app-demo-quantities"
        self.sim.apply_text(yaml.safe_dump(doc))
        dep = json.loads(self.sim.kubectl("get", "deployment", "app-demo-quantities", "-o", "json"))
        resources = dep["spec"]["template"]["spec"]["containers"][0]["resources"]
        self.assertEqual(resources["limits"], {"cpu": "4", "memory": "20Gi"})
        self.assertEqual(resources["requests"], {"cpu": "2", "memory": "10Gi"})

    def test_pre_allocation_examples_are_accepted(self):
        for name, ttl in (("reservation-prealloc", "2h"), ("reservation-cluster-mode", "4h"),
                          ("reservation-multi-pods", "4h")):
            with self.subTest(reservation=name):
                out = self.sim.run(KUBECTL, "create", "-f", os.path.join(TESTDATA, name + ".yaml")).stdout
                self.assertEqual(out.strip(), f"reservation.scheduling.koordinator.sh/{name} created")
                self.assertEqual(self.get_wide(KUBECTL134, name)["TTL"], ttl)
                obj = json.loads(self.sim.kubectl("get", "reservation", name, "-o", "json"))
                self.assertIs(obj["spec"]["preAllocation"], True)
        obj = json.loads(self.sim.kubectl("get", "reservation", "reservation-multi-pods", "-o", "json"))
        self.assertEqual(obj["spec"]["preAllocationPolicy"], {"mode": "Cluster", "enableMultiple": True})

    def test_pre_allocatable_pods_of_the_guide_are_accepted(self):
        out = self.sim.run(KUBECTL, "create", "-f", os.path.join(TESTDATA, "batch-job-1.yaml")).stdout
        self.assertEqual(out.strip(), "pod/batch-job-1 created")
        self.sim.kubectl("delete", "pod", "batch-job-1", "--wait=true", "--timeout=10s")
        out = self.sim.run(KUBECTL134, "create", "-f", os.path.join(TESTDATA, "batch-jobs-multi.yaml")).stdout
        self.assertEqual(out.split("\n")[:2], ["pod/batch-job-1 created", "pod/batch-job-2 created"])
        pods = json.loads(self.sim.kubectl("get", "pods", "-l", "pod.koordinator.sh/is-pre-allocatable=true",
                                           "-o", "json"))["items"]
        self.assertEqual(sorted(p["metadata"]["name"] for p in pods), ["batch-job-1", "batch-job-2"])
        prio = {p["metadata"]["name"]: p["metadata"]["annotations"]["pod.koordinator.sh/pre-allocatable-priority"]
                for p in pods}
        self.assertEqual(prio, {"batch-job-1": "100", "batch-job-2": "90"})

    def test_a_reservation_without_ttl_shows_the_defaulted_24h(self):
        doc = yaml.safe_load(testdata("reservation-demo.yaml"))
        doc["metadata"]["name"] = "reservation-no-ttl"
        del doc["spec"]["ttl"]
        self.sim.apply_text(yaml.safe_dump(doc))
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                self.assertEqual(self.get_wide(kubectl, "reservation-no-ttl")["TTL"], "24h")
        obj = json.loads(self.sim.kubectl("get", "reservation", "reservation-no-ttl", "-o", "json"))
        self.assertEqual(obj["spec"]["ttl"], "24h")

    def test_a_reservation_with_empty_owners_is_refused_with_422(self):
        doc = yaml.safe_load(testdata("reservation-demo.yaml"))
        doc["metadata"]["name"] = "reservation-no-owners"
        doc["spec"]["owners"] = []
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                r = self.sim.run(kubectl, "create", "-f", "-", input=yaml.safe_dump(doc), check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn('The Reservation "reservation-no-owners" is invalid: spec.owners: Invalid value: 0: '
                              'spec.owners in body should have at least 1 items', r.stderr)
        r = self.sim.http("POST", "/apis/scheduling.koordinator.sh/v1alpha1/reservations", json=doc)
        self.assertEqual(r.status_code, 422)
        status = r.json()
        self.assertEqual(status["reason"], "Invalid")
        self.assertEqual(status["details"]["causes"][0]["field"], "spec.owners")
        r = self.sim.run(KUBECTL, "get", "reservation", "reservation-no-owners", check=False)
        self.assertIn("NotFound", r.stderr)

    def test_a_reservation_without_template_is_refused_as_required(self):
        doc = yaml.safe_load(testdata("reservation-demo.yaml"))
        doc["metadata"]["name"] = "reservation-no-template"
        del doc["spec"]["template"]
        r = self.sim.run(KUBECTL, "create", "-f", "-", input=yaml.safe_dump(doc), check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('The Reservation "reservation-no-template" is invalid: spec.template: Required value', r.stderr)

    def test_get_reservations_lists_printer_columns_for_all(self):
        doc = yaml.safe_load(testdata("reservation-demo.yaml"))
        for n in ("list-a", "list-b"):
            doc["metadata"]["name"] = n
            self.sim.apply_text(yaml.safe_dump(doc))
        names, rows = kubectl_table(self.sim.kubectl134("get", "rsv"))
        self.assertEqual(names, ["NAME", "PHASE", "AGE", "NODE", "TTL", "EXPIRES"])
        byname = {r["NAME"]: r for r in rows}
        self.assertEqual(byname["list-a"]["TTL"], "1h")
        self.assertEqual(byname["list-b"]["TTL"], "1h")

    def test_the_guides_custom_columns_and_describe_node_commands_work(self):
        out = self.sim.kubectl("get", "node", "-o",
                               "custom-columns=NAME:.metadata.name,CPU:.status.allocatable.cpu,"
                               "MEMORY:.status.allocatable.memory").splitlines()
        self.assertEqual(out[0].split(), ["NAME", "CPU", "MEMORY"])
        self.assertEqual([line.split() for line in out[1:]],
                         [["node-0", "8", "32Gi"], ["node-1", "8", "32Gi"], ["node-2", "8", "32Gi"]])
        out = self.sim.kubectl("describe", "node", "node-1")
        self.assertIn("Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)", out)


if __name__ == "__main__":
    unittest.main()
