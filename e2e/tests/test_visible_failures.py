"""berth-manager makes configuration failures visible (issue 9, item 6).

The real binary is started against kubesim with a kubeconfig that is wrong in one way (a CA that
did not sign kubesim's certificate; a token kubesim does not accept). Each failure must produce a
JSON log line naming the server and the reason, only once per 30 s however many informers fail,
and /readyz?verbose must name the informers that have not synced and why.
"""
import json
import os
import re
import unittest

from kubesim_fixture import BerthManager, Kubesim, wait_until


def write_kubeconfig(path, server, ca_path, token):
    with open(path, "w") as f:
        f.write("apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                f"clusters:\n- name: sim\n  cluster:\n    server: {server}\n"
                f"    certificate-authority: {ca_path}\n"
                f"users:\n- name: me\n  user:\n    token: {token}\n"
                "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: me\n")


def json_lines(text):
    out = []
    for line in text.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


class VisibleFailuresTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=1)
        # A second kubesim only for its CA: a real CA that did not sign the first one's certificate.
        cls.other = Kubesim(nodes=0)

    @classmethod
    def tearDownClass(cls):
        cls.other.stop()
        cls.sim.stop()

    def start_manager(self, ca_path, token):
        kubeconfig = os.path.join(self.sim.dir, f"kubeconfig.{self.id().rsplit('.', 1)[-1]}")
        write_kubeconfig(kubeconfig, self.sim.server, ca_path, token)
        mgr = BerthManager(self.sim, start=False)
        mgr.args[mgr.args.index("--kubeconfig") + 1] = kubeconfig
        mgr.start(wait_ready=False)
        self.addCleanup(mgr.kill)
        return mgr

    def wait_for_line(self, mgr, msg):
        def found():
            self.assertIsNone(mgr.proc.poll(), mgr.log_text())
            return [l for l in json_lines(mgr.log_text()) if l.get("msg") == msg]
        return wait_until(found, timeout=20, message=f"log line {msg!r}")

    def readyz_verbose(self, mgr):
        # The first failing API call (and its log line) comes from berth-manager's setup, before the probe server
        # listens: wait for the server to answer before asking it anything.
        wait_until(lambda: mgr.probe("/healthz") is not None, timeout=20, message="the probe server to answer")
        r = mgr.http.get(f"http://127.0.0.1:{mgr.probe_port}/readyz?verbose", timeout=5)
        return r.status_code, r.text

    def test_a_wrong_ca_is_logged_once_with_the_server_and_the_verify_error(self):
        mgr = self.start_manager(self.other.ca_path, self.sim.token)
        lines = self.wait_for_line(mgr, "TLS handshake with the API server failed")
        line = lines[0]
        self.assertEqual(line["level"], "error", line)
        self.assertEqual(line["server"], self.sim.server, line)
        self.assertEqual(line["reason"], "unable to get local issuer certificate", line)
        self.assertIn("certificate verify failed", line["error"], line)
        # Every informer keeps failing the same way; once one has failed three times (backoff from
        # 800 ms) there is still one line.
        def failed_three_times():
            counts = [int(n) for n in re.findall(r"\((\d+) list/watch errors\)", self.readyz_verbose(mgr)[1])]
            return counts and max(counts) >= 3
        wait_until(failed_three_times, timeout=20, message="an informer to fail three times")
        lines = [l for l in json_lines(mgr.log_text()) if l.get("msg") == "TLS handshake with the API server failed"]
        self.assertEqual(len(lines), 1, mgr.log_text())
        # The reflectors say which resource could not be listed.
        listed = [l for l in json_lines(mgr.log_text()) if l.get("msg") == "failed to list"]
        self.assertTrue(listed, mgr.log_text())
        self.assertEqual(listed[0]["server"], self.sim.server)
        self.assertTrue(listed[0]["resource"].startswith("/api"), listed[0])

        code, body = self.readyz_verbose(mgr)
        self.assertEqual(code, 500, body)
        self.assertIn("[-]informer-sync failed: informer /api", body)
        self.assertIn("has not synced: last list error:", body)
        self.assertIn("unable to get local issuer certificate", body)
        self.assertIn("informer /api/v1/pods has not synced", body)
        self.assertTrue(body.endswith("healthz check failed\n"), body)
        terse = mgr.http.get(f"http://127.0.0.1:{mgr.probe_port}/readyz", timeout=5)
        self.assertIn("[-]informer-sync failed: reason withheld", terse.text)

    def test_a_rejected_token_is_logged_with_the_status_message(self):
        mgr = self.start_manager(self.sim.ca_path, "not-the-token")
        line = self.wait_for_line(mgr, "the API server rejected the client's credentials")[0]
        self.assertEqual(line["level"], "error", line)
        self.assertEqual(line["server"], self.sim.server, line)
        self.assertEqual(line["code"], "401", line)
        self.assertEqual(line["statusReason"], "Unauthorized", line)
        code, body = self.readyz_verbose(mgr)
        self.assertEqual(code, 500, body)
        self.assertIn("has not synced: last list error: Unauthorized", body)


if __name__ == "__main__":
    unittest.main()
