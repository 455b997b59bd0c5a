"""berth-manager --metrics-secure, as kubebuilder scaffolds it: /metrics over HTTPS (a self-signed certificate
made at start, or --metrics-cert-dir), each scrape's bearer token reviewed (TokenReview) and its user authorised
(SubjectAccessReview for nonResourceURL /metrics, get) by the API server. kubesim answers both from the tokens it
mints (the TokenRequest API, serviceaccounts/<name>/token) and its RBAC objects.
"""
import json
import os
import ssl
import subprocess
import tempfile
import unittest

import requests
import urllib3

from kubesim_fixture import start_cluster

urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)

READER = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "metrics-reader"},
          "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]}


class SecureMetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim, cls.mgr = start_cluster(nodes=1, extra_args=["--metrics-secure"], wait_ready=True)
        cls.url = f"https://127.0.0.1:{cls.mgr.metrics_port}/metrics"
        for sa in ("prometheus", "stranger"):
            cls.sim.kubectl("create", "serviceaccount", sa, "-n", "default")
        cls.sim.kubectl("create", "-f", "-", input=json.dumps(READER))
        cls.sim.kubectl("create", "clusterrolebinding", "prometheus-metrics", "--clusterrole=metrics-reader",
                        "--serviceaccount=default:prometheus")
        # `kubectl create token` sends a protobuf TokenRequest; each kubectl version mints one of the tokens.
        cls.allowed_token = cls.sim.kubectl("create", "token", "prometheus", "-n", "default").strip()
        cls.unbound_token = cls.sim.kubectl134("create", "token", "stranger", "-n", "default",
                                               "--duration=15m").strip()

    @classmethod
    def tearDownClass(cls):
        cls.mgr.stop()
        cls.sim.stop()

    def get(self, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return requests.get(self.url, headers=headers, verify=False, timeout=15)

    def test_a_bound_token_reads_metrics(self):
        r = self.get(self.allowed_token)
        self.assertEqual(r.status_code, 200, r.text)
        self.assertIn("workqueue_depth", r.text)

    def test_an_unbound_token_is_forbidden(self):
        r = self.get(self.unbound_token)
        self.assertEqual(r.status_code, 403)
        self.assertEqual(r.text.strip(), "Authorization denied for user system:serviceaccount:default:stranger")

    def test_no_token_or_a_bad_token_is_unauthorized(self):
        self.assertEqual(self.get().status_code, 401)
        r = self.get("not-a-token")
        self.assertEqual(r.status_code, 401)
        self.assertEqual(r.text.strip(), "Unauthorized")

    def test_plain_http_is_not_served(self):
        with self.assertRaises(requests.exceptions.ConnectionError):
            requests.get(f"http://127.0.0.1:{self.mgr.metrics_port}/metrics", timeout=5)

    def test_self_signed_certificate_for_localhost(self):
        pem = ssl.get_server_certificate(("127.0.0.1", self.mgr.metrics_port))
        out = subprocess.run(["openssl", "x509", "-noout", "-subject", "-ext", "subjectAltName"], input=pem,
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("CN = localhost", out)
        self.assertIn("DNS:localhost", out)
        self.assertIn("IP Address:127.0.0.1", out)

    def test_kubesim_reviews_directly(self):
        r = self.sim.http("POST", "/apis/authentication.k8s.io/v1/tokenreviews", json={
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": self.allowed_token}})
        self.assertEqual(r.status_code, 201, r.text)
        review = r.json()
        self.assertTrue(review["status"]["authenticated"])
        self.assertEqual(review["status"]["user"]["username"], "system:serviceaccount:default:prometheus")
        self.assertIn("system:serviceaccounts:default", review["status"]["user"]["groups"])
        unknown = self.sim.http("POST", "/apis/authentication.k8s.io/v1/tokenreviews", json={
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": "nope"}}).json()
        self.assertNotIn("authenticated", unknown["status"])
        r = self.sim.http("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json={
            "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {"user": "system:serviceaccount:default:prometheus",
                     "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
                     "nonResourceAttributes": {"path": "/metrics", "verb": "get"}}})
        self.assertEqual(r.status_code, 201, r.text)
        self.assertTrue(r.json()["status"]["allowed"])
        self.assertEqual(r.json()["status"]["reason"],
                         'RBAC: allowed by ClusterRoleBinding "prometheus-metrics" of ClusterRole "metrics-reader" to '
                         'ServiceAccount "default/prometheus"')
        invalid = self.sim.http("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", json={
            "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": "x"}})
        self.assertEqual(invalid.status_code, 422)


class SecureMetricsCertDirTest(unittest.TestCase):
    def test_serves_the_mounted_pair(self):
        work = tempfile.mkdtemp()
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                        "-keyout", os.path.join(work, "tls.key"), "-out", os.path.join(work, "tls.crt"), "-days", "1",
                        "-subj", "/CN=berth-metrics.example", "-addext", "subjectAltName=DNS:berth-metrics.example"],
                       check=True, capture_output=True)
        sim, mgr = start_cluster(nodes=1, extra_args=["--metrics-secure", "--metrics-cert-dir", work])
        self.addCleanup(sim.stop)
        self.addCleanup(mgr.stop)
        pem = ssl.get_server_certificate(("127.0.0.1", mgr.metrics_port))
        with open(os.path.join(work, "tls.crt")) as f:
            self.assertEqual(ssl.PEM_cert_to_DER_cert(pem), ssl.PEM_cert_to_DER_cert(f.read()))
        r = requests.get(f"https://127.0.0.1:{mgr.metrics_port}/metrics", verify=False, timeout=15)
        self.assertEqual(r.status_code, 401)


if __name__ == "__main__":
    unittest.main()
