"""kubesim conformance: server-set metadata, generation and status rules, finalizers, garbage collection."""
import time
import unittest

from conformance_util import ConformanceCase, WatchStream, configmap, pod, start_kubesim, wait_until

CM = "/api/v1/namespaces/default/configmaps"
DEPLOY = "/apis/apps/v1/namespaces/default/deployments"
RS = "/apis/apps/v1/namespaces/default/replicasets"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [{
            "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}}


def deployment(name, replicas=1):
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}}


def widget(name, size=1):
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": {"size": size}}


class LifecycleTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1)
        r = cls.sim.http("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=WIDGET_CRD)
        assert r.status_code == 201, r.text
        wait_until(lambda: cls.sim.http("GET", WIDGETS).status_code == 200, message="widgets served")

    def put(self, path, obj, code=200):
        r = self.sim.http("PUT", path, json=obj)
        self.assertEqual(r.status_code, code, r.text[:800])
        return r.json()

    def update(self, path, mutate, subresource=""):
        """GET, mutate, PUT, and retry on 409 like client-go's RetryOnConflict: kubesim's Deployment
        controller writes status concurrently, as kube-controller-manager does."""
        deadline = time.monotonic() + 10
        while True:
            obj = self.get(path)
            mutate(obj)
            r = self.sim.http("PUT", path + subresource, json=obj)
            if r.status_code != 409 or time.monotonic() > deadline:
                self.assertEqual(r.status_code, 200, r.text[:800])
                return obj, r.json()

    def test_server_sets_uid_creation_timestamp_and_resource_version(self):
        sent = configmap("meta", uid="client-uid", resourceVersion="999", creationTimestamp="2000-01-01T00:00:00Z")
        obj = self.create(CM, sent)
        meta = obj["metadata"]
        self.assertRegex(meta["uid"], r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        self.assertNotEqual(meta["uid"], "client-uid")
        self.assertRegex(meta["creationTimestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertNotEqual(meta["creationTimestamp"], "2000-01-01T00:00:00Z")
        self.assertNotEqual(meta["resourceVersion"], "999")
        self.assertEqual(meta["namespace"], "default")
        self.assertEqual(self.get(CM + "/meta"), obj)

    def test_generate_name_appends_five_random_characters(self):
        obj = self.create(CM, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}})
        self.assertRegex(obj["metadata"]["name"], r"^gen-[a-z0-9]{5}$")
        self.assertEqual(obj["metadata"]["generateName"], "gen-")
        other = self.create(CM, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}})
        self.assertNotEqual(obj["metadata"]["name"], other["metadata"]["name"])

    def test_resource_version_is_global_and_monotonic_across_kinds(self):
        rvs = []
        for i in range(3):
            rvs.append(int(self.create(CM, configmap(f"rv-{i}"))["metadata"]["resourceVersion"]))
            rvs.append(int(self.create(DEPLOY, deployment(f"rv-{i}"))["metadata"]["resourceVersion"]))
            rvs.append(int(self.create(WIDGETS, widget(f"rv-{i}"))["metadata"]["resourceVersion"]))
        self.assertEqual(rvs, sorted(rvs))
        self.assertEqual(len(set(rvs)), len(rvs))
        list_rv = int(self.get("/api/v1/namespaces/default/configmaps")["metadata"]["resourceVersion"])
        self.assertGreaterEqual(list_rv, rvs[-1])

    def test_deployment_generation_moves_on_spec_changes_only(self):
        d = self.create(DEPLOY, deployment("gen"))
        self.assertEqual(d["metadata"]["generation"], 1)
        _, d = self.update(DEPLOY + "/gen", lambda o: o["metadata"].update(labels={"touched": "yes"}))
        self.assertEqual(d["metadata"]["generation"], 1)
        _, d = self.update(DEPLOY + "/gen", lambda o: o["spec"].update(replicas=3))
        self.assertEqual(d["metadata"]["generation"], 2)
        r = self.sim.http("PATCH", DEPLOY + "/gen", data='{"spec":{"replicas":4}}',
                          headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(r.json()["metadata"]["generation"], 3)

    def test_status_writes_change_only_status_and_never_generation(self):
        self.create(DEPLOY, deployment("st"))

        def write_status(o):
            o["status"] = {"replicas": 7, "observedGeneration": 1}
            o["spec"]["replicas"] = 9  # ignored on the status subresource
            o["metadata"]["labels"] = {"ignored": "yes"}
        d, s = self.update(DEPLOY + "/st", write_status, subresource="/status")
        self.assertEqual(s["status"]["replicas"], 7)
        self.assertEqual(s["spec"]["replicas"], 1)
        self.assertNotIn("labels", s["metadata"])
        self.assertEqual(s["metadata"]["generation"], 1)
        self.assertGreater(int(s["metadata"]["resourceVersion"]), int(d["metadata"]["resourceVersion"]))

    def test_main_resource_writes_ignore_status_when_a_status_subresource_exists(self):
        d = self.create(DEPLOY, dict(deployment("ign"), status={"replicas": 5}))
        self.assertNotEqual(d.get("status", {}).get("replicas"), 5)
        _, d = self.update(DEPLOY + "/ign", lambda o: o.update(status={"replicas": 6}))
        self.assertNotEqual(d.get("status", {}).get("replicas"), 6)

    def test_custom_resource_generation_and_status_subresource(self):
        w = self.create(WIDGETS, dict(widget("g"), status={"ready": True}))
        self.assertEqual(w["metadata"]["generation"], 1)
        self.assertNotIn("status", w)
        w["metadata"]["annotations"] = {"a": "b"}
        w = self.put(WIDGETS + "/g", w)
        self.assertEqual(w["metadata"]["generation"], 1)
        w["spec"]["size"] = 2
        w = self.put(WIDGETS + "/g", w)
        self.assertEqual(w["metadata"]["generation"], 2)
        w["status"] = {"ready": True}
        w["spec"]["size"] = 3
        s = self.put(WIDGETS + "/g/status", w)
        self.assertEqual(s["status"], {"ready": True})
        self.assertEqual(s["spec"]["size"], 2)
        self.assertEqual(s["metadata"]["generation"], 2)
        s["status"] = {"ready": False}
        m = self.put(WIDGETS + "/g", s)
        self.assertEqual(m["status"], {"ready": True})

    def test_no_op_update_keeps_the_resource_version(self):
        obj = self.create(CM, configmap("noop"))
        again = self.put(CM + "/noop", obj)
        self.assertEqual(again["metadata"]["resourceVersion"], obj["metadata"]["resourceVersion"])
        r = self.sim.http("PATCH", CM + "/noop", data='{"data":{"k":"v"}}',
                          headers={"Content-Type": "application/merge-patch+json"})
        self.assertEqual(r.json()["metadata"]["resourceVersion"], obj["metadata"]["resourceVersion"])

    def test_update_without_resource_version_is_unconditional(self):
        obj = self.create(CM, configmap("uncond"))
        del obj["metadata"]["resourceVersion"]
        obj["data"] = {"k": "new"}
        self.assertEqual(self.put(CM + "/uncond", obj)["data"], {"k": "new"})

    def test_delete_returns_the_object_or_a_success_status(self):
        self.create(CM, configmap("del"))
        r = self.sim.http("DELETE", CM + "/del")
        self.assertEqual(r.status_code, 200, r.text)
        body = r.json()
        self.assertIn(body["kind"], ("ConfigMap", "Status"))
        self.assertTrue(self.gone(CM + "/del"))
        self.assertStatus(self.sim.http("DELETE", CM + "/del"), 404, "NotFound", message='configmaps "del" not found')

    def test_delete_with_a_uid_precondition_that_does_not_match_is_409(self):
        self.create(CM, configmap("pre"))
        r = self.sim.http("DELETE", CM + "/pre", json={"kind": "DeleteOptions", "apiVersion": "v1",
                                                       "preconditions": {"uid": "not-the-uid"}})
        self.assertStatus(r, 409, "Conflict", message_contains="Precondition failed: UID in precondition: not-the-uid")
        self.assertFalse(self.gone(CM + "/pre"))

    def test_finalizers_keep_a_deleted_object_until_they_are_removed(self):
        obj = self.create(CM, configmap("fin", finalizers=["example.com/hold"]))
        watch = WatchStream(self.sim, CM + "?watch=true&fieldSelector=metadata.name%3Dfin&resourceVersion="
                            + obj["metadata"]["resourceVersion"])
        try:
            r = self.sim.http("DELETE", CM + "/fin")
            self.assertIn(r.status_code, (200, 202), r.text)
            held = self.get(CM + "/fin")
            self.assertIn("deletionTimestamp", held["metadata"])
            self.assertEqual(held["metadata"]["deletionGracePeriodSeconds"], 0)
            self.assertEqual(held["metadata"]["finalizers"], ["example.com/hold"])
            # Deleting again changes nothing; adding a finalizer while deleting is allowed, but
            # new data may still be written.
            self.assertEqual(self.sim.http("DELETE", CM + "/fin").status_code, 200)
            held["data"] = {"k": "late"}
            held = self.put(CM + "/fin", held)
            held["metadata"]["finalizers"] = []
            r = self.sim.http("PUT", CM + "/fin", json=held)
            self.assertEqual(r.status_code, 200, r.text)
            wait_until(lambda: self.gone(CM + "/fin"), message="object removed after its last finalizer")
            deleted = watch.wait_for(lambda e: e["type"] == "DELETED", message="DELETED event")
            self.assertEqual(deleted["object"]["metadata"]["name"], "fin")
            types = [e["type"] for e in watch.snapshot()]
            self.assertEqual(types[0], "MODIFIED")  # the deletionTimestamp write
        finally:
            watch.close()

    def test_deletion_timestamp_cannot_be_set_by_a_client(self):
        obj = self.create(CM, configmap("nodel"))
        obj["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z"
        updated = self.put(CM + "/nodel", obj)
        self.assertNotIn("deletionTimestamp", updated["metadata"])

    def owned(self, name, owner, kind="ConfigMap", block=None):
        ref = {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": owner["metadata"]["name"],
               "uid": owner["metadata"]["uid"]}
        if block is not None:
            ref["blockOwnerDeletion"] = block
        return configmap(name, ownerReferences=[ref])

    def test_background_garbage_collection_deletes_dependents(self):
        owner = self.create(CM, configmap("gc-owner"))
        owner.setdefault("apiVersion", "v1")
        owner.setdefault("kind", "ConfigMap")
        self.create(CM, self.owned("gc-child-1", owner))
        self.create(CM, self.owned("gc-child-2", owner))
        r = self.sim.http("DELETE", CM + "/gc-owner?propagationPolicy=Background")
        self.assertEqual(r.status_code, 200, r.text)
        self.assertTrue(self.gone(CM + "/gc-owner"))
        wait_until(lambda: self.gone(CM + "/gc-child-1") and self.gone(CM + "/gc-child-2"),
                   message="dependents garbage-collected")

    def test_dependents_of_an_owner_that_never_existed_are_collected(self):
        ghost = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ghost",
                                                                       "uid": "00000000-0000-4000-8000-000000000000"}}
        self.create(CM, self.owned("orphan-of-ghost", ghost))
        wait_until(lambda: self.gone(CM + "/orphan-of-ghost"), message="dangling dependent collected")

    def test_orphan_propagation_removes_owner_references_and_keeps_dependents(self):
        owner = self.create(CM, configmap("orph-owner"))
        owner.setdefault("apiVersion", "v1")
        owner.setdefault("kind", "ConfigMap")
        self.create(CM, self.owned("orph-child", owner))
        r = self.sim.http("DELETE", CM + "/orph-owner", json={"kind": "DeleteOptions", "apiVersion": "v1",
                                                               "propagationPolicy": "Orphan"})
        self.assertEqual(r.status_code, 200, r.text)
        wait_until(lambda: self.gone(CM + "/orph-owner"), message="owner deleted")
        child = wait_until(lambda: (lambda c: c if not c["metadata"].get("ownerReferences") else None)(
            self.get(CM + "/orph-child")), message="ownerReferences removed")
        self.assertEqual(child["metadata"]["name"], "orph-child")

    def test_foreground_propagation_deletes_dependents_before_the_owner(self):
        owner = self.create(CM, configmap("fg-owner"))
        owner.setdefault("apiVersion", "v1")
        owner.setdefault("kind", "ConfigMap")
        self.create(CM, self.owned("fg-child", owner, block=True))
        r = self.sim.http("DELETE", CM + "/fg-owner?propagationPolicy=Foreground")
        self.assertEqual(r.status_code, 200, r.text)
        wait_until(lambda: self.gone(CM + "/fg-owner") and self.gone(CM + "/fg-child"),
                   message="owner and dependent deleted")

    def test_deletecollection_with_a_label_selector_deletes_only_matching_objects(self):
        for i in range(3):
            self.create(CM, configmap(f"dc-a-{i}", labels={"batch": "a"}))
        self.create(CM, configmap("dc-b", labels={"batch": "b"}))
        r = self.sim.http("DELETE", CM + "?labelSelector=batch%3Da")
        self.assertEqual(r.status_code, 200, r.text)
        body = r.json()
        self.assertEqual(body["kind"], "ConfigMapList")
        self.assertEqual(sorted(i["metadata"]["name"] for i in body["items"]), ["dc-a-0", "dc-a-1", "dc-a-2"])
        left = self.get(CM + "?labelSelector=batch")["items"]
        self.assertEqual([i["metadata"]["name"] for i in left], ["dc-b"])

    def test_pods_without_a_node_are_deleted_at_once_and_bound_pods_gracefully(self):
        p = self.create("/api/v1/namespaces/default/pods", pod("unbound"))
        r = self.sim.http("DELETE", "/api/v1/namespaces/default/pods/unbound")
        self.assertEqual(r.status_code, 200, r.text)
        self.assertTrue(self.gone("/api/v1/namespaces/default/pods/unbound"))
        self.create("/api/v1/namespaces/default/pods", pod("bound", node="node-0"))
        r = self.sim.http("DELETE", "/api/v1/namespaces/default/pods/bound")
        self.assertEqual(r.status_code, 200, r.text)
        self.assertEqual(r.json()["metadata"].get("deletionGracePeriodSeconds"), 30)
        wait_until(lambda: self.gone("/api/v1/namespaces/default/pods/bound"), message="kubelet completes the delete")
        del p


if __name__ == "__main__":
    unittest.main()
