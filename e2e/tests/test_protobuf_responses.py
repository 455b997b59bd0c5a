"""kubesim serves built-in kinds in application/vnd.kubernetes.protobuf as kube-apiserver does, and real clients work.

- kubectl (whose typed clients ask for protobuf first) gets protobuf answers and works: the audit log shows which
  requests asked for protobuf and which media type they got.
- a raw protobuf LIST of pods (magic "k8s\\0" + runtime.Unknown wrapping a PodList) and a raw protobuf WATCH (frames of a
  4-byte big-endian length + WatchEvent {type, object {raw = "k8s\\0" + Unknown(Pod)}}) parse with the minimal wire
  reader below and name the pods kubectl created;
- custom resources have no protobuf form: JSON when Accept allows it, 406 NotAcceptable when it does not;
- --disable-protobuf answers JSON;
- berth-manager with --kube-api-content-type application/vnd.kubernetes.protobuf gets its pods and nodes in
  protobuf (reservations stay JSON) and places a Reservation and binds its owner pod from those caches.
"""
import json
import os
import shutil
import struct
import tempfile
import time
import unittest

from kubesim_fixture import KUBECTL, KUBECTL134, BerthManager, Kubesim, wait_until

PROTOBUF = "application/vnd.kubernetes.protobuf"
PROTOBUF_FIRST = PROTOBUF + ",application/json"


def varint(data, i):
    value = shift = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def fields(data):
    """[(number, value)] of one message: ints for varints, bytes for length-delimited values."""
    out, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 2:
            length, i = varint(data, i)
            if i + length > len(data):
                raise ValueError("truncated field")
            value, i = data[i:i + length], i + length
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        out.append((number, value))
    return out


def first(data, number):
    return next((v for n, v in fields(data) if n == number), None)


def unknown(body):
    """(apiVersion, kind, raw) of a "k8s\\0" + runtime.Unknown body."""
    if body[:4] != b"k8s\x00":
        raise ValueError(f"no protobuf magic: {body[:20]!r}")
    envelope = body[4:]
    type_meta = first(envelope, 1)
    return first(type_meta, 1).decode(), first(type_meta, 2).decode(), first(envelope, 2)


def object_name(raw):
    """metadata.name of a Pod/Node/... message (field 1 ObjectMeta, its field 1 name)."""
    return first(first(raw, 1), 1).decode()


def pod_yaml(name, namespace):
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\n  labels:\n    app: pb\n"
            f"spec:\n  containers:\n  - name: main\n    image: busybox\n    resources:\n      requests:\n        cpu: 100m\n")


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""


def read_frames(response, want, timeout=10.0):
    """Reads `want` length-delimited watch frames from a streaming requests response (bounded by `timeout`)."""
    frames, buffer = [], b""
    deadline = time.monotonic() + timeout
    for chunk in response.iter_content(chunk_size=None):
        buffer += chunk
        while len(buffer) >= 4:
            (length,) = struct.unpack(">I", buffer[:4])
            if len(buffer) < 4 + length:
                break
            frames.append(buffer[4:4 + length])
            buffer = buffer[4 + length:]
        if len(frames) >= want or time.monotonic() > deadline:
            break
    return frames


def watch_event(frame):
    """(type, apiVersion, kind, raw) of a raw WatchEvent frame: {1 type, 2 object {1 raw = "k8s\0" + Unknown}}."""
    event_type = first(frame, 1).decode()
    api_version, kind, raw = unknown(first(first(frame, 2), 1))
    return event_type, api_version, kind, raw


