"""kubesim conformance: authentication, error Status bodies and bad input (status codes and wording)."""
import json
import os
import random
import signal
import subprocess
import time
import unittest

import requests

from conformance_util import ConformanceCase, configmap, pod, start_kubesim, wait_until

PODS = "/api/v1/namespaces/default/pods"


class ErrorStatusTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1)

    def raw(self, method, path, token=None, **kw):
        headers = kw.pop("headers", {})
        if token is not None:
            headers["Authorization"] = "Bearer " + token
        return requests.request(method, self.sim.server + path, verify=self.sim.ca_path, headers=headers, **kw)

    def test_requests_without_a_token_get_401_unauthorized(self):
        self.assertStatus(self.raw("GET", "/api/v1/pods"), 401, "Unauthorized", message="Unauthorized")

    def test_requests_with_a_wrong_token_get_401_unauthorized(self):
        self.assertStatus(self.raw("GET", "/api/v1/pods", token="wrong"), 401, "Unauthorized")
        self.assertEqual(self.raw("GET", "/api/v1/pods", token=self.sim.token).status_code, 200)

    def test_missing_core_object_is_404_not_found_with_details(self):
        body = self.assertStatus(self.sim.http("GET", PODS + "/nope"), 404, "NotFound", message='pods "nope" not found')
        self.assertEqual(body["details"], {"name": "nope", "kind": "pods"})

    def test_missing_grouped_object_is_404_with_the_group_qualified_resource(self):
        body = self.assertStatus(self.sim.http("GET", "/apis/apps/v1/namespaces/default/deployments/nope"), 404,
                                 "NotFound", message='deployments.apps "nope" not found')
        self.assertEqual(body["details"]["group"], "apps")
        self.assertEqual(body["details"]["kind"], "deployments")

    def test_unknown_resource_path_is_404(self):
        r = self.sim.http("GET", "/api/v1/namespaces/default/widgets")
        self.assertEqual(r.status_code, 404)
        r = self.sim.http("GET", "/apis/nosuch.example.com/v1/widgets")
        self.assertEqual(r.status_code, 404)

    def test_creating_an_existing_name_is_409_already_exists(self):
        self.create(PODS, pod("dup"))
        body = self.assertStatus(self.sim.http("POST", PODS, json=pod("dup")), 409, "AlreadyExists",
                                 message='pods "dup" already exists')
        self.assertEqual(body["details"], {"name": "dup", "kind": "pods"})

    def test_update_with_a_stale_resource_version_is_409_conflict(self):
        created = self.create("/api/v1/namespaces/default/configmaps", configmap("stale"))
        fresh = dict(created, data={"k": "v2"})
        r = self.sim.http("PUT", "/api/v1/namespaces/default/configmaps/stale", json=fresh)
        self.assertEqual(r.status_code, 200, r.text)
        stale = dict(created, data={"k": "v3"})  # still carries the first resourceVersion
        self.assertStatus(self.sim.http("PUT", "/api/v1/namespaces/default/configmaps/stale", json=stale), 409,
                          "Conflict",
                          message='Operation cannot be fulfilled on configmaps "stale": the object has been modified; '
                                  'please apply your changes to the latest version and try again')

    def test_update_of_a_missing_object_is_404(self):
        r = self.sim.http("PUT", "/api/v1/namespaces/default/configmaps/ghost", json=configmap("ghost"))
        self.assertStatus(r, 404, "NotFound", message='configmaps "ghost" not found')

    def test_invalid_pod_is_422_with_field_causes(self):
        bad = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "nocontainers"}, "spec": {}}
        body = self.assertStatus(self.sim.http("POST", PODS, json=bad), 422, "Invalid",
                                 message='Pod "nocontainers" is invalid: spec.containers: Required value')
        self.assertEqual(body["details"]["name"], "nocontainers")
        self.assertEqual(body["details"]["kind"], "Pod")
        self.assertIn({"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers"},
                      body["details"]["causes"])

    def test_invalid_object_name_is_422(self):
        body = self.assertStatus(self.sim.http("POST", "/api/v1/namespaces/default/configmaps",
                                               json=configmap("Bad_Name")), 422, "Invalid")
        self.assertEqual(body["details"]["causes"][0]["field"], "metadata.name")

    def test_malformed_json_is_400_bad_request(self):
        r = self.sim.http("POST", PODS, data="{bad", headers={"Content-Type": "application/json"})
        self.assertStatus(r, 400, "BadRequest")

    def test_malformed_yaml_is_400_bad_request(self):
        r = self.sim.http("POST", PODS, data="a: [b", headers={"Content-Type": "application/yaml"})
        self.assertStatus(r, 400, "BadRequest", message_contains="yaml")

    def test_yaml_bodies_are_accepted(self):
        body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fromyaml\ndata:\n  a: b\n"
        r = self.sim.http("POST", "/api/v1/namespaces/default/configmaps", data=body,
                          headers={"Content-Type": "application/yaml"})
        self.assertEqual(r.status_code, 201, r.text)
        self.assertEqual(r.json()["data"], {"a": "b"})

    def test_built_in_objects_without_api_version_and_kind_take_the_endpoints(self):
        r = self.sim.http("POST", PODS, json={"metadata": {"name": "nokind"}, "spec": pod("x")["spec"]})
        self.assertEqual(r.status_code, 201, r.text[:500])
        self.assertEqual((r.json()["apiVersion"], r.json()["kind"]), ("v1", "Pod"))

    def test_wrong_api_version_is_400(self):
        self.assertStatus(self.sim.http("POST", PODS, json=dict(pod("v2pod"), apiVersion="v2")), 400, "BadRequest",
                          message="the API version in the data (v2) does not match the expected API version (v1)")

    def test_wrong_kind_is_400(self):
        self.assertStatus(self.sim.http("POST", PODS, json=dict(pod("svcpod"), kind="Service")), 400, "BadRequest",
                          message="the kind in the data (Service) does not match the expected kind (Pod)")

    def test_namespace_mismatch_is_400(self):
        self.assertStatus(self.sim.http("POST", PODS, json=pod("elsewhere", namespace="other")), 400, "BadRequest",
                          message="the namespace of the provided object does not match the namespace sent on the request")

    def test_name_mismatch_on_update_is_400(self):
        self.create("/api/v1/namespaces/default/configmaps", configmap("named"))
        r = self.sim.http("PUT", "/api/v1/namespaces/default/configmaps/named", json=configmap("other"))
        self.assertStatus(r, 400, "BadRequest",
                          message="the name of the object (other) does not match the name on the URL (named)")

    def test_unknown_content_type_is_415(self):
        r = self.sim.http("POST", PODS, data="x", headers={"Content-Type": "text/foo"})
        self.assertStatus(r, 415, "UnsupportedMediaType", message_contains="the body of the request was in an unknown format")

    def test_oversized_body_is_413(self):
        r = self.sim.http("POST", "/api/v1/namespaces/default/configmaps", data="x" * (4 * 1024 * 1024),
                          headers={"Content-Type": "application/json"})
        self.assertStatus(r, 413, "RequestEntityTooLarge", message_contains="limit is 3145728")

    def test_strict_field_validation_rejects_unknown_fields_with_400(self):
        bad = pod("strict")
        bad["spec"]["bogus"] = 1
        self.assertStatus(self.sim.http("POST", PODS + "?fieldValidation=Strict", json=bad), 400, "BadRequest",
                          message='Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
                                  'unknown field "spec.bogus"')
        self.assertTrue(self.gone(PODS + "/strict"))

    def test_warn_field_validation_creates_drops_the_field_and_sends_a_warning_header(self):
        bad = pod("warned")
        bad["spec"]["bogus"] = 1
        r = self.sim.http("POST", PODS + "?fieldValidation=Warn", json=bad)
        self.assertEqual(r.status_code, 201, r.text)
        self.assertEqual(r.headers.get("Warning"), '299 - "unknown field \\"spec.bogus\\""')
        self.assertNotIn("bogus", self.get(PODS + "/warned")["spec"])

    def test_ignore_field_validation_drops_unknown_fields_silently(self):
        bad = pod("ignored")
        bad["spec"]["bogus"] = 1
        r = self.sim.http("POST", PODS + "?fieldValidation=Ignore", json=bad)
        self.assertEqual(r.status_code, 201, r.text)
        self.assertNotIn("Warning", r.headers)
        self.assertNotIn("bogus", self.get(PODS + "/ignored")["spec"])

    def test_invalid_field_validation_value_is_400(self):
        r = self.sim.http("POST", PODS + "?fieldValidation=Loud", json=pod("loud"))
        self.assertStatus(r, 400, "BadRequest", message_contains="fieldValidation")


