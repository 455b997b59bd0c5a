"""kubesim conformance: LIST with selectors, paging and the resourceVersion rules."""
import unittest
from urllib.parse import quote

from conformance_util import ConformanceCase, configmap, pod, start_kubesim, wait_until

CM_ALL = "/api/v1/configmaps"


class SelectorTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=2, no_kubelet=True)
        sim = cls.sim
        for ns in ("sel-a", "sel-b"):
            r = sim.http("POST", "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace",
                                                              "metadata": {"name": ns}})
            assert r.status_code == 201, r.text
        specs = [("p1", "sel-a", {"app": "web", "tier": "front"}, "node-0"),
                 ("p2", "sel-a", {"app": "web", "tier": "back"}, "node-1"),
                 ("p3", "sel-a", {"app": "db"}, None),
                 ("p4", "sel-b", {"app": "web", "env": "prod"}, "node-0")]
        for name, ns, labels, node in specs:
            r = sim.http("POST", f"/api/v1/namespaces/{ns}/pods", json=pod(name, labels=labels, node=node))
            assert r.status_code == 201, r.text
        # p2 reaches Running so status.phase selectors have two values to tell apart.
        r = sim.http("PATCH", "/api/v1/namespaces/sel-a/pods/p2/status", data='{"status":{"phase":"Running"}}',
                     headers={"Content-Type": "application/merge-patch+json"})
        assert r.status_code == 200, r.text

    def names(self, path):
        body = self.get(path)
        return sorted(i["metadata"]["name"] for i in body["items"])

    def test_list_kind_api_version_and_resource_version(self):
        body = self.get("/api/v1/namespaces/sel-a/pods")
        self.assertEqual(body["kind"], "PodList")
        self.assertEqual(body["apiVersion"], "v1")
        self.assertTrue(body["metadata"]["resourceVersion"].isdigit())
        self.assertEqual(sorted(i["metadata"]["name"] for i in body["items"]), ["p1", "p2", "p3"])

    def test_equality_label_selectors(self):
        self.assertEqual(self.names("/api/v1/pods?labelSelector=app%3Dweb"), ["p1", "p2", "p4"])
        self.assertEqual(self.names("/api/v1/pods?labelSelector=app%3D%3Dweb,tier%21%3Dback"), ["p1", "p4"])
        self.assertEqual(self.names("/api/v1/namespaces/sel-a/pods?labelSelector=app%21%3Dweb"), ["p3"])

    def test_set_based_label_selectors(self):
        self.assertEqual(self.names("/api/v1/pods?labelSelector=" + quote("app in (db,web),tier notin (back)")),
                         ["p1", "p3", "p4"])
        self.assertEqual(self.names("/api/v1/pods?labelSelector=tier"), ["p1", "p2"])
        self.assertEqual(self.names("/api/v1/pods?labelSelector=" + quote("!tier,app")), ["p3", "p4"])

    def test_invalid_label_selector_is_400(self):
        r = self.sim.http("GET", "/api/v1/pods?labelSelector=" + quote("app in (web"))
        self.assertStatus(r, 400, "BadRequest")

    def test_field_selectors_on_name_namespace_node_and_phase(self):
        self.assertEqual(self.names("/api/v1/pods?fieldSelector=metadata.name%3Dp2"), ["p2"])
        self.assertEqual(self.names("/api/v1/pods?fieldSelector=metadata.namespace%3Dsel-b"), ["p4"])
        self.assertEqual(self.names("/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-0"), ["p1", "p4"])
        self.assertEqual(self.names("/api/v1/namespaces/sel-a/pods?fieldSelector=spec.nodeName%3D"), ["p3"])
        self.assertEqual(self.names("/api/v1/pods?fieldSelector=status.phase%3DRunning"), ["p2"])
        self.assertEqual(self.names("/api/v1/pods?fieldSelector=status.phase%21%3DRunning,spec.nodeName%3Dnode-0"),
                         ["p1", "p4"])

    def test_field_and_label_selectors_combine(self):
        self.assertEqual(self.names("/api/v1/pods?labelSelector=app%3Dweb&fieldSelector=metadata.namespace%3Dsel-a"),
                         ["p1", "p2"])

    def test_unsupported_field_label_is_400(self):
        r = self.sim.http("GET", "/api/v1/pods?fieldSelector=spec.foo%3Dx")
        self.assertStatus(r, 400, "BadRequest", message='field label not supported: spec.foo')

    def test_event_involved_object_field_selectors(self):
        ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "p1.ev"},
              "involvedObject": {"kind": "Pod", "namespace": "sel-a", "name": "p1", "uid": "u1"},
              "reason": "Started", "message": "started", "type": "Normal"}
        self.create("/api/v1/namespaces/sel-a/events", ev)
        other = dict(ev, metadata={"name": "p2.ev"}, involvedObject={"kind": "Pod", "namespace": "sel-a", "name": "p2"})
        self.create("/api/v1/namespaces/sel-a/events", other)
        self.assertEqual(self.names("/api/v1/namespaces/sel-a/events?fieldSelector=involvedObject.name%3Dp1"),
                         ["p1.ev"])
        q = quote("involvedObject.kind=Pod,involvedObject.namespace=sel-a,involvedObject.uid=u1")
        self.assertEqual(self.names("/api/v1/namespaces/sel-a/events?fieldSelector=" + q), ["p1.ev"])
        self.assertEqual(self.names("/api/v1/namespaces/sel-a/events?fieldSelector=reason%3DStarted"),
                         ["p1.ev", "p2.ev"])


class PagingTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1, history_window=5)
        for ns in ("page-a", "page-b", "page-c"):
            cls.sim.http("POST", "/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace",
                                                              "metadata": {"name": ns}})
        cls.expected = set()
        for ns in ("page-a", "page-b", "page-c"):
            for i in range(7):
                r = cls.sim.http("POST", f"/api/v1/namespaces/{ns}/configmaps",
                                 json=configmap(f"cm-{i}", labels={"paged": "yes"}))
                assert r.status_code == 201, r.text
                cls.expected.add((ns, f"cm-{i}"))

    def collect(self, path, limit):
        seen, pages, rvs = [], 0, set()
        cont = ""
        while True:
            sep = "&" if "?" in path else "?"
            body = self.get(f"{path}{sep}limit={limit}" + (f"&continue={quote(cont)}" if cont else ""))
            pages += 1
            rvs.add(body["metadata"]["resourceVersion"])
            self.assertLessEqual(len(body["items"]), limit)
            seen += [(i["metadata"].get("namespace", ""), i["metadata"]["name"]) for i in body["items"]]
            cont = body["metadata"].get("continue", "")
            if not cont:
                self.assertNotIn("remainingItemCount", body["metadata"])
                return seen, pages, rvs
            if "Selector=" in path:
                # The apiserver counts what remains only for lists without selectors.
                self.assertNotIn("remainingItemCount", body["metadata"])
            else:
                self.assertEqual(body["metadata"]["remainingItemCount"], len(self.expected_in(path)) - len(seen))

    def expected_in(self, path):
        if "/namespaces/page-b/" in path:
            return {k for k in self.expected if k[0] == "page-b"}
        return self.expected

    def test_limit_and_continue_return_every_object_exactly_once(self):
        seen, pages, rvs = self.collect(CM_ALL + "?labelSelector=paged%3Dyes", 4)
        self.assertEqual(len(seen), len(set(seen)))
        self.assertEqual(set(seen), self.expected)
        self.assertEqual(pages, 6)
        self.assertEqual(seen, sorted(seen))
        self.assertEqual(len(rvs), 1, "every page is served at the first page's resourceVersion")

    def test_paging_within_one_namespace(self):
        seen, pages, _ = self.collect("/api/v1/namespaces/page-b/configmaps?labelSelector=paged", 3)
        self.assertEqual(set(seen), self.expected_in("/namespaces/page-b/"))
        self.assertEqual(pages, 3)

    def test_unfiltered_pages_count_the_remaining_items(self):
        seen, pages, _ = self.collect("/api/v1/namespaces/page-b/configmaps", 3)
        self.assertEqual(set(seen), self.expected_in("/namespaces/page-b/"))
        self.assertEqual(pages, 3)

    def test_continue_is_a_consistent_snapshot_despite_later_writes(self):
        first = self.get("/api/v1/namespaces/page-a/configmaps?limit=2&labelSelector=paged")
        r = self.sim.http("POST", "/api/v1/namespaces/page-a/configmaps", json=configmap("zz-late", labels={"paged": "no"}))
        self.assertEqual(r.status_code, 201)
        try:
            rest = self.get("/api/v1/namespaces/page-a/configmaps?limit=100&labelSelector=paged&continue="
                            + quote(first["metadata"]["continue"]))
            names = [i["metadata"]["name"] for i in first["items"] + rest["items"]]
            self.assertNotIn("zz-late", names)
            self.assertEqual(names, [f"cm-{i}" for i in range(7)])
        finally:
            self.sim.http("DELETE", "/api/v1/namespaces/page-a/configmaps/zz-late")

    def test_malformed_continue_token_is_400(self):
        r = self.sim.http("GET", "/api/v1/namespaces/page-a/configmaps?limit=2&continue=garbage!!")
        self.assertStatus(r, 400, "BadRequest")

    def test_exact_list_at_an_older_resource_version_and_410_once_compacted(self):
        old = self.get("/api/v1/namespaces/page-c/configmaps")
        old_rv = old["metadata"]["resourceVersion"]
        r = self.sim.http("POST", "/api/v1/namespaces/page-c/configmaps", json=configmap("after"))
        self.assertEqual(r.status_code, 201)
        exact = self.get(f"/api/v1/namespaces/page-c/configmaps?resourceVersion={old_rv}&resourceVersionMatch=Exact")
        self.assertEqual(exact["metadata"]["resourceVersion"], old_rv)
        self.assertEqual(exact["items"], old["items"])
        # With a 5-event history window, a few more writes compact that RV away.
        page = self.get("/api/v1/namespaces/page-c/configmaps?limit=2")
        for i in range(6):
            self.sim.http("POST", "/api/v1/namespaces/page-c/configmaps", json=configmap(f"churn-{i}"))
        r = self.sim.http("GET", f"/api/v1/namespaces/page-c/configmaps?resourceVersion={old_rv}&resourceVersionMatch=Exact")
        self.assertStatus(r, 410, "Expired", message="The resourceVersion for the provided list is too old.")
        r = self.sim.http("GET", "/api/v1/namespaces/page-c/configmaps?limit=2&continue=" + quote(page["metadata"]["continue"]))
        body = self.assertStatus(r, 410, "Expired", message_contains="The provided continue parameter is too old to "
                                                                     "display a consistent list result.")
        # The 410 carries a token that continues the list at the latest state.
        rest = self.get("/api/v1/namespaces/page-c/configmaps?limit=100&continue=" + quote(body["metadata"]["continue"]))
        names = [i["metadata"]["name"] for i in page["items"] + rest["items"]]
        self.assertEqual(names, ["after"] + [f"cm-{i}" for i in range(7)])

    def test_not_older_than_and_unset_resource_version_return_current_state(self):
        current = int(self.get("/api/v1/namespaces/page-a/configmaps")["metadata"]["resourceVersion"])
        body = self.get("/api/v1/namespaces/page-a/configmaps?resourceVersion=1&resourceVersionMatch=NotOlderThan")
        self.assertGreaterEqual(int(body["metadata"]["resourceVersion"]), current)
        body = self.get("/api/v1/namespaces/page-a/configmaps?resourceVersion=0")
        self.assertGreaterEqual(int(body["metadata"]["resourceVersion"]), current)

    def test_resource_version_from_the_future_is_504_too_large(self):
        r = self.sim.http("GET", "/api/v1/namespaces/page-a/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan")
        body = self.assertStatus(r, 504, "Timeout", message_contains="Too large resource version")
        self.assertEqual(body["details"]["causes"][0]["reason"], "ResourceVersionTooLarge")

    def test_resource_version_match_without_resource_version_is_422(self):
        r = self.sim.http("GET", "/api/v1/namespaces/page-a/configmaps?resourceVersionMatch=Exact")
        self.assertStatus(r, 422, "Invalid", message='ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: '
                          'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided')

    def test_exact_with_resource_version_zero_is_422(self):
        r = self.sim.http("GET", "/api/v1/namespaces/page-a/configmaps?resourceVersion=0&resourceVersionMatch=Exact")
        self.assertStatus(r, 422, "Invalid", message_contains='resourceVersionMatch "exact" is forbidden for resourceVersion "0"')

    def test_unknown_resource_version_match_is_422(self):
        r = self.sim.http("GET", "/api/v1/namespaces/page-a/configmaps?resourceVersion=5&resourceVersionMatch=Bogus")
        body = self.assertStatus(r, 422, "Invalid", message_contains='Unsupported value: "Bogus": supported values: '
                                 '"Exact", "NotOlderThan", ""')
        self.assertEqual(body["details"]["causes"][0]["reason"], "FieldValueNotSupported")


if __name__ == "__main__":
    unittest.main()