class ProtobufResponses(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.audit_dir = tempfile.mkdtemp(prefix="kubesim-pb-audit-")
        cls.audit_path = os.path.join(cls.audit_dir, "audit.log")
        cls.sim = Kubesim(nodes=2, audit_log=cls.audit_path)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()
        shutil.rmtree(cls.audit_dir, ignore_errors=True)

    def audit(self):
        with open(self.audit_path) as f:
            return [json.loads(line) for line in f if line.strip()]

    def namespace(self, name):
        self.sim.apply_text(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n")
        return name

    def test_raw_protobuf_list_and_watch_of_pods(self):
        ns = self.namespace("pb-raw")
        for name in ("a", "b"):
            self.sim.apply_text(pod_yaml(name, ns))
        r = self.sim.http("GET", f"/api/v1/namespaces/{ns}/pods", headers={"Accept": PROTOBUF_FIRST})
        self.assertEqual(r.status_code, 200, r.text[:300])
        self.assertEqual(r.headers["Content-Type"], PROTOBUF)
        api_version, kind, raw = unknown(r.content)
        self.assertEqual((api_version, kind), ("v1", "PodList"))
        list_meta = first(raw, 1)
        list_rv = first(list_meta, 2).decode()
        self.assertTrue(list_rv.isdigit(), list_rv)
        self.assertEqual(sorted(object_name(item) for n, item in fields(raw) if n == 2), ["a", "b"])

        with self.sim.http("GET", f"/api/v1/namespaces/{ns}/pods",
                           params={"watch": "true", "resourceVersion": list_rv, "timeoutSeconds": "20"},
                           headers={"Accept": PROTOBUF_FIRST}, stream=True, timeout=30) as watch:
            self.assertEqual(watch.status_code, 200)
            self.assertEqual(watch.headers["Content-Type"], PROTOBUF + ";stream=watch")
            self.sim.apply_text(pod_yaml("c", ns))
            frames = read_frames(watch, 1)
        self.assertEqual(len(frames), 1)
        event_type, api_version, kind, raw = watch_event(frames[0])
        self.assertEqual((event_type, api_version, kind, object_name(raw)), ("ADDED", "v1", "Pod", "c"))

    def test_kubectl_works_and_gets_protobuf_where_it_asks_for_it(self):
        ns = self.namespace("pb-kubectl")
        self.sim.apply_text(pod_yaml("web", ns))
        # Typed-client commands (create namespace/deployment, describe, scale) ask for protobuf first.
        self.sim.kubectl("create", "namespace", "pb-created")
        self.sim.kubectl("create", "deployment", "dep", "--image=nginx", "-n", ns)
        self.sim.kubectl("scale", "deployment", "dep", "--replicas=2", "-n", ns)
        described = self.sim.kubectl("describe", "pod", "web", "-n", ns)
        self.assertIn("busybox", described)
        self.assertRegex(described, r"Requests:\s+cpu:\s+100m")
        pods = json.loads(self.sim.kubectl("get", "pods", "-n", ns, "-o", "json"))
        self.assertIn("web", [p["metadata"]["name"] for p in pods["items"]])
        self.assertIn("pb-created", self.sim.kubectl("get", "namespaces"))
        wait_until(lambda: json.loads(self.sim.kubectl("get", "deployment", "dep", "-n", ns, "-o", "json"))
                   ["spec"]["replicas"] == 2, timeout=10, message="deployment scaled to 2")

        self.assertIn("busybox", self.sim.kubectl134("describe", "pod", "web", "-n", ns))

        # kubectl 1.32/1.34's typed clients ask "application/vnd.kubernetes.protobuf,application/json" for these calls
        # (an audit run showed it); each got protobuf and succeeded.
        answered = {(line["verb"], line.get("resource")): line for line in self.audit()
                    if line.get("userAgent", "").startswith("kubectl") and line.get("contentType") == PROTOBUF}
        for call in (("create", "namespaces"), ("create", "deployments"), ("get", "pods"), ("list", "events")):
            self.assertIn(call, answered, f"kubectl's {call} was not answered in protobuf")
            self.assertLess(answered[call]["code"], 400, answered[call])
            self.assertTrue(answered[call]["accept"].startswith(PROTOBUF), answered[call])

    def test_custom_resources_fall_back_to_json_or_are_not_acceptable(self):
        self.sim.apply_text(CRD)
        self.sim.kubectl("wait", "--for=condition=established", "crd/gadgets.example.com", "--timeout=10s")
        ns = self.namespace("pb-crd")
        self.sim.apply_text(f"apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: {ns}\n")
        self.assertIn("g", self.sim.kubectl("get", "gadgets", "-n", ns, "-o", "name"))
        path = f"/apis/example.com/v1/namespaces/{ns}/gadgets"
        fallback = self.sim.http("GET", path, headers={"Accept": PROTOBUF_FIRST})
        self.assertEqual(fallback.status_code, 200)
        self.assertEqual(fallback.headers["Content-Type"], "application/json")
        self.assertEqual([g["metadata"]["name"] for g in fallback.json()["items"]], ["g"])
        refused = self.sim.http("GET", path, headers={"Accept": PROTOBUF})
        self.assertEqual(refused.status_code, 406)
        self.assertEqual(refused.json()["reason"], "NotAcceptable")


class BerthManagerOverProtobuf(unittest.TestCase):
    RESERVATIONS = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"

    def setUp(self):
        self.audit_dir = tempfile.mkdtemp(prefix="kubesim-pb-berth-")
        self.audit_path = os.path.join(self.audit_dir, "audit.log")
        self.sim = Kubesim(nodes=2, audit_log=self.audit_path)
        self.sim.install_crds()
        self.mgr = BerthManager(self.sim, extra_args=["--kube-api-content-type", PROTOBUF])

    def tearDown(self):
        self.mgr.stop()
        self.sim.stop()
        shutil.rmtree(self.audit_dir, ignore_errors=True)

    def test_reservation_placed_and_owner_bound_from_protobuf_caches(self):
        owner = {"labelSelector": {"matchLabels": {"app": "pb-owner"}}}
        template = {"metadata": {"namespace": "default"},
                    "spec": {"schedulerName": "koord-scheduler",
                             "containers": [{"name": "main", "resources": {"requests": {"cpu": "500m"}}}]}}
        self.sim.apply_text(json.dumps({"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                                        "metadata": {"name": "pb-r"},
                                        "spec": {"template": template, "owners": [owner], "ttl": "1h"}}))

        def available():
            r = self.sim.http("GET", f"{self.RESERVATIONS}/pb-r").json()
            status = r.get("status", {})
            return status if status.get("phase") == "Available" and status.get("nodeName") else None
        try:
            node = wait_until(available, timeout=20, message="reservation pb-r Available")["nodeName"]
        except AssertionError as e:
            raise AssertionError(f"{e}\nberth-manager log:\n{self.mgr.log_text()[-3000:]}") from None
        self.sim.apply_text(json.dumps({"apiVersion": "v1", "kind": "Pod",
                                        "metadata": {"name": "pb-owner", "namespace": "default",
                                                     "labels": {"app": "pb-owner"}},
                                        "spec": {"schedulerName": "koord-scheduler",
                                                 "containers": [{"name": "main", "image": "busybox",
                                                                 "resources": {"requests": {"cpu": "500m"}}}]}}))

        def bound():
            p = self.sim.http("GET", "/api/v1/namespaces/default/pods/pb-owner").json()
            allocated = p["metadata"].get("annotations", {}).get("scheduling.koordinator.sh/reservation-allocated")
            return p if p["spec"].get("nodeName") and allocated else None
        try:
            pod = wait_until(bound, timeout=20, message="owner pod bound into the reservation")
        except AssertionError as e:
            raise AssertionError(f"{e}\nberth-manager log:\n{self.mgr.log_text()[-3000:]}") from None
        self.assertEqual(pod["spec"]["nodeName"], node)
        allocated = json.loads(pod["metadata"]["annotations"]["scheduling.koordinator.sh/reservation-allocated"])
        self.assertEqual(allocated["name"], "pb-r")

        with open(self.audit_path) as f:
            berth = [json.loads(line) for line in f if line.strip() and '"berth' in line]
        berth = [line for line in berth if line.get("userAgent", "").startswith("berth")]
        by_call = {}
        for line in berth:
            by_call.setdefault((line["verb"], line.get("resource")), []).append(line)
        for call in (("list", "pods"), ("list", "nodes"), ("watch", "pods"), ("watch", "nodes")):
            self.assertIn(call, by_call, f"berth-manager made no {call}")
            for line in by_call[call]:
                self.assertTrue(line["accept"].startswith(PROTOBUF), line)
                self.assertTrue(line["contentType"].startswith(PROTOBUF), line)
        for line in by_call[("list", "reservations")]:
            self.assertEqual(line["contentType"], "application/json", line)


class ProtobufDisabled(unittest.TestCase):
    def test_disable_protobuf_answers_json(self):
        sim = Kubesim(nodes=1, disable_protobuf=True)
        try:
            r = sim.http("GET", "/api/v1/nodes", headers={"Accept": PROTOBUF_FIRST})
            self.assertEqual(r.status_code, 200)
            self.assertEqual(r.headers["Content-Type"], "application/json")
            self.assertEqual([n["metadata"]["name"] for n in r.json()["items"]], ["node-0"])
            self.assertIn("node-0", sim.kubectl("describe", "node", "node-0"))
        finally:
            sim.stop()


if __name__ == "__main__":
    unittest.main()
