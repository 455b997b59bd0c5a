"""Start and stop a kubesim for one test suite, and run real kubectl against it.

Usage in a suite:
    from kubesim_fixture import Kubesim
    class MySuite(unittest.TestCase):
        @classmethod
        def setUpClass(cls):
            cls.sim = Kubesim(nodes=3)        # extra kubesim flags as keyword args or extra_args
        @classmethod
        def tearDownClass(cls):
            cls.sim.stop()
        def test_x(self):
            out = self.sim.kubectl("get", "nodes")       # kubectl v1.32 (/usr/bin/kubectl)
            out = self.sim.kubectl134("get", "nodes")    # kubectl 1.34 from .tools/
            r = self.sim.http("GET", "/api/v1/pods")     # raw HTTPS with the token (requests)
            with self.sim.background(KUBECTL, "get", "pods", "-w") as bg:   # a long-running kubectl
                bg.wait_for_line(lambda l: "x" in l, timeout=10)
"""
import json
import os
import queue
import threading
import shutil
import signal
import subprocess
import tempfile
import time

import requests
import urllib3

ROOT = os.environ.get("BERTH_ROOT", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BIN = os.environ.get("BERTH_BIN", os.path.join(ROOT, "build", "bin"))
KUBECTL = "/usr/bin/kubectl"
KUBECTL134 = os.path.join(ROOT, ".tools", "bin", "kubectl")
HELM = os.path.join(ROOT, ".tools", "bin", "helm")


class CommandError(AssertionError):
    def __init__(self, args, result):
        super().__init__(f"{' '.join(args)} exited {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        self.result = result


def wait_until(predicate, timeout=10.0, interval=0.05, message="condition"):
    """Polls predicate() until it returns a truthy value or the deadline passes."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {message} (last: {last!r})")


class Background:
    """A long-running command (e.g. `kubectl get -w`) whose output lines are read with deadlines.

    stdout and stderr are merged; a reader thread queues each line, so reads never block past a deadline.
    Use as a context manager: leaving the block kills the process (only this one, by its pid)."""

    def __init__(self, cmd):
        self.cmd = cmd
        self.lines = []          # every line read so far, in order
        self._queue = queue.Queue()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for_line(self, predicate, timeout=10.0, seen=False):
        """Returns the first new line for which predicate(line) holds; fails at the deadline or at EOF.

        With seen=True, lines already read by earlier calls are searched first (for output whose order varies)."""
        if seen:
            for line in self.lines:
                if predicate(line):
                    return line
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout}s waiting for a line from {' '.join(self.cmd)}; "
                                     f"lines so far:\n" + "\n".join(self.lines))
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                self._queue.put(None)  # keep EOF visible to later calls
                raise AssertionError(f"{' '.join(self.cmd)} ended (rc={self.proc.poll()}) before the line came; "
                                     f"lines:\n" + "\n".join(self.lines))
            self.lines.append(line)
            if predicate(line):
                return line

    def wait_exit(self, timeout=30.0):
        """Waits for the process to end and returns its exit code and every line it printed."""
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=5)
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                self.lines.append(line)
        return self.proc.returncode, self.lines

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


class Kubesim:
    def __init__(self, nodes=3, extra_args=(), **flags):
        self.dir = tempfile.mkdtemp(prefix="kubesim-")
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        args = [os.path.join(BIN, "kubesim"), "--port", "0", "--kubeconfig-out", self.kubeconfig, "--nodes", str(nodes)]
        for key, value in flags.items():
            flag = "--" + key.replace("_", "-")
            if value is True:
                args.append(flag)
            else:
                args += [flag, str(value)]
        args += list(extra_args)
        self.log_path = os.path.join(self.dir, "kubesim.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_until(lambda: os.path.exists(self.kubeconfig) or self.proc.poll() is not None, timeout=20,
                       message="kubesim to write its kubeconfig")
        except AssertionError:
            self.stop()
            raise
        if self.proc.poll() is not None:
            raise AssertionError("kubesim exited early:\n" + open(self.log_path).read())
        cfg = json.loads(subprocess.run([KUBECTL, "--kubeconfig", self.kubeconfig, "config", "view", "--raw", "-o", "json"],
                                        capture_output=True, text=True, check=True).stdout)
        self.server = cfg["clusters"][0]["cluster"]["server"]
        self.token = cfg["users"][0]["user"]["token"]
        import base64
        self.ca_path = os.path.join(self.dir, "ca.crt")
        with open(self.ca_path, "wb") as f:
            f.write(base64.b64decode(cfg["clusters"][0]["cluster"]["certificate-authority-data"]))
        self.session = requests.Session()
        # Without this, REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE in the environment override session.verify.
        self.session.trust_env = False
        self.session.verify = self.ca_path
        self.session.headers["Authorization"] = "Bearer " + self.token

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def run(self, binary, *args, check=True, input=None, timeout=60):
        cmd = [binary, "--kubeconfig", self.kubeconfig] + list(args)
        result = subprocess.run(cmd, capture_output=True, text=True, input=input, timeout=timeout)
        if check and result.returncode != 0:
            raise CommandError(cmd, result)
        return result

    def kubectl(self, *args, **kw):
        return self.run(KUBECTL, *args, **kw).stdout

    def kubectl134(self, *args, **kw):
        return self.run(KUBECTL134, *args, **kw).stdout

    def background(self, binary, *args):
        """Starts `binary --kubeconfig K args...` in the background; see Background."""
        return Background([binary, "--kubeconfig", self.kubeconfig] + list(args))

    def apply_text(self, yaml_text, binary=KUBECTL, verb="create"):
        """Feeds yaml_text to `kubectl <verb> -f -` and returns stdout."""
        return self.run(binary, verb, "-f", "-", input=yaml_text).stdout

    def http(self, method, path, **kw):
        return self.session.request(method, self.server + path, **kw)

    def get_json(self, path):
        r = self.http("GET", path)
        r.raise_for_status()
        return r.json()
