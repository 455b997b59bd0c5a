"""kubesim conformance: WATCH streams (resume, initial state, 410, bookmarks, timeouts, selectors)."""
import json
import time
import unittest

from conformance_util import ConformanceCase, WatchStream, configmap, start_kubesim, wait_until

NS = "/api/v1/namespaces/default/configmaps"


class WatchTest(ConformanceCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = start_kubesim(nodes=1, history_window=5, bookmark_interval="1s")

    def watch(self, query, path=NS):
        stream = WatchStream(self.sim, f"{path}?watch=true&{query}")
        self.addCleanup(stream.close)
        self.assertEqual(stream.status_code, 200)
        return stream

    def rv(self, obj):
        return int(obj["metadata"]["resourceVersion"])

    def test_watch_from_a_resource_version_replays_later_events_in_order(self):
        start = self.get(NS)["metadata"]["resourceVersion"]
        a = self.create(NS, configmap("w-replay-a", labels={"t": "replay"}))
        a["data"] = {"k": "2"}
        r = self.sim.http("PUT", NS + "/w-replay-a", json=a)
        self.assertEqual(r.status_code, 200)
        self.sim.http("DELETE", NS + "/w-replay-a")
        stream = self.watch(f"resourceVersion={start}&labelSelector=t%3Dreplay")
        stream.wait_for(lambda e: e["type"] == "DELETED")
        events = stream.snapshot()
        self.assertEqual([e["type"] for e in events], ["ADDED", "MODIFIED", "DELETED"])
        rvs = [self.rv(e["object"]) for e in events]
        self.assertEqual(rvs, sorted(rvs))
        self.assertGreater(rvs[0], int(start))
        self.assertEqual(events[1]["object"]["data"], {"k": "2"})
        self.assertEqual(events[0]["object"]["kind"], "ConfigMap")

    def test_watch_without_resource_version_sends_added_for_existing_objects_then_changes(self):
        self.create(NS, configmap("w-init-1", labels={"t": "init"}))
        self.create(NS, configmap("w-init-2", labels={"t": "init"}))
        for query in ("labelSelector=t%3Dinit", "labelSelector=t%3Dinit&resourceVersion=0"):
            stream = self.watch(query)
            wait_until(lambda: len(stream.snapshot()) >= 2, message="initial ADDED events")
            self.assertEqual(sorted((e["type"], e["object"]["metadata"]["name"]) for e in stream.snapshot()),
                             [("ADDED", "w-init-1"), ("ADDED", "w-init-2")])
        self.create(NS, configmap("w-init-3", labels={"t": "init"}))
        stream.wait_for(lambda e: e["object"]["metadata"]["name"] == "w-init-3" and e["type"] == "ADDED")

    def test_watch_from_a_compacted_resource_version_gets_a_410_expired_error_event(self):
        old = self.get(NS)["metadata"]["resourceVersion"]
        for i in range(8):
            self.create(NS, configmap(f"w-churn-{i}"))
        stream = self.watch(f"resourceVersion={old}")
        stream.wait_closed()
        events = stream.snapshot()
        self.assertEqual(len(events), 1, events)
        self.assertEqual(events[0]["type"], "ERROR")
        status = events[0]["object"]
        self.assertEqual((status["kind"], status["status"], status["reason"], status["code"]),
                         ("Status", "Failure", "Expired", 410))
        self.assertTrue(status["message"].startswith(f"too old resource version: {old} ("), status["message"])

    def test_watch_from_a_future_resource_version_is_refused(self):
        stream = self.watch("resourceVersion=999999999")
        stream.wait_closed()
        events = stream.snapshot()
        self.assertEqual(events[0]["type"], "ERROR")
        self.assertEqual(events[0]["object"]["code"], 504)
        self.assertIn("Too large resource version", events[0]["object"]["message"])

    def test_bookmarks_are_delivered_when_allowed(self):
        rv = self.get(NS)["metadata"]["resourceVersion"]
        stream = self.watch(f"resourceVersion={rv}&allowWatchBookmarks=true&labelSelector=none%3Dnone")
        bm = stream.wait_for(lambda e: e["type"] == "BOOKMARK", timeout=5, message="BOOKMARK")
        self.assertEqual(bm["object"]["kind"], "ConfigMap")
        self.assertEqual(bm["object"]["apiVersion"], "v1")
        self.assertGreaterEqual(int(bm["object"]["metadata"]["resourceVersion"]), int(rv))
        self.assertNotIn("data", bm["object"])

    def test_no_bookmarks_without_allow_watch_bookmarks(self):
        rv = self.get(NS)["metadata"]["resourceVersion"]
        stream = self.watch(f"resourceVersion={rv}&timeoutSeconds=3&labelSelector=none%3Dnone")
        stream.wait_closed(timeout=10)
        self.assertEqual(stream.snapshot(), [])

    def test_timeout_seconds_ends_the_stream(self):
        rv = self.get(NS)["metadata"]["resourceVersion"]
        started = time.monotonic()
        stream = self.watch(f"resourceVersion={rv}&timeoutSeconds=1")
        stream.wait_closed(timeout=10)
        self.assertLess(time.monotonic() - started, 5)

    def test_an_object_that_stops_matching_the_selector_arrives_as_deleted(self):
        rv = self.get(NS)["metadata"]["resourceVersion"]
        stream = self.watch(f"resourceVersion={rv}&labelSelector=color%3Dblue")
        obj = self.create(NS, configmap("w-sel", labels={"color": "blue"}))
        stream.wait_for(lambda e: e["type"] == "ADDED" and e["object"]["metadata"]["name"] == "w-sel")
        obj["metadata"]["labels"] = {"color": "red"}
        r = self.sim.http("PUT", NS + "/w-sel", json=obj)
        self.assertEqual(r.status_code, 200)
        gone = stream.wait_for(lambda e: e["type"] == "DELETED", message="DELETED for a non-matching update")
        self.assertEqual(gone["object"]["metadata"]["labels"], {"color": "red"})
        back = r.json()
        back["metadata"]["labels"] = {"color": "blue"}
        self.assertEqual(self.sim.http("PUT", NS + "/w-sel", json=back).status_code, 200)
        stream.wait_for(lambda e: e["type"] == "ADDED" and e["object"]["metadata"]["labels"] == {"color": "blue"}
                        and self.rv(e["object"]) > self.rv(gone["object"]), message="ADDED when matching again")

    def test_field_selector_on_metadata_name_watches_one_object(self):
        rv = self.get(NS)["metadata"]["resourceVersion"]
        stream = self.watch(f"resourceVersion={rv}&fieldSelector=metadata.name%3Dw-one")
        self.create(NS, configmap("w-other"))
        self.create(NS, configmap("w-one"))
        stream.wait_for(lambda e: e["object"]["metadata"]["name"] == "w-one")
        self.assertTrue(all(e["object"]["metadata"]["name"] == "w-one" for e in stream.snapshot()))

    def test_send_initial_events_ends_with_the_initial_events_end_bookmark(self):
        self.create(NS, configmap("w-sie", labels={"t": "sie"}))
        stream = self.watch("sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"
                            "&labelSelector=t%3Dsie")
        bm = stream.wait_for(lambda e: e["type"] == "BOOKMARK", message="initial-events-end bookmark")
        events = stream.snapshot()
        self.assertEqual([(e["type"], e["object"]["metadata"].get("name")) for e in events[:1]], [("ADDED", "w-sie")])
        self.assertEqual(bm["object"]["metadata"]["annotations"], {"k8s.io/initial-events-end": "true"})
        self.assertEqual(events.index(bm), 1)

    def test_send_initial_events_without_bookmarks_is_422(self):
        r = self.sim.http("GET", NS + "?watch=true&sendInitialEvents=true")
        self.assertStatus(r, 422, "Invalid", message_contains="sendInitialEvents")

    def test_namespaced_watch_sees_only_its_namespace(self):
        self.ensure_namespace("w-other-ns")
        rv = self.get(NS)["metadata"]["resourceVersion"]
        stream = self.watch(f"resourceVersion={rv}")
        self.create("/api/v1/namespaces/w-other-ns/configmaps", configmap("elsewhere"))
        self.create(NS, configmap("w-here"))
        stream.wait_for(lambda e: e["object"]["metadata"]["name"] == "w-here")
        self.assertNotIn("elsewhere", [e["object"]["metadata"]["name"] for e in stream.snapshot()])

    def test_watch_accepts_every_go_boolean_spelling_and_refuses_others(self):
        for spelling in ("True", "1", "t"):
            stream = WatchStream(self.sim, f"{NS}?watch={spelling}&timeoutSeconds=1&fieldSelector=metadata.name%3Dnothing")
            self.addCleanup(stream.close)
            stream.wait_closed()
            self.assertEqual(stream.status_code, 200)
            self.assertEqual(stream.snapshot(), [])  # a watch: no List body
        r = self.sim.http("GET", NS + "?watch=maybe")
        self.assertStatus(r, 400, "BadRequest", message_contains='parsing "maybe": invalid syntax')

    def test_watch_body_is_newline_delimited_json_with_chunked_encoding(self):
        rv = self.get(NS)["metadata"]["resourceVersion"]
        r = self.sim.http("GET", f"{NS}?watch=true&resourceVersion={rv}&timeoutSeconds=1&fieldSelector=metadata.name%3Dw-nd",
                          stream=True)
        self.assertEqual(r.headers.get("Transfer-Encoding"), "chunked")
        self.assertTrue(r.headers["Content-Type"].startswith("application/json"))
        self.create(NS, configmap("w-nd"))
        lines = [l for l in r.iter_lines() if l]
        self.assertEqual([json.loads(l)["type"] for l in lines], ["ADDED"])


if __name__ == "__main__":
    unittest.main()
