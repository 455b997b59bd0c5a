"""Shared helpers of the kubesim HTTP conformance suites (test_conformance_*.py).

Each suite starts its own kubesim through the Kubesim fixture, talks to it with raw HTTPS, and
asserts status codes and metav1.Status bodies as the real kube-apiserver words them.
"""
import json
import os
import socket
import threading
import time
import unittest

from kubesim_fixture import Kubesim, wait_until  # noqa: F401  (re-exported for the suites)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RESERVATION_CRD = os.path.join(ROOT, "crds", "scheduling.koordinator.sh_reservations.yaml")


def start_kubesim(nodes=3, **flags):
    """Starts kubesim and makes its HTTP session trust only kubesim's CA.

    requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override Session.verify; with trust_env off
    the fixture's CA file is used whatever the environment says.
    """
    sim = Kubesim(nodes=nodes, **flags)
    sim.session.trust_env = False
    return sim


def pod(name, labels=None, node=None, namespace=None, **meta):
    metadata = {"name": name, **meta}
    if labels:
        metadata["labels"] = labels
    if namespace:
        metadata["namespace"] = namespace
    spec = {"containers": [{"name": "app", "image": "nginx"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def configmap(name, data=None, labels=None, **meta):
    metadata = {"name": name, **meta}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data or {"k": "v"}}


class WatchStream:
    """Reads newline-delimited WatchEvents from a streaming GET on a background thread."""

    def __init__(self, sim, path, timeout=30):
        self.events = []
        self.done = threading.Event()
        self.status_code = None
        self._lock = threading.Lock()
        self._resp = sim.http("GET", path, stream=True, timeout=timeout)
        self.status_code = self._resp.status_code
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        try:
            for line in self._resp.iter_lines(chunk_size=1):
                if not line:
                    continue
                with self._lock:
                    self.events.append(json.loads(line))
        except Exception:  # the stream was closed under us: that is an end too
            pass
        finally:
            self.done.set()

    def snapshot(self):
        with self._lock:
            return list(self.events)

    def wait_for(self, predicate, timeout=10, message="watch event"):
        """Waits until some event satisfies predicate; returns it."""
        def find():
            for event in self.snapshot():
                if predicate(event):
                    return event
            return None
        return wait_until(find, timeout=timeout, message=message)

    def wait_closed(self, timeout=10):
        if not self.done.wait(timeout):
            raise AssertionError(f"watch stream still open after {timeout}s")

    def close(self):
        """Ends the stream at once: shutting the socket down wakes the blocked reader thread."""
        try:
            sock = self._resp.raw._fp.fp.raw._sock
            sock.shutdown(socket.SHUT_RDWR)
        except Exception:  # already closed, or a different urllib3 layout: the read timeout ends it
            pass
        self.done.wait(5)
        self._resp.close()


class ConformanceCase(unittest.TestCase):
    """A TestCase with Status assertions; subclasses set cls.sim in setUpClass."""

    sim = None

    @classmethod
    def tearDownClass(cls):
        if cls.sim:
            cls.sim.stop()

    def assertStatus(self, response, code, reason, message=None, message_contains=None):
        """Asserts an HTTP error response carries a metav1.Status with this code and reason."""
        self.assertEqual(response.status_code, code, response.text[:800])
        body = response.json()
        self.assertEqual(body.get("kind"), "Status", body)
        self.assertEqual(body.get("apiVersion"), "v1", body)
        self.assertEqual(body.get("status"), "Failure", body)
        self.assertEqual(body.get("code"), code, body)
        self.assertEqual(body.get("reason"), reason, body)
        if message is not None:
            self.assertEqual(body.get("message"), message)
        if message_contains is not None:
            self.assertIn(message_contains, body.get("message", ""))
        return body

    def create(self, path, obj, code=201):
        r = self.sim.http("POST", path, json=obj)
        self.assertEqual(r.status_code, code, r.text[:800])
        return r.json()

    def get(self, path):
        r = self.sim.http("GET", path)
        self.assertEqual(r.status_code, 200, r.text[:800])
        return r.json()

    def gone(self, path):
        return self.sim.http("GET", path).status_code == 404

    def ensure_namespace(self, name):
        r = self.sim.http("POST", "/api/v1/namespaces",
                          json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        self.assertIn(r.status_code, (201, 409), r.text)
