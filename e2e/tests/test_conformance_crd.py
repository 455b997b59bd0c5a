"""kubesim conformance: CRDs (serving, defaults, validation, deletion), discovery, OpenAPI and Table output."""
import subprocess
import unittest

import yaml

from conformance_util import RESERVATION_CRD, ConformanceCase, pod, start_kubesim, wait_until

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
RSV = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
TABLE = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}


def reservation(name, owners=None):
    return {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": name},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}},
                     "owners": owners if owners is not None else [{"object": {"name": "p"}}]}}


class CrdTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1)
        with open(RESERVATION_CRD) as f:
            cls.crd = yaml.safe_load(f)
        r = cls.sim.http("POST", CRDS, json=cls.crd)
        assert r.status_code == 201, r.text

    def test_created_crd_is_served_at_once_and_marked_established(self):
        self.assertEqual(self.sim.http("GET", RSV).status_code, 200)
        crd = wait_until(lambda: (lambda c: c if any(x["type"] == "Established" and x["status"] == "True"
                                                     for x in c.get("status", {}).get("conditions", [])) else None)(
            self.get(CRDS + "/reservations.scheduling.koordinator.sh")), message="Established condition")
        names = {x["type"]: x["status"] for x in crd["status"]["conditions"]}
        self.assertEqual(names.get("NamesAccepted"), "True")
        self.assertEqual(crd["status"]["acceptedNames"]["kind"], "Reservation")

    def test_schema_defaults_are_applied(self):
        r = self.create(RSV, reservation("defaults"))
        self.assertEqual(r["spec"]["ttl"], "24h")
        self.assertIs(r["spec"]["allocateOnce"], True)

    def test_empty_owners_is_422_with_the_apiserver_message(self):
        r = self.sim.http("POST", RSV, json=reservation("no-owners", owners=[]))
        body = self.assertStatus(r, 422, "Invalid")
        self.assertEqual(body["message"], 'Reservation.scheduling.koordinator.sh "no-owners" is invalid: '
                                          'spec.owners: Invalid value: 0: spec.owners in body should have at least 1 items')
        self.assertEqual(body["details"]["causes"], [{"reason": "FieldValueInvalid",
                                                      "message": "Invalid value: 0: spec.owners in body should have at least 1 items",
                                                      "field": "spec.owners"}])
        self.assertEqual(body["details"]["group"], "scheduling.koordinator.sh")
        self.assertEqual(body["details"]["kind"], "Reservation")

    def test_missing_required_field_and_wrong_type_are_422(self):
        bad = reservation("types")
        del bad["spec"]["template"]
        bad["spec"]["allocateOnce"] = "yes"
        body = self.assertStatus(self.sim.http("POST", RSV, json=bad), 422, "Invalid")
        fields = sorted(c["field"] for c in body["details"]["causes"])
        self.assertEqual(fields, ["spec.allocateOnce", "spec.template"])
        reasons = {c["field"]: c["reason"] for c in body["details"]["causes"]}
        self.assertEqual(reasons["spec.template"], "FieldValueRequired")
        self.assertEqual(reasons["spec.allocateOnce"], "FieldValueTypeInvalid")

    def test_custom_resource_without_kind_is_400(self):
        bad = reservation("nokind")
        del bad["kind"]
        r = self.sim.http("POST", RSV, json=bad)
        self.assertStatus(r, 400, "BadRequest", message_contains="Object 'Kind' is missing")

    def test_unknown_fields_of_a_custom_resource_are_pruned_or_rejected_by_field_validation(self):
        body = reservation("unknown")
        body["spec"]["bogus"] = 1
        r = self.sim.http("POST", RSV + "?fieldValidation=Strict", json=body)
        self.assertStatus(r, 400, "BadRequest", message_contains='unknown field "spec.bogus"')
        r = self.sim.http("POST", RSV + "?fieldValidation=Ignore", json=body)
        self.assertEqual(r.status_code, 201, r.text)
        self.assertNotIn("bogus", r.json()["spec"])

    def test_table_output_uses_the_printer_columns(self):
        self.create(RSV, reservation("table"))
        t = self.sim.http("GET", RSV, headers=TABLE).json()
        self.assertEqual(t["kind"], "Table")
        self.assertEqual(t["apiVersion"], "meta.k8s.io/v1")
        self.assertEqual([c["name"] for c in t["columnDefinitions"]], ["Name", "Phase", "Age", "Node", "TTL", "Expires"])
        row = next(r for r in t["rows"] if r["cells"][0] == "table")
        self.assertEqual(row["cells"][4], "24h")
        self.assertEqual(row["object"]["kind"], "PartialObjectMetadata")
        self.assertEqual(row["object"]["metadata"]["name"], "table")
        one = self.sim.http("GET", RSV + "/table", headers=TABLE).json()
        self.assertEqual(len(one["rows"]), 1)

    def test_discovery_lists_the_custom_resource_with_short_names_and_status(self):
        groups = self.get("/apis")["groups"]
        group = next(g for g in groups if g["name"] == "scheduling.koordinator.sh")
        self.assertEqual(group["preferredVersion"]["version"], "v1alpha1")
        res = {r["name"]: r for r in self.get("/apis/scheduling.koordinator.sh/v1alpha1")["resources"]}
        self.assertEqual(res["reservations"]["shortNames"], ["rsv"])
        self.assertFalse(res["reservations"]["namespaced"])
        self.assertEqual(res["reservations"]["kind"], "Reservation")
        self.assertIn("reservations/status", res)
        self.assertIn("watch", res["reservations"]["verbs"])

    def test_openapi_v3_publishes_the_custom_resource_schema(self):
        root = self.get("/openapi/v3")["paths"]
        url = root["apis/scheduling.koordinator.sh/v1alpha1"]["serverRelativeURL"]
        doc = self.get(url)
        self.assertTrue(doc["openapi"].startswith("3."))
        schemas = doc["components"]["schemas"]
        name = next(k for k in schemas if k.endswith("v1alpha1.Reservation"))
        self.assertIn("owners", schemas[name]["properties"]["spec"]["properties"])
        ops = doc["paths"]["/apis/scheduling.koordinator.sh/v1alpha1/reservations/{name}"]["patch"]
        self.assertEqual(ops["x-kubernetes-group-version-kind"]["kind"], "Reservation")
        self.assertIn("fieldValidation", [p["name"] for p in ops.get("parameters", []) + doc["paths"][
            "/apis/scheduling.koordinator.sh/v1alpha1/reservations/{name}"].get("parameters", [])])

    def test_deleting_the_crd_removes_its_objects_and_stops_serving(self):
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "temps.example.com"},
               "spec": {"group": "example.com", "scope": "Namespaced",
                        "names": {"plural": "temps", "singular": "temp", "kind": "Temp"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                            "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
        self.create(CRDS, crd)
        path = "/apis/example.com/v1/namespaces/default/temps"
        self.create(path, {"apiVersion": "example.com/v1", "kind": "Temp", "metadata": {"name": "t1"}})
        r = self.sim.http("DELETE", CRDS + "/temps.example.com")
        self.assertEqual(r.status_code, 200, r.text)
        wait_until(lambda: self.sim.http("GET", path).status_code == 404, message="temps no longer served")
        wait_until(lambda: self.gone(CRDS + "/temps.example.com"), message="CRD removed")
        self.assertNotIn("example.com", [g["name"] for g in self.get("/apis")["groups"]])
        # Recreating the CRD serves an empty collection: the old objects were deleted.
        self.create(CRDS, crd)
        wait_until(lambda: self.sim.http("GET", path).status_code == 200, message="temps served again")
        self.assertEqual(self.get(path)["items"], [])

    def test_invalid_crd_is_422(self):
        crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "wrong.example.com"},
               "spec": {"group": "example.com", "scope": "Namespaced",
                        "names": {"plural": "things", "kind": "Thing"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                            "openAPIV3Schema": {"type": "object"}}}]}}
        r = self.sim.http("POST", CRDS, json=crd)
        self.assertStatus(r, 422, "Invalid", message_contains="must be spec.names.plural+\".\"+spec.group")


class DiscoveryTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=2)

    def test_core_discovery_lists_resources_subresources_and_short_names(self):
        self.assertEqual(self.get("/api")["versions"], ["v1"])
        res = {r["name"]: r for r in self.get("/api/v1")["resources"]}
        for name in ("pods", "pods/status", "pods/binding", "pods/eviction", "nodes", "nodes/status", "namespaces",
                     "events", "configmaps", "services", "podtemplates"):
            self.assertIn(name, res)
        self.assertEqual(res["pods"]["shortNames"], ["po"])
        self.assertEqual(res["pods"]["categories"], ["all"])
        self.assertEqual(res["pods/eviction"]["kind"], "Eviction")
        self.assertEqual(res["pods/eviction"]["group"], "policy")
        self.assertTrue(res["pods"]["namespaced"])
        self.assertFalse(res["nodes"]["namespaced"])

    def test_group_discovery_includes_scale_and_categories(self):
        groups = {g["name"]: g for g in self.get("/apis")["groups"]}
        for g in ("apps", "policy", "coordination.k8s.io", "apiextensions.k8s.io"):
            self.assertIn(g, groups)
        apps = {r["name"]: r for r in self.get("/apis/apps/v1")["resources"]}
        self.assertEqual(apps["deployments/scale"]["kind"], "Scale")
        self.assertEqual(apps["deployments/scale"]["group"], "autoscaling")
        self.assertEqual(apps["deployments"]["categories"], ["all"])
        self.assertEqual(self.get("/apis/policy/v1")["resources"][0]["name"], "poddisruptionbudgets")
        self.assertEqual(self.sim.http("GET", "/apis/nosuch/v1").status_code, 404)

    def test_version_endpoint(self):
        v = self.get("/version")
        self.assertEqual(v["major"], "1")
        self.assertTrue(v["gitVersion"].startswith("v1."))

    def test_openapi_v3_root_and_group_version_documents(self):
        paths = self.get("/openapi/v3")["paths"]
        self.assertIn("api/v1", paths)
        self.assertIn("apis/apps/v1", paths)
        doc = self.get(paths["api/v1"]["serverRelativeURL"])
        patch = doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"]
        self.assertEqual(patch["x-kubernetes-group-version-kind"], {"group": "", "version": "v1", "kind": "Pod"})
        self.assertIn("io.k8s.api.core.v1.Pod", doc["components"]["schemas"])
        self.assertEqual(self.sim.http("GET", "/openapi/v3/apis/nosuch/v1").status_code, 404)

    def test_openapi_v2_is_served(self):
        r = self.sim.http("GET", "/openapi/v2", headers={"Accept": "application/json"})
        self.assertEqual(r.status_code, 200)
        self.assertEqual(r.json()["swagger"], "2.0")

    def test_pod_table_has_the_kubectl_columns(self):
        self.create("/api/v1/namespaces/default/pods", pod("tbl", node="node-0"))
        wait_until(lambda: self.get("/api/v1/namespaces/default/pods/tbl")["status"]["phase"] == "Running")
        t = self.sim.http("GET", "/api/v1/namespaces/default/pods", headers=TABLE).json()
        self.assertEqual([c["name"] for c in t["columnDefinitions"]][:5], ["Name", "Ready", "Status", "Restarts", "Age"])
        row = next(r for r in t["rows"] if r["cells"][0] == "tbl")
        self.assertEqual(row["cells"][1:3], ["1/1", "Running"])
        t = self.sim.http("GET", "/api/v1/nodes", headers=TABLE).json()
        self.assertEqual([r["cells"][0] for r in t["rows"]], ["node-0", "node-1"])
        self.assertEqual(t["rows"][0]["cells"][1], "Ready")

    def test_kubectl_api_resources_lists_everything(self):
        out = self.sim.kubectl("api-resources", "--no-headers")
        self.assertRegex(out, r"(?m)^pods\s+po\s+v1\s+true\s+Pod$")
        self.assertRegex(out, r"(?m)^deployments\s+deploy\s+apps/v1\s+true\s+Deployment$")


if __name__ == "__main__":
    unittest.main()