class GarbageInputTest(ConformanceCase):
    """kubesim never crashes on garbage and keeps what it stored."""

    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1)

    def test_garbage_bodies_never_crash_and_stored_objects_stay_intact(self):
        keep = self.create("/api/v1/namespaces/default/configmaps", configmap("keep", {"x": "1"}))
        rng = random.Random(7)
        paths = [PODS, "/api/v1/namespaces/default/configmaps", "/api/v1/namespaces/default/configmaps/keep",
                 "/apis/apps/v1/namespaces/default/deployments", "/api/v1/namespaces"]
        for i in range(60):
            body = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 400)))
            ctype = rng.choice(["application/json", "application/yaml", "application/merge-patch+json",
                                "application/json-patch+json", "application/strategic-merge-patch+json"])
            method = rng.choice(["POST", "PUT", "PATCH"])
            r = self.sim.http(method, rng.choice(paths), data=body, headers={"Content-Type": ctype})
            self.assertGreaterEqual(r.status_code, 400, (method, ctype, r.text))
            self.assertLess(r.status_code, 500, (method, ctype, r.text))
            self.assertEqual(r.json()["kind"], "Status")
        self.assertIsNone(self.sim.proc.poll())
        self.assertEqual(self.get("/api/v1/namespaces/default/configmaps/keep"), keep)

    def test_deeply_nested_json_is_rejected_without_crashing(self):
        deep = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":' + "[" * 100000 + "]" * 100000 + "}"
        r = self.sim.http("POST", "/api/v1/namespaces/default/configmaps", data=deep,
                          headers={"Content-Type": "application/json"})
        self.assertIn(r.status_code, (400, 422), r.text)
        self.assertEqual(r.json()["kind"], "Status")
        deep_yaml = "a: " + "[" * 50000 + "]" * 50000 + "\n"
        r = self.sim.http("POST", "/api/v1/namespaces/default/configmaps", data=deep_yaml,
                          headers={"Content-Type": "application/yaml"})
        self.assertEqual(r.status_code, 400, r.text)
        self.assertIsNone(self.sim.proc.poll())
        self.assertEqual(self.sim.http("GET", "/api/v1/namespaces/default/configmaps").status_code, 200)

    def test_huge_label_values_are_422_invalid(self):
        r = self.sim.http("POST", "/api/v1/namespaces/default/configmaps",
                          json=configmap("biglabel", labels={"k": "v" * 100000}))
        body = self.assertStatus(r, 422, "Invalid")
        self.assertEqual(len(body["details"]["causes"]), 1)
        self.assertEqual(body["details"]["causes"][0]["field"], "metadata.labels")
        self.assertTrue(body["details"]["causes"][0]["message"].endswith('": must be no more than 63 characters'))
        r = self.sim.http("POST", "/api/v1/namespaces/default/configmaps",
                          json=configmap("badkey", labels={"-bad-": "ok"}))
        self.assertIn("name part must consist of alphanumeric characters", self.assertStatus(r, 422, "Invalid")["message"])
        self.assertTrue(self.gone("/api/v1/namespaces/default/configmaps/biglabel"))

    def test_garbage_query_strings_are_rejected_with_400(self):
        for query in ["labelSelector=%zz", "labelSelector=a+in+(", "limit=abc", "resourceVersion=xyz",
                      "fieldSelector===", "timeoutSeconds=-5&watch=true&resourceVersion=abc"]:
            r = self.sim.http("GET", PODS + "?" + query)
            self.assertLess(r.status_code, 500, (query, r.text))
        self.assertIsNone(self.sim.proc.poll())


class ShutdownTest(unittest.TestCase):
    def test_sigterm_stops_kubesim_cleanly_and_quickly(self):
        sim = start_kubesim(nodes=1)
        try:
            self.assertEqual(sim.http("GET", "/api/v1/nodes").status_code, 200)
            stream = sim.http("GET", "/api/v1/pods?watch=true", stream=True, timeout=10)  # an open watch must not block exit
            self.assertEqual(stream.status_code, 200)
            started = time.monotonic()
            sim.proc.send_signal(signal.SIGTERM)
            self.assertEqual(sim.proc.wait(timeout=5), 0)
            self.assertLess(time.monotonic() - started, 5)
            stream.close()
        finally:
            sim.stop()


if __name__ == "__main__":
    unittest.main()
