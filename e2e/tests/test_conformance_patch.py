"""kubesim conformance: PATCH (merge, JSON, strategic merge) and stored-form rules of built-in types."""
import json
import unittest

from conformance_util import ConformanceCase, configmap, pod, start_kubesim, wait_until

CM = "/api/v1/namespaces/default/configmaps"
PODS = "/api/v1/namespaces/default/pods"
DEPLOY = "/apis/apps/v1/namespaces/default/deployments"
MERGE = {"Content-Type": "application/merge-patch+json"}
JSONP = {"Content-Type": "application/json-patch+json"}
SMP = {"Content-Type": "application/strategic-merge-patch+json"}

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def deployment(name):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [
                         {"name": "a", "image": "img-a:1", "env": [{"name": "X", "value": "1"}],
                          "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                         {"name": "b", "image": "img-b:1"}]}}}}


class PatchTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1, no_kubelet=True)
        r = cls.sim.http("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=CRD)
        assert r.status_code == 201, r.text
        wait_until(lambda: cls.sim.http("GET", "/apis/example.com/v1/namespaces/default/gadgets").status_code == 200)

    def patch(self, path, body, headers, code=200):
        r = self.sim.http("PATCH", path, data=body if isinstance(body, str) else json.dumps(body), headers=headers)
        self.assertEqual(r.status_code, code, r.text[:800])
        return r.json()

    def test_merge_patch_sets_and_removes_keys_and_bumps_the_resource_version(self):
        before = self.create(CM, configmap("mp", {"a": "1", "b": "2"}))
        after = self.patch(CM + "/mp", {"data": {"a": "9", "b": None, "c": "3"}}, MERGE)
        self.assertEqual(after["data"], {"a": "9", "c": "3"})
        self.assertGreater(int(after["metadata"]["resourceVersion"]), int(before["metadata"]["resourceVersion"]))
        self.assertEqual(after["metadata"]["uid"], before["metadata"]["uid"])

    def test_merge_patch_with_a_stale_resource_version_is_409(self):
        before = self.create(CM, configmap("mp-rv"))
        self.patch(CM + "/mp-rv", {"data": {"k": "2"}}, MERGE)
        r = self.sim.http("PATCH", CM + "/mp-rv", data=json.dumps(
            {"metadata": {"resourceVersion": before["metadata"]["resourceVersion"]}, "data": {"k": "3"}}), headers=MERGE)
        self.assertStatus(r, 409, "Conflict", message_contains='Operation cannot be fulfilled on configmaps "mp-rv"')

    def test_patch_of_a_missing_object_is_404(self):
        r = self.sim.http("PATCH", CM + "/none", data="{}", headers=MERGE)
        self.assertStatus(r, 404, "NotFound", message='configmaps "none" not found')

    def test_json_patch_operations_apply_in_order(self):
        self.create(CM, configmap("jp", {"a": "1"}))
        ops = [{"op": "add", "path": "/data/b", "value": "2"}, {"op": "replace", "path": "/data/a", "value": "x"},
               {"op": "test", "path": "/data/a", "value": "x"}, {"op": "copy", "from": "/data/b", "path": "/data/c"},
               {"op": "remove", "path": "/data/b"}]
        self.assertEqual(self.patch(CM + "/jp", ops, JSONP)["data"], {"a": "x", "c": "2"})

    def test_json_patch_failing_test_op_is_422_and_changes_nothing(self):
        before = self.create(CM, configmap("jp-test", {"a": "1"}))
        r = self.sim.http("PATCH", CM + "/jp-test", data=json.dumps(
            [{"op": "replace", "path": "/data/a", "value": "2"}, {"op": "test", "path": "/data/a", "value": "nope"}]),
            headers=JSONP)
        self.assertStatus(r, 422, "Invalid", message_contains="testing value /data/a failed")
        self.assertEqual(self.get(CM + "/jp-test"), before)

    def test_json_patch_on_a_missing_path_is_422(self):
        self.create(CM, configmap("jp-miss"))
        r = self.sim.http("PATCH", CM + "/jp-miss", data='[{"op":"remove","path":"/data/zzz"}]', headers=JSONP)
        self.assertEqual(r.status_code, 422, r.text)
        self.assertEqual(r.json()["reason"], "Invalid")

    def test_malformed_patch_bodies_are_400(self):
        self.create(CM, configmap("bad-patch"))
        for body, headers in (("{not json", MERGE), ("[1,", SMP), ("[{", JSONP)):
            r = self.sim.http("PATCH", CM + "/bad-patch", data=body, headers=headers)
            self.assertStatus(r, 400, "BadRequest")
        r = self.sim.http("PATCH", CM + "/bad-patch", data='{"op":"add"}', headers=JSONP)
        self.assertStatus(r, 400, "BadRequest", message="json: cannot unmarshal object into Go value of type jsonpatch.Patch")

    def test_unknown_patch_content_type_is_415(self):
        self.create(CM, configmap("ct-patch"))
        r = self.sim.http("PATCH", CM + "/ct-patch", data="{}", headers={"Content-Type": "application/json"})
        self.assertStatus(r, 415, "UnsupportedMediaType")

    def test_strategic_merge_patch_merges_containers_by_name(self):
        self.create(DEPLOY, deployment("smp"))
        patch = {"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "img-b:2"}]}}}}
        d = self.patch(DEPLOY + "/smp", patch, SMP)
        containers = d["spec"]["template"]["spec"]["containers"]
        self.assertEqual([(c["name"], c["image"]) for c in containers], [("a", "img-a:1"), ("b", "img-b:2")])
        self.assertEqual(d["metadata"]["generation"], 2)
        # Merge patch replaces the list wholesale, for contrast.
        d = self.patch(DEPLOY + "/smp", patch, MERGE)
        self.assertEqual([c["name"] for c in d["spec"]["template"]["spec"]["containers"]], ["b"])

    def test_strategic_merge_patch_env_ports_delete_directive_and_set_element_order(self):
        self.create(DEPLOY, deployment("smp2"))
        patch = {"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "b"}, {"name": "a"}],
            "containers": [{"name": "b", "image": "img-b:3"},
                           {"name": "a", "env": [{"name": "Y", "value": "2"}],
                            "ports": [{"containerPort": 443, "protocol": "TCP"}]}]}}}}
        d = self.patch(DEPLOY + "/smp2", patch, SMP)
        containers = d["spec"]["template"]["spec"]["containers"]
        self.assertEqual([c["name"] for c in containers], ["b", "a"])
        self.assertEqual(containers[0]["image"], "img-b:3")
        a = containers[1]
        self.assertEqual(sorted(e["name"] for e in a["env"]), ["X", "Y"])
        self.assertEqual(sorted(p["containerPort"] for p in a["ports"]), [80, 443])
        d = self.patch(DEPLOY + "/smp2", {"spec": {"template": {"spec": {"containers": [
            {"name": "b", "$patch": "delete"}]}}}}, SMP)
        self.assertEqual([c["name"] for c in d["spec"]["template"]["spec"]["containers"]], ["a"])

    def test_strategic_merge_patch_whose_order_contradicts_set_element_order_is_422(self):
        self.create(DEPLOY, deployment("smp3"))
        patch = {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}],
                                                "containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}}}
        r = self.sim.http("PATCH", DEPLOY + "/smp3", data=json.dumps(patch), headers=SMP)
        self.assertStatus(r, 422, "Invalid", message_contains="doesn't match $setElementOrder list")

    def test_strategic_merge_patch_on_pod_labels_and_tolerations(self):
        self.create(PODS, pod("smp-pod", labels={"a": "1"}))
        p = self.patch(PODS + "/smp-pod", {"metadata": {"labels": {"b": "2", "a": None}}}, SMP)
        self.assertEqual(p["metadata"]["labels"], {"b": "2"})

    def test_strategic_merge_patch_on_a_custom_resource_is_415(self):
        self.create("/apis/example.com/v1/namespaces/default/gadgets",
                    {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"x": 1}})
        r = self.sim.http("PATCH", "/apis/example.com/v1/namespaces/default/gadgets/g", data='{"spec":{"x":2}}',
                          headers=SMP)
        self.assertStatus(r, 415, "UnsupportedMediaType",
                          message="the body of the request was in an unknown format - accepted media types include: "
                                  "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
        g = self.patch("/apis/example.com/v1/namespaces/default/gadgets/g", '{"spec":{"x":2}}', MERGE)
        self.assertEqual(g["spec"], {"x": 2})

    def test_patch_to_the_status_subresource_changes_only_status(self):
        self.create(PODS, pod("st-pod"))
        p = self.patch(PODS + "/st-pod/status", {"status": {"phase": "Running"}, "spec": {"nodeName": "node-0"},
                                                  "metadata": {"labels": {"x": "y"}}}, MERGE)
        self.assertEqual(p["status"]["phase"], "Running")
        self.assertNotIn("nodeName", p["spec"])
        self.assertNotIn("labels", p["metadata"])

    def test_patch_cannot_change_name_or_uid(self):
        c = self.create(CM, configmap("immut"))
        r = self.sim.http("PATCH", CM + "/immut", data='{"metadata":{"uid":"other"}}', headers=MERGE)
        if r.status_code == 200:
            self.assertEqual(r.json()["metadata"]["uid"], c["metadata"]["uid"])
        else:
            self.assertIn(r.status_code, (409, 422), r.text)
        r = self.sim.http("PATCH", CM + "/immut", data='{"metadata":{"name":"renamed"}}', headers=MERGE)
        self.assertStatus(r, 400, "BadRequest", message_contains="does not match the name on the URL")

    def test_server_side_apply_creates_a_missing_object_then_updates_it(self):
        body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: b\n"
        headers = {"Content-Type": "application/apply-patch+yaml"}
        r = self.sim.http("PATCH", CM + "/ssa?fieldManager=kubectl&force=false", data=body, headers=headers)
        self.assertEqual(r.status_code, 201, r.text)
        self.assertEqual(r.json()["data"], {"a": "b"})
        r = self.sim.http("PATCH", CM + "/ssa?fieldManager=kubectl&force=false", data=body.replace("a: b", "a: c"),
                          headers=headers)
        self.assertEqual(r.status_code, 200, r.text)
        self.assertEqual(self.get(CM + "/ssa")["data"], {"a": "c"})

    def test_quantities_are_stored_as_canonical_strings(self):
        p = pod("qty")
        p["spec"]["containers"][0]["resources"] = {"limits": {"cpu": 2, "memory": "1024Mi"}, "requests": {"cpu": 0.5}}
        created = self.create(PODS, p)
        res = created["spec"]["containers"][0]["resources"]
        self.assertEqual(res["limits"], {"cpu": "2", "memory": "1Gi"})
        self.assertEqual(res["requests"], {"cpu": "500m", "memory": "1Gi"})  # memory request defaulted from limits
        d = deployment("qty")
        d["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": 4}}
        created = self.create(DEPLOY, d)
        self.assertEqual(created["spec"]["template"]["spec"]["containers"][0]["resources"], {"limits": {"cpu": "4"}})


if __name__ == "__main__":
    unittest.main()
