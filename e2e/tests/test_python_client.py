"""Debian's python3-kubernetes client (an independent client, not Go) against kubesim: kubeconfig loading, list,
create, label-selected list, watch with timeout_seconds (ADDED/MODIFIED/DELETED), and custom objects."""
import queue
import threading
import unittest

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from kubesim_fixture import Kubesim, wait_until

GROUP, VERSION, PLURAL = "scheduling.koordinator.sh", "v1alpha1", "reservations"


def pod_body(name, labels=None, node=None, with_kind=True):
    """A V1Pod model. The generated models leave apiVersion/kind unset unless given."""
    return client.V1Pod(
        api_version="v1" if with_kind else None, kind="Pod" if with_kind else None,
        metadata=client.V1ObjectMeta(name=name, labels=labels or {}),
        spec=client.V1PodSpec(node_name=node, containers=[client.V1Container(name="main", image="busybox")]))


class PythonClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=3)
        try:
            cls.sim.install_crds()
            cls.api_client = config.new_client_from_config(config_file=cls.sim.kubeconfig)
        except Exception:
            cls.sim.stop()
            raise
        cls.core = client.CoreV1Api(cls.api_client)

    @classmethod
    def tearDownClass(cls):
        cls.api_client.close()
        cls.sim.stop()

    def test_lists_nodes_with_their_ready_condition_and_allocatable(self):
        nodes = self.core.list_node().items
        self.assertEqual(sorted(n.metadata.name for n in nodes), ["node-0", "node-1", "node-2"])
        for node in nodes:
            ready = [c for c in node.status.conditions if c.type == "Ready"]
            self.assertEqual([c.status for c in ready], ["True"])
            self.assertEqual(node.status.allocatable["pods"], "110")
            self.assertEqual(node.status.allocatable["cpu"], "8")

    def test_creates_and_lists_pods(self):
        created = self.core.create_namespaced_pod("default", pod_body("py-create", {"origin": "python"}, "node-0"))
        self.assertEqual(created.metadata.name, "py-create")
        self.assertTrue(created.metadata.uid)
        self.assertTrue(created.metadata.resource_version)
        names = [p.metadata.name for p in self.core.list_namespaced_pod("default").items]
        self.assertIn("py-create", names)
        names = [p.metadata.name for p in self.core.list_pod_for_all_namespaces().items]
        self.assertIn("py-create", names)
        got = wait_until(lambda: (lambda p: p if p.status.phase == "Running" else None)(
            self.core.read_namespaced_pod("py-create", "default")), timeout=10, message="py-create Running")
        self.assertEqual(got.spec.node_name, "node-0")
        with self.assertRaises(ApiException) as err:
            self.core.create_namespaced_pod("default", pod_body("py-create"))
        self.assertEqual(err.exception.status, 409)

    def test_creates_a_pod_from_a_model_without_kind(self):
        # The apiserver takes apiVersion/kind of built-in types from the endpoint when the body omits them.
        created = self.core.create_namespaced_pod("default", pod_body("py-no-kind", with_kind=False))
        self.assertEqual(created.kind, "Pod")
        self.assertEqual(created.api_version, "v1")
        self.assertEqual(self.core.read_namespaced_pod("py-no-kind", "default").metadata.uid, created.metadata.uid)

    def test_reading_a_missing_pod_raises_404(self):
        with self.assertRaises(ApiException) as err:
            self.core.read_namespaced_pod("py-missing", "default")
        self.assertEqual(err.exception.status, 404)
        self.assertIn('pods \\"py-missing\\" not found', err.exception.body)

    def test_lists_with_label_and_field_selectors(self):
        for name, tier in (("py-sel-a", "front"), ("py-sel-b", "back"), ("py-sel-c", "front")):
            self.core.create_namespaced_pod("default", pod_body(name, {"py-tier": tier}))
        front = self.core.list_namespaced_pod("default", label_selector="py-tier=front").items
        self.assertEqual(sorted(p.metadata.name for p in front), ["py-sel-a", "py-sel-c"])
        notfront = self.core.list_namespaced_pod("default", label_selector="py-tier,py-tier!=front").items
        self.assertEqual([p.metadata.name for p in notfront], ["py-sel-b"])
        byname = self.core.list_namespaced_pod("default", field_selector="metadata.name=py-sel-c").items
        self.assertEqual([p.metadata.name for p in byname], ["py-sel-c"])

    def test_paginates_with_limit_and_continue(self):
        for i in range(5):
            self.core.create_namespaced_pod("default", pod_body(f"py-page-{i}", {"py-page": "yes"}))
        seen, token, pages = [], None, 0
        while True:
            page = self.core.list_namespaced_pod("default", label_selector="py-page=yes", limit=2, _continue=token)
            self.assertLessEqual(len(page.items), 2)
            seen += [p.metadata.name for p in page.items]
            pages += 1
            token = page.metadata._continue
            if not token:
                break
        self.assertEqual(sorted(seen), [f"py-page-{i}" for i in range(5)])
        self.assertEqual(pages, 3)

    def test_watch_sees_added_modified_and_deleted_for_a_pod(self):
        start = self.core.list_namespaced_pod("default", label_selector="py-watch=yes")
        events = queue.Queue()
        w = watch.Watch()

        def run():
            try:
                for ev in w.stream(self.core.list_namespaced_pod, "default", label_selector="py-watch=yes",
                                   resource_version=start.metadata.resource_version, timeout_seconds=20):
                    events.put((ev["type"], ev["object"].metadata.name, ev["object"].metadata.labels))
            except Exception as e:  # surfaced to the test through the queue
                events.put(("EXCEPTION", repr(e), None))
            events.put(("END", None, None))

        t = threading.Thread(target=run, daemon=True)
        t.start()

        def next_event(want_type):
            while True:
                typ, name, labels = events.get(timeout=15)
                if typ in ("EXCEPTION", "END"):
                    self.fail(f"watch ended before {want_type}: {name}")
                if name == "py-watched":
                    self.assertEqual(typ, want_type)
                    return labels

        # The watch starts from the list's resourceVersion, so nothing is missed even if it connects late.
        self.core.create_namespaced_pod("default", pod_body("py-watched", {"py-watch": "yes"}))
        self.assertEqual(next_event("ADDED"), {"py-watch": "yes"})
        self.core.patch_namespaced_pod("py-watched", "default", {"metadata": {"labels": {"step": "two"}}})
        self.assertEqual(next_event("MODIFIED"), {"py-watch": "yes", "step": "two"})
        self.core.delete_namespaced_pod("py-watched", "default", grace_period_seconds=0)
        next_event("DELETED")
        # Watch.stop() takes effect at the next event: make one so the stream ends now, not at timeout_seconds.
        w.stop()
        self.core.create_namespaced_pod("default", pod_body("py-watch-stopper", {"py-watch": "yes"}))
        t.join(timeout=25)
        self.assertFalse(t.is_alive())

    def test_watch_ends_after_timeout_seconds(self):
        w = watch.Watch()
        got = list(w.stream(self.core.list_node, timeout_seconds=1))
        # The initial state arrives as ADDED events, then the server closes the stream at the timeout.
        self.assertEqual(sorted(e["object"].metadata.name for e in got if e["type"] == "ADDED"),
                         ["node-0", "node-1", "node-2"])

    def test_reads_and_lists_reservations_with_custom_objects_api(self):
        custom = client.CustomObjectsApi(self.api_client)
        body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Reservation", "metadata": {"name": "py-rsv"},
                "spec": {"template": {"spec": {"containers": [{"name": "c", "resources": {
                    "requests": {"cpu": "1"}}}]}}, "owners": [{"object": {"name": "p", "namespace": "default"}}]}}
        created = custom.create_cluster_custom_object(GROUP, VERSION, PLURAL, body)
        self.assertEqual(created["metadata"]["name"], "py-rsv")
        got = custom.get_cluster_custom_object(GROUP, VERSION, PLURAL, "py-rsv")
        self.assertEqual(got["spec"]["ttl"], "24h")  # defaulted from the CRD schema
        self.assertEqual(got["spec"]["owners"], [{"object": {"name": "p", "namespace": "default"}}])
        listed = custom.list_cluster_custom_object(GROUP, VERSION, PLURAL)
        self.assertIn("py-rsv", [i["metadata"]["name"] for i in listed["items"]])
        body["metadata"]["name"] = "py-rsv-bad"
        body["spec"]["owners"] = []
        with self.assertRaises(ApiException) as err:
            custom.create_cluster_custom_object(GROUP, VERSION, PLURAL, body)
        self.assertEqual(err.exception.status, 422)
        self.assertIn("spec.owners in body should have at least 1 items", err.exception.body)


if __name__ == "__main__":
    unittest.main()
