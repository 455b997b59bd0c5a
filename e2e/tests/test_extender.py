"""berth as a kube-scheduler extender (issue 14), with this suite playing kube-scheduler against kubesim.

For pods with schedulerName default-scheduler the suite does what kube-scheduler's HTTP extender client does
(k8s.io/kube-scheduler/extender/v1, pkg/scheduler/extender.go): POST JSON (Content-Type application/json, compact
encoding/json output, Go field names, nil as null) to urlPrefix + "/filter", then "/prioritize" when more than one
node is left, then "/bind", in both nodeCacheCapable modes (NodeNames, or a full NodeList). Its own in-tree part is
NodeResourcesFit on bound pods' requests (kube-scheduler does not see what reservations hold) with LeastAllocated
scoring at weight 1; each extender Score adds Score x weight x (100 / 10), the highest total wins (ties: the
smallest name here, where kube-scheduler picks at random). A failed bind is retried, as kube-scheduler requeues.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

import requests

from kubesim_fixture import BIN, free_port, start_cluster, wait_until
from test_reservation_scheduling import ANNOTATION, RES_PATH, burst_reservation, pod_requests, quantity, testdata

EXTENDER_WEIGHT = 5


class KubeSchedulerPlayer:
    """The extender half of one kube-scheduler profile."""

    def __init__(self, sim, url_prefix, node_cache_capable=True, weight=EXTENDER_WEIGHT, ca_file=None):
        self.sim = sim
        self.url_prefix = url_prefix.rstrip("/")
        self.node_cache_capable = node_cache_capable
        self.weight = weight
        self.http = requests.Session()
        self.http.trust_env = False
        if ca_file:  # enableHTTPS with tlsConfig.caFile: the server's certificate is verified
            self.http.verify = ca_file
        self.calls = []  # (verb, request body dict, response dict/list)
        self.bind_errors = []

    def send(self, verb, args):
        body = json.dumps(args, separators=(",", ":"))
        r = self.http.post(f"{self.url_prefix}/{verb}", data=body, headers={"Content-Type": "application/json"},
                           timeout=5)
        if r.status_code != 200:
            raise AssertionError(f"failed {verb} with extender at URL {self.url_prefix}/{verb}, code {r.status_code}: "
                                 f"{r.text}")
        result = r.json()
        self.calls.append((verb, args, result))
        return result

    def nodes(self):
        return self.sim.get_json("/api/v1/nodes")["items"]

    def in_tree(self, pod):
        """NodeResourcesFit over bound pods: (feasible nodes, {name: LeastAllocated score})."""
        want = pod_requests(pod)
        used = {}
        for p in self.sim.get_json("/api/v1/pods")["items"]:
            node = p["spec"].get("nodeName")
            if node and p.get("status", {}).get("phase") not in ("Succeeded", "Failed"):
                for k, v in pod_requests(p).items():
                    used.setdefault(node, {}).setdefault(k, 0)
                    used[node][k] += v
        feasible, scores = [], {}
        for n in self.nodes():
            name, alloc = n["metadata"]["name"], n["status"]["allocatable"]
            u = used.get(name, {})
            if all(u.get(k, 0) + v <= quantity(alloc.get(k, "0")) + 1e-9 for k, v in want.items()):
                feasible.append(n)
                parts = [(quantity(alloc[k]) - u.get(k, 0) - want.get(k, 0)) * 100 / quantity(alloc[k])
                         for k in ("cpu", "memory")]
                scores[name] = int(sum(parts) / 2)
        return feasible, scores

    def args(self, pod, nodes):
        if self.node_cache_capable:
            return {"Pod": pod, "Nodes": None, "NodeNames": [n["metadata"]["name"] for n in nodes]}
        return {"Pod": pod, "Nodes": {"metadata": {}, "items": nodes}, "NodeNames": None}

    def filter(self, pod, nodes):
        result = self.send("filter", self.args(pod, nodes))
        if result.get("Error"):
            raise AssertionError(f"filter error: {result['Error']}")
        names = [n["metadata"]["name"] for n in nodes]
        if self.node_cache_capable and result.get("NodeNames") is not None:
            passed = result["NodeNames"]
            for name in passed:
                assert name in names, f'extender claims a filtered node "{name}" which is not found in the input'
        elif result.get("Nodes") is not None:
            passed = [n["metadata"]["name"] for n in result["Nodes"]["items"]]
        else:
            passed = []
        return [n for n in nodes if n["metadata"]["name"] in passed], result

    def schedule_one(self, pod):
        """One scheduling cycle. Returns (node or None, filter result)."""
        feasible, in_tree_scores = self.in_tree(pod)
        if not feasible:
            return None, None
        passed, filter_result = self.filter(pod, feasible)
        if not passed:
            return None, filter_result
        if len(passed) == 1:
            return passed[0]["metadata"]["name"], filter_result  # kube-scheduler skips scoring
        totals = {n["metadata"]["name"]: in_tree_scores[n["metadata"]["name"]] for n in passed}
        for hp in self.send("prioritize", self.args(pod, passed)):
            if hp["Host"] in totals:
                totals[hp["Host"]] += hp["Score"] * self.weight * 10
        best = max(totals.values())
        return min(n for n, s in totals.items() if s == best), filter_result

    def bind(self, pod, node):
        m = pod["metadata"]
        result = self.send("bind", {"PodName": m["name"], "PodNamespace": m["namespace"], "PodUID": m["uid"],
                                    "Node": node})
        return result.get("Error", "")

    def schedule(self, name, ns="default", attempts=20):
        """Schedules a pod until it is bound or `attempts` cycles found no node / failed to bind."""
        last = None
        for _ in range(attempts):
            pod = self.sim.get_json(f"/api/v1/namespaces/{ns}/pods/{name}")
            if pod["spec"].get("nodeName"):
                return pod["spec"]["nodeName"], last
            node, last = self.schedule_one(pod)
            if node is None:
                return None, last
            error = self.bind(pod, node)
            if not error:
                return node, last
            last = {"bind_error": error}
            self.bind_errors.append(error)
            time.sleep(0.05)  # kube-scheduler's requeue backoff
        return None, last


def read(path):
    with open(path) as f:
        return f.read()


def default_scheduler(text):
    return text.replace("schedulerName: koord-scheduler # use koord-scheduler", "schedulerName: default-scheduler")


class ExtenderSuite(unittest.TestCase):
    nodes = 3
    sim_flags = {}

    @classmethod
    def setUpClass(cls):
        cls.port = free_port()
        cls.sim, cls.mgr = start_cluster(nodes=cls.nodes, sim_flags=cls.sim_flags,
                                         extra_args=["--extender-bind-address", f"127.0.0.1:{cls.port}"])
        cls.url = f"http://127.0.0.1:{cls.port}"

    @classmethod
    def tearDownClass(cls):
        cls.mgr.stop()
        cls.sim.stop()

    def get(self, path):
        r = self.sim.http("GET", path)
        return r.json() if r.status_code == 200 else None

    def wait_available(self, name, timeout=15):
        return wait_until(lambda: (lambda r: r if r and r.get("status", {}).get("phase") == "Available" else None)(
            self.get(f"{RES_PATH}/{name}")), timeout=timeout, message=f"reservation {name} Available")

    def create_pod(self, name, cpu, memory, labels=None):
        obj = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
               "spec": {"schedulerName": "default-scheduler",
                        "containers": [{"name": "main", "image": "busybox",
                                        "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}}
        self.assertEqual(self.sim.http("POST", "/api/v1/namespaces/default/pods", json=obj).status_code, 201)


class QuickStartTest(ExtenderSuite):
    ca_file = None

    def run_quick_start(self, node_cache_capable, pod_name):
        player = KubeSchedulerPlayer(self.sim, self.url, node_cache_capable=node_cache_capable, ca_file=self.ca_file)
        res_name = f"reservation-{pod_name}"
        text = read(testdata("reservation-demo.yaml")).replace("name: reservation-demo", f"name: {res_name}")
        text = text.replace("name: pod-demo-0", f"name: {pod_name}")
        self.sim.apply_text(text)
        r = self.wait_available(res_name)
        node = r["status"]["nodeName"]
        pod_text = default_scheduler(read(testdata("pod-demo-0.yaml"))).replace("pod-demo-0", pod_name)
        self.assertIn("schedulerName: default-scheduler", pod_text)
        self.sim.apply_text(pod_text)
        bound, _ = player.schedule(pod_name)
        self.assertEqual(bound, node, "the owner pod lands on its reservation's node")
        pod = wait_until(lambda: (lambda p: p if p["spec"].get("nodeName") else None)(
            self.get(f"/api/v1/namespaces/default/pods/{pod_name}")), message="pod bound")
        self.assertEqual(json.loads(pod["metadata"]["annotations"][ANNOTATION]),
                         {"name": res_name, "uid": r["metadata"]["uid"]})
        r = wait_until(lambda: (lambda r: r if r["status"].get("currentOwners") else None)(
            self.get(f"{RES_PATH}/{res_name}")), message="currentOwners filled")
        self.assertEqual(r["status"]["allocated"], {"cpu": "200m", "memory": "400Mi"})
        self.assertEqual(r["status"]["currentOwners"],
                         [{"name": pod_name, "namespace": "default", "uid": pod["metadata"]["uid"]}])
        # The wire: filter got our exact keys back; prioritize gave the reservation node 10.
        verbs = [c[0] for c in player.calls]
        self.assertEqual(verbs, ["filter", "prioritize", "bind"])
        filter_result = player.calls[0][2]
        self.assertEqual(sorted(filter_result), ["Error", "FailedAndUnresolvableNodes", "FailedNodes", "NodeNames",
                                                 "Nodes"])
        if node_cache_capable:
            self.assertIsNone(filter_result["Nodes"])
            self.assertIn(node, filter_result["NodeNames"])
        else:
            self.assertIsNone(filter_result["NodeNames"])
            self.assertIn(node, [n["metadata"]["name"] for n in filter_result["Nodes"]["items"]])
        scores = {hp["Host"]: hp["Score"] for hp in player.calls[1][2]}
        self.assertEqual(scores[node], 10)
        self.assertTrue(all(s == 0 for n, s in scores.items() if n != node), scores)
        self.assertEqual(player.calls[2][2], {"Error": ""})

    def test_quick_start_works_for_a_default_scheduler_owner_pod_with_node_names(self):
        self.run_quick_start(True, "pod-demo-0")

    def test_quick_start_works_for_a_default_scheduler_owner_pod_with_a_node_list(self):
        self.run_quick_start(False, "pod-demo-1")

    def test_malformed_bodies_are_400_with_a_json_error_and_counted(self):
        for verb in ("filter", "prioritize", "bind"):
            r = requests.post(f"{self.url}/{verb}", data="{\"Pod\":", headers={"Content-Type": "application/json"},
                              timeout=5)
            self.assertEqual(r.status_code, 400, verb)
            self.assertIn("not JSON", r.json()["Error"])
        self.assertGreaterEqual(self.mgr.metric("berth_extender_requests_total", verb="bind", code="400"), 1)

    def test_bad_extender_flags_exit_2(self):
        manager = os.path.join(BIN, "berth-manager")
        r = subprocess.run([manager, "--extender-bind-address", "abc", "--help"], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn('--extender-bind-address: invalid bind address "abc"', r.stderr)
        r = subprocess.run([manager, "--kubeconfig", self.sim.kubeconfig, "--extender-bind-address", "127.0.0.1:0",
                            "--controllers=*,-scheduler", "--metrics-bind-address", "0",
                            "--health-probe-bind-address", "0"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--extender-bind-address needs the scheduler controller", r.stdout + r.stderr)

    def test_bind_of_an_unknown_pod_answers_an_error_not_a_server_failure(self):
        player = KubeSchedulerPlayer(self.sim, self.url, ca_file=self.ca_file)
        error = player.bind({"metadata": {"name": "ghost", "namespace": "default", "uid": "x"}}, "node-0")
        self.assertIn("not found", error)


def make_serving_pair(directory, name):
    """A fresh CA and a serving certificate for 127.0.0.1 signed by it (openssl CLI, EC P-256, one day), written as
    <name>-ca.crt, <name>.crt and <name>.key. Returns (ca path, cert path, key path)."""
    ca_key, ca_crt = os.path.join(directory, f"{name}-ca.key"), os.path.join(directory, f"{name}-ca.crt")
    key, csr, crt = (os.path.join(directory, f"{name}.{ext}") for ext in ("key", "csr", "crt"))
    ext = os.path.join(directory, f"{name}.ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for args in (["req", "-x509", *ec, "-keyout", ca_key, "-out", ca_crt, "-days", "1", "-subj", f"/CN={name}-ca",
                  "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
                 ["req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=berth-extender"],
                 ["x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial", "-out", crt,
                  "-days", "1", "-extfile", ext]):
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)
    return ca_crt, crt, key


def install_pair(cert_dir, crt, key):
    """Puts a pair in place the way a Secret volume update does: each file renamed over the old one."""
    for src, dst in ((key, "tls.key"), (crt, "tls.crt")):
        shutil.copyfile(src, os.path.join(cert_dir, dst + ".new"))
        os.replace(os.path.join(cert_dir, dst + ".new"), os.path.join(cert_dir, dst))


class HttpsTest(QuickStartTest):
    """--extender-cert-dir: the extender over HTTPS (kube-scheduler's enableHTTPS with tlsConfig.caFile), checked
    with verifying TLS clients (python's ssl through requests, and curl), a certificate renewal picked up without a
    restart, and plain HTTP refused."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="berth-extender-tls-")
        cls.cert_dir = os.path.join(cls.tmp, "cert")
        os.mkdir(cls.cert_dir)
        cls.ca_file, crt, key = make_serving_pair(cls.tmp, "first")
        cls.first = (crt, key)
        install_pair(cls.cert_dir, crt, key)
        cls.port = free_port()
        cls.sim, cls.mgr = start_cluster(nodes=cls.nodes, extra_args=[
            "--extender-bind-address", f"127.0.0.1:{cls.port}", "--extender-cert-dir", cls.cert_dir])
        cls.url = f"https://127.0.0.1:{cls.port}"

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_malformed_bodies_are_400_with_a_json_error_and_counted(self):
        r = subprocess.run(["curl", "-sS", "--cacert", self.ca_file, "-X", "POST", "-H", "Content-Type: application/json",
                            "--data", "{\"Pod\":", "-w", "\n%{http_code}", f"{self.url}/filter"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        body, code = r.stdout.rsplit("\n", 1)
        self.assertEqual(code, "400")
        self.assertIn("not JSON", json.loads(body)["Error"])
        self.assertGreaterEqual(self.mgr.metric("berth_extender_requests_total", verb="filter", code="400"), 1)

    def test_plain_http_and_untrusting_clients_are_refused(self):
        with self.assertRaises(requests.exceptions.ConnectionError):
            requests.post(f"http://127.0.0.1:{self.port}/filter", data="{}", timeout=5)
        other_ca, _, _ = make_serving_pair(self.tmp, "stranger")
        with self.assertRaises(requests.exceptions.SSLError):
            requests.post(f"{self.url}/filter", data="{}", timeout=5, verify=other_ca)
        # Still serving the clients that trust it.
        self.assertEqual(requests.post(f"{self.url}/bind", data="{}", timeout=5, verify=self.ca_file).status_code, 400)

    def test_a_renewed_certificate_is_served_without_a_restart(self):
        second_ca, crt, key = make_serving_pair(self.tmp, "second")
        install_pair(self.cert_dir, crt, key)
        try:
            def served_by_second():
                try:
                    return requests.post(f"{self.url}/bind", data="{}", timeout=5, verify=second_ca).status_code == 400
                except requests.exceptions.SSLError:
                    return False
            wait_until(served_by_second, timeout=15, message="the renewed certificate to be served")
            with self.assertRaises(requests.exceptions.SSLError):
                requests.post(f"{self.url}/bind", data="{}", timeout=5, verify=self.ca_file)
        finally:
            install_pair(self.cert_dir, *self.first)
            wait_until(lambda: self._trusts(self.ca_file), timeout=15, message="the first certificate back")

    def _trusts(self, ca_file):
        try:
            requests.post(f"{self.url}/bind", data="{}", timeout=5, verify=ca_file)
            return True
        except requests.exceptions.SSLError:
            return False

    def test_bad_extender_flags_exit_2(self):
        manager = os.path.join(BIN, "berth-manager")
        r = subprocess.run([manager, "--kubeconfig", self.sim.kubeconfig, "--extender-bind-address", "127.0.0.1:0",
                            "--extender-cert-dir", os.path.join(self.tmp, "missing"), "--metrics-bind-address", "0",
                            "--health-probe-bind-address", "0"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("cannot serve the extender", r.stdout + r.stderr)
        self.assertIn("tls", r.stdout + r.stderr)
        r = subprocess.run([manager, "--kubeconfig", self.sim.kubeconfig, "--extender-cert-dir", self.cert_dir,
                            "--metrics-bind-address", "0", "--health-probe-bind-address", "0"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--extender-cert-dir needs --extender-bind-address", r.stderr)


class BindFaultTest(ExtenderSuite):
    """pods/binding fails (409 injected by kubesim for 70% of binding POSTs): berth's bind answers the error,
    drops its assumption and the retried bind goes into the same reservations, never past them."""

    def test_failed_bindings_are_reported_and_leave_no_capacity_booked(self):
        for i in range(2):
            res = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                   "metadata": {"name": f"faulty-{i}"},
                   "spec": {"ttl": "1h", "allocateOnce": False,
                            "owners": [{"labelSelector": {"matchLabels": {"app": "faulty"}}}],
                            "template": {"metadata": {"namespace": "default"},
                                         "spec": {"schedulerName": "koord-scheduler", "containers": [{
                                             "name": "main", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}}
            self.assertEqual(self.sim.http("POST", RES_PATH, json=res).status_code, 201)
            self.wait_available(f"faulty-{i}")
        for i in range(8):
            self.create_pod(f"faulty-pod-{i}", "250m", "256Mi", labels={"app": "faulty"})
        player = KubeSchedulerPlayer(self.sim, self.url)
        r = self.sim.http("PUT", "/kubesim/admin/faults",
                          json={"faultRate": 0.7, "faultCodes": [409], "faultTargets": ["POST:pods/binding"]})
        self.assertEqual(r.status_code, 200, r.text)
        try:
            for i in range(8):
                node, last = player.schedule(f"faulty-pod-{i}", attempts=60)
                self.assertIsNotNone(node, last)
        finally:
            self.sim.http("PUT", "/kubesim/admin/faults", json={"faultRate": 0})
        self.assertTrue(player.bind_errors, "some bindings failed")
        reservations = {r["metadata"]["uid"]: r for r in self.sim.get_json(RES_PATH)["items"]}
        used = {}
        for p in self.sim.http("GET", "/api/v1/pods", params={"labelSelector": "app=faulty"}).json()["items"]:
            uid = json.loads(p["metadata"]["annotations"][ANNOTATION])["uid"]
            self.assertEqual(p["spec"]["nodeName"], reservations[uid]["status"]["nodeName"])
            used[uid] = used.get(uid, 0) + pod_requests(p)["cpu"]
        # 8 x 250m fill both reservations exactly: a leaked assumption would have pushed a pod out of them.
        self.assertEqual(sorted(used.values()), [1.0, 1.0])


class NonOwnerTest(ExtenderSuite):
    nodes = 2
    sim_flags = {"node_cpu": "2", "node_memory": "8Gi"}

    def test_a_non_owner_pod_is_kept_off_reserved_capacity(self):
        res = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": "held"},
               "spec": {"ttl": "1h", "owners": [{"labelSelector": {"matchLabels": {"app": "owner"}}}],
                        "template": {"metadata": {"namespace": "default"},
                                     "spec": {"nodeName": "node-0", "schedulerName": "koord-scheduler",
                                              "containers": [{"name": "main", "resources": {
                                                  "requests": {"cpu": "1500m", "memory": "1Gi"}}}]}}}}
        self.assertEqual(self.sim.http("POST", RES_PATH, json=res).status_code, 201)
        self.wait_available("held")
        player = KubeSchedulerPlayer(self.sim, self.url)
        self.create_pod("plain-a", "1500m", "1Gi")
        node, filter_result = player.schedule("plain-a")
        self.assertEqual(node, "node-1")
        self.assertEqual(filter_result["FailedNodes"], {"node-0": "Insufficient cpu"})
        # node-1 and node-0's free part have 500m left: a 1-cpu pod fits nowhere, although kube-scheduler's own
        # NodeResourcesFit (blind to reservations) still offers node-0.
        self.create_pod("plain-b", "1", "1Gi")
        node, filter_result = player.schedule("plain-b")
        self.assertIsNone(node)
        self.assertIn("node-0", filter_result["FailedNodes"])
        self.assertFalse(self.get("/api/v1/namespaces/default/pods/plain-b")["spec"].get("nodeName"))
        # The owner still gets its reservation.
        self.create_pod("owner", "1", "1Gi", labels={"app": "owner"})
        node, _ = player.schedule("owner")
        self.assertEqual(node, "node-0")
        pod = self.get("/api/v1/namespaces/default/pods/owner")
        self.assertEqual(json.loads(pod["metadata"]["annotations"][ANNOTATION])["name"], "held")


class BurstTest(ExtenderSuite):
    """200 owner pods against 50 reusable reservations on 10 nodes, scheduled by 4 concurrent players (profiles or
    scheduler replicas): berth's bind decides and assumes under its cache lock, so no reservation over-allocates."""
    nodes = 10
    sim_flags = {"node_cpu": "8", "node_memory": "32Gi"}

    def test_200_owner_pods_against_50_reusable_reservations_never_over_allocate(self):
        for i in range(50):
            self.assertEqual(self.sim.http("POST", RES_PATH, json=burst_reservation(i)).status_code, 201)
        wait_until(lambda: len([r for r in self.sim.get_json(RES_PATH)["items"]
                                if r.get("status", {}).get("phase") == "Available"]) == 50,
                   timeout=30, message="50 Available reservations")
        # 200 pods of 250m: 50 x 1 cpu of reservations hold exactly 200 of them.
        for i in range(200):
            self.create_pod(f"burst-pod-{i}", "250m", "512Mi", labels={"app": "burst"})
        players = [KubeSchedulerPlayer(self.sim, self.url, node_cache_capable=(k % 2 == 0)) for k in range(4)]
        lock = threading.Lock()
        pending = [f"burst-pod-{i}" for i in range(200)]
        results = {}

        def work(player):
            while True:
                with lock:
                    if not pending:
                        return
                    name = pending.pop(0)
                results[name] = player.schedule(name, attempts=40)[0]

        deadline = time.monotonic() + 240
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            for f in [pool.submit(work, p) for p in players]:
                f.result(timeout=max(1, deadline - time.monotonic()))
        unbound = [n for n, node in results.items() if not node]
        self.assertEqual(unbound, [], "every pod finds a node")
        reservations = {r["metadata"]["uid"]: r for r in self.sim.get_json(RES_PATH)["items"]}
        pods = self.sim.http("GET", "/api/v1/pods", params={"labelSelector": "app=burst"}).json()["items"]
        by_reservation = {}
        for p in pods:
            ann = p["metadata"].get("annotations", {}).get(ANNOTATION)
            if ann:
                uid = json.loads(ann)["uid"]
                self.assertIn(uid, reservations)
                self.assertEqual(p["spec"]["nodeName"], reservations[uid]["status"]["nodeName"])
                by_reservation.setdefault(uid, []).append(p)
        for uid, consumers in by_reservation.items():
            name = reservations[uid]["metadata"]["name"]
            self.assertLessEqual(sum(pod_requests(p)["cpu"] for p in consumers), 1.0 + 1e-9, name)
            self.assertLessEqual(sum(pod_requests(p)["memory"] for p in consumers), 2 * 2**30, name)
        # Most land in reservations; not necessarily all: between one player's prioritize and its bind, others may
        # fill the reservations of the chosen node, and the pod then binds into that node's free capacity (a
        # single kube-scheduler profile is serial and does not race with itself). Free capacity is never
        # overcommitted either (checked below).
        in_reservations = sum(len(c) for c in by_reservation.values())
        self.assertGreaterEqual(in_reservations, 150, [e for p in players for e in p.bind_errors])
        for i in range(10):
            node = f"node-{i}"
            cpu = sum(pod_requests(p)["cpu"] for p in pods if p["spec"].get("nodeName") == node)
            held = sum(max(0.0, 1.0 - sum(pod_requests(p)["cpu"] for p in by_reservation.get(uid, [])))
                       for uid, r in reservations.items() if r["status"]["nodeName"] == node)
            self.assertLessEqual(cpu + held, 8 + 1e-9, node)

        def settled():
            items = self.sim.get_json(RES_PATH)["items"]
            got = {r["metadata"]["uid"]: len(r["status"].get("currentOwners", [])) for r in items}
            return all(got[u] == len(c) for u, c in by_reservation.items())
        wait_until(settled, timeout=30, message="currentOwners to match the annotations")
        self.assertGreaterEqual(self.mgr.metric("berth_extender_requests_total", verb="bind", code="200"), 200)


if __name__ == "__main__":
    unittest.main()


class NoBindVerbTest(ExtenderSuite):
    """kube-scheduler configured with filterVerb and prioritizeVerb only: it binds pods itself (pods/binding, its
    DefaultBinder), and berth annotates an owner pod it sees bound into the reservation that fits it on its node."""
    nodes = 2
    sim_flags = {"node_cpu": "4", "node_memory": "8Gi"}

    def bind_as_kube_scheduler(self, name, node):
        pod = self.get(f"/api/v1/namespaces/default/pods/{name}")
        binding = {"apiVersion": "v1", "kind": "Binding",
                   "metadata": {"name": name, "namespace": "default", "uid": pod["metadata"]["uid"]},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        r = self.sim.http("POST", f"/api/v1/namespaces/default/pods/{name}/binding", json=binding)
        self.assertEqual(r.status_code, 201, r.text)

    def test_owner_pods_kube_scheduler_binds_are_annotated_into_their_reservation(self):
        res = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": "nb"},
               "spec": {"ttl": "1h", "allocateOnce": False, "allocatePolicy": "Restricted",
                        "owners": [{"labelSelector": {"matchLabels": {"app": "nb"}}}],
                        "template": {"metadata": {"namespace": "default"},
                                     "spec": {"nodeName": "node-0", "schedulerName": "koord-scheduler",
                                              "containers": [{"name": "main", "resources": {
                                                  "requests": {"cpu": "1", "memory": "1Gi"}}}]}}}}
        self.assertEqual(self.sim.http("POST", RES_PATH, json=res).status_code, 201)
        uid = self.wait_available("nb")["metadata"]["uid"]
        player = KubeSchedulerPlayer(self.sim, self.url)
        # An owner pod kube-scheduler put elsewhere (its own choice, or a bind it lost and retried): nothing of
        # the reservation is taken.
        self.create_pod("nb-elsewhere", "600m", "512Mi", labels={"app": "nb"})
        self.bind_as_kube_scheduler("nb-elsewhere", "node-1")
        # The extender's filter and prioritize send the next owner to node-0; kube-scheduler binds it there.
        self.create_pod("nb-0", "600m", "512Mi", labels={"app": "nb"})
        pod = self.get("/api/v1/namespaces/default/pods/nb-0")
        node, _ = player.schedule_one(pod)
        self.assertEqual(node, "node-0")
        self.bind_as_kube_scheduler("nb-0", node)
        annotated = wait_until(lambda: (self.get("/api/v1/namespaces/default/pods/nb-0")["metadata"]
                                        .get("annotations", {}).get(ANNOTATION)), message="nb-0 annotated")
        self.assertEqual(json.loads(annotated), {"name": "nb", "uid": uid})
        r = wait_until(lambda: (lambda r: r if r["status"].get("currentOwners") else None)(
            self.get(f"{RES_PATH}/nb")), message="currentOwners filled")
        self.assertEqual([o["name"] for o in r["status"]["currentOwners"]], ["nb-0"])
        self.assertEqual(r["status"]["allocated"], {"cpu": "600m", "memory": "512Mi"})
        # A second owner of 600m bound onto node-0 finds 400m left in the Restricted reservation: it runs on the
        # node's free capacity, unannotated, and the reservation's accounting does not move.
        self.create_pod("nb-1", "600m", "512Mi", labels={"app": "nb"})
        self.bind_as_kube_scheduler("nb-1", "node-0")
        self.create_pod("nb-2", "300m", "256Mi", labels={"app": "nb"})
        self.bind_as_kube_scheduler("nb-2", "node-0")
        wait_until(lambda: (self.get("/api/v1/namespaces/default/pods/nb-2")["metadata"]
                            .get("annotations", {}).get(ANNOTATION)), message="nb-2 annotated into the 400m left")
        r = wait_until(lambda: (lambda r: r if len(r["status"].get("currentOwners", [])) == 2 else None)(
            self.get(f"{RES_PATH}/nb")), message="two owners")
        self.assertEqual(sorted(o["name"] for o in r["status"]["currentOwners"]), ["nb-0", "nb-2"])
        self.assertEqual(r["status"]["allocated"], {"cpu": "900m", "memory": "768Mi"})
        for name in ("nb-elsewhere", "nb-1"):
            annotations = self.get(f"/api/v1/namespaces/default/pods/{name}")["metadata"].get("annotations", {})
            self.assertNotIn(ANNOTATION, annotations, name)


class NoBindVerbFaultTest(NoBindVerbTest):
    """The annotation patch (and every other write) through kubesim's injected 500/429/409 on pod PATCHes: a refused
    patch leaves the pod counted on its node and is retried, so the owner ends annotated exactly once."""
    sim_flags = {"node_cpu": "4", "node_memory": "8Gi", "fault_rate": "0.5", "fault_codes": "500,429,409",
                 "fault_target": "PATCH:pods"}

    def test_owner_pods_kube_scheduler_binds_are_annotated_into_their_reservation(self):
        super().test_owner_pods_kube_scheduler_binds_are_annotated_into_their_reservation()
        refused = sum(v for k, v in self.mgr.metrics().items()
                      if k[0] == "rest_client_requests_total" and dict(k[1]).get("method") == "PATCH"
                      and dict(k[1]).get("code") in ("500", "429", "409"))
        self.assertGreater(refused, 0, "no PATCH was refused: the faults did not reach the annotation writes")


class PreemptVerbTest(ExtenderSuite):
    """kube-scheduler configured as the extender design doc shows it (urlPrefix with a path,
    `http://host:port/scheduler`) and with `preemptVerb: preempt`. Its preemption dry run is blind to
    reservations: on node-0, where a Reservation holds 6 of 8 cpu, evicting a 2-cpu pod looks enough for a 4-cpu
    pod. berth's preempt answer keeps only the candidate where the victims really make room (node-1)."""
    nodes = 2
    sim_flags = {"node_cpu": "8", "node_memory": "32Gi"}

    def bind_directly(self, name, node):
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": "default"},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        r = self.sim.http("POST", f"/api/v1/namespaces/default/pods/{name}/binding", json=body)
        self.assertEqual(r.status_code, 201, r.text)
        return wait_until(lambda: (lambda p: p if p["spec"].get("nodeName") else None)(
            self.get(f"/api/v1/namespaces/default/pods/{name}")), message=f"{name} bound")

    def test_preempt_keeps_only_candidates_where_evicting_frees_capacity_the_pod_may_use(self):
        res = {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": "held"},
               "spec": {"ttl": "1h", "owners": [{"labelSelector": {"matchLabels": {"app": "owner"}}}],
                        "template": {"metadata": {"namespace": "default"},
                                     "spec": {"nodeName": "node-0", "schedulerName": "koord-scheduler",
                                              "containers": [{"name": "main", "resources": {
                                                  "requests": {"cpu": "6", "memory": "1Gi"}}}]}}}}
        self.assertEqual(self.sim.http("POST", RES_PATH, json=res).status_code, 201)
        self.wait_available("held")
        self.create_pod("low-0", "2", "1Gi")
        self.create_pod("low-1", "8", "1Gi")
        victims = {"node-0": self.bind_directly("low-0", "node-0"), "node-1": self.bind_directly("low-1", "node-1")}
        urgent = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "urgent", "namespace": "default"},
                  "spec": {"schedulerName": "default-scheduler", "priorityClassName": "system-cluster-critical",
                           "containers": [{"name": "main", "image": "busybox",
                                           "resources": {"requests": {"cpu": "4", "memory": "1Gi"}}}]}}
        self.assertEqual(self.sim.http("POST", "/api/v1/namespaces/default/pods", json=urgent).status_code, 201)
        pod = self.get("/api/v1/namespaces/default/pods/urgent")
        player = KubeSchedulerPlayer(self.sim, self.url + "/scheduler/")
        _, filter_result = player.filter(pod, player.nodes())
        self.assertEqual(filter_result["FailedNodes"], {"node-0": "Insufficient cpu", "node-1": "Insufficient cpu"})

        meta = {n: {"Pods": [{"UID": p["metadata"]["uid"]}], "NumPDBViolations": 0} for n, p in victims.items()}
        answer = player.send("preempt", {"Pod": pod, "NodeNameToVictims": None, "NodeNameToMetaVictims": meta})
        self.assertEqual(answer, {"NodeNameToMetaVictims": {"node-1": meta["node-1"]}})
        full = {n: {"Pods": [p], "NumPDBViolations": 0} for n, p in victims.items()}
        answer = player.send("preempt", {"Pod": pod, "NodeNameToVictims": full, "NodeNameToMetaVictims": None})
        self.assertEqual(answer, {"NodeNameToMetaVictims": {"node-1": meta["node-1"]}})
        self.assertEqual(self.mgr.metric("berth_extender_requests_total", verb="preempt", code="200"), 2)

        # kube-scheduler evicts the victim it kept and schedules the pod there, through the same urlPrefix.
        self.sim.kubectl("delete", "pod", "low-1", "--grace-period=0", "--force")
        wait_until(lambda: self.get("/api/v1/namespaces/default/pods/low-1") is None, message="low-1 gone")
        node, _ = player.schedule("urgent")
        self.assertEqual(node, "node-1")
        self.assertIsNotNone(self.get("/api/v1/namespaces/default/pods/low-0"), "the useless victim was kept")
        r = requests.post(f"{self.url}/scheduler/predicates", data="{}", timeout=5)
        self.assertEqual(r.status_code, 404)
        self.assertIn("berth serves filter, prioritize, bind and preempt", r.json()["Error"])
