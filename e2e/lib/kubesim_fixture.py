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
import glob
import json
import os
import queue
import re
import threading
import shutil
import signal
import subprocess
import sys
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


# The first line of an AddressSanitizer/LeakSanitizer or UndefinedBehaviorSanitizer report (BERTH_SANITIZE=ON).
SANITIZER_REPORT = re.compile(r"^==\d+==ERROR: (AddressSanitizer|LeakSanitizer)|^\S+:\d+:\d+: runtime error: ", re.M)


def sanitizer_reports(paths):
    """Returns the sanitizer reports found in these log files (from each report's first line on), or ""."""
    found = []
    for path in paths:
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        m = SANITIZER_REPORT.search(text)
        if m:
            found.append(f"--- {os.path.basename(path)}:\n{text[m.start():m.start() + 6000]}")
    return "\n".join(found)


def wait_until(predicate, timeout=30.0, interval=0.05, message="condition"):
    """Polls predicate() until it returns a truthy value or the deadline passes.

    The default deadline is generous on purpose (it costs nothing when the condition comes): CI runs the suites
    two at a time beside the unit tests on two cores, where a bind or a status write can take seconds. Poll only
    for a state that lasts; a short-lived one is read from kubesim's watch history (Kubesim.events_since)."""
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

    def __init__(self, cmd, env=None):
        self.cmd = cmd
        self.lines = []          # every line read so far, in order
        self._queue = queue.Queue()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                                     env=env)
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
        # A sanitized build reports leaks and shutdown-time errors only at exit, where no request fails: look
        # in kubesim's log and in the logs of every berth-manager run on it (they live in this dir).
        reports = sanitizer_reports([self.log_path] + sorted(glob.glob(os.path.join(self.dir, "berth-manager.*.log"))))
        shutil.rmtree(self.dir, ignore_errors=True)
        if reports:
            raise AssertionError("sanitizer report in a process log:\n" + reports)

    def env(self):
        """The environment for client commands: kubectl's discovery cache lives in this kubesim's own dir, so a stale
        cache from an earlier kubesim on the same port is never read and nothing piles up in ~/.kube/cache."""
        env = dict(os.environ)
        env["KUBECACHEDIR"] = os.path.join(self.dir, "kubectl-cache")
        return env

    def run(self, binary, *args, check=True, input=None, timeout=60):
        cmd = [binary, "--kubeconfig", self.kubeconfig] + list(args)
        result = subprocess.run(cmd, capture_output=True, text=True, input=input, timeout=timeout, env=self.env())
        if check and result.returncode != 0:
            raise CommandError(cmd, result)
        return result

    def kubectl(self, *args, **kw):
        return self.run(KUBECTL, *args, **kw).stdout

    def kubectl134(self, *args, **kw):
        return self.run(KUBECTL134, *args, **kw).stdout

    def background(self, binary, *args):
        """Starts `binary --kubeconfig K args...` in the background; see Background."""
        return Background([binary, "--kubeconfig", self.kubeconfig] + list(args), env=self.env())

    def apply_text(self, yaml_text, binary=KUBECTL, verb="create"):
        """Feeds yaml_text to `kubectl <verb> -f -` and returns stdout."""
        return self.run(binary, verb, "-f", "-", input=yaml_text).stdout

    def http(self, method, path, **kw):
        return self.session.request(method, self.server + path, **kw)

    def get_json(self, path):
        r = self.http("GET", path)
        r.raise_for_status()
        return r.json()

    def resource_version(self, path):
        """The collection's current resourceVersion (kubesim has one global counter): a mark for events_since."""
        return self.get_json(path)["metadata"]["resourceVersion"]

    def events_since(self, path, rv):
        """Every watch event of the collection `path` after resourceVersion rv, as (rv, type, object), oldest first.
        kubesim keeps the history, so a state that lived for less than a poll (a reservation expired and collected
        within a second) is still seen; the watch ends after 1 s without events."""
        r = self.http("GET", f"{path}?watch=1&resourceVersion={rv}&timeoutSeconds=1", timeout=30)
        r.raise_for_status()
        out = []
        for line in r.text.splitlines():
            if line.strip():
                event = json.loads(line)
                if event["type"] == "ERROR":
                    raise AssertionError(f"watch of {path} from {rv} failed: {event['object']}")
                obj = event["object"]
                out.append((int(obj["metadata"]["resourceVersion"]), event["type"], obj))
        return out

    def install_crds(self):
        """Applies berth's CRDs (crds/) with kubectl and waits until they are established."""
        self.kubectl("apply", "-f", os.path.join(ROOT, "crds"))
        self.kubectl("wait", "--for=condition=established", "crd/reservations.scheduling.koordinator.sh",
                     "crd/provisioningrequests.autoscaling.x-k8s.io",
                     "crd/resourcepolicies.scheduling.sigs.x-k8s.io",
                     "crd/podmigrationjobs.scheduling.koordinator.sh", "--timeout=10s")


def start_sim(nodes=3, setup=None, **flags):
    """Starts a Kubesim(nodes, **flags) with berth's CRDs, then calls setup(sim) if given; returns the sim, which is
    stopped again if a step fails."""
    sim = Kubesim(nodes=nodes, **flags)
    try:
        sim.install_crds()
        if setup:
            setup(sim)
        return sim
    except BaseException:
        sim.stop()
        raise


def start_cluster(nodes=3, sim_flags=None, **manager_kwargs):
    """Starts a Kubesim with berth's CRDs and a BerthManager(sim, **manager_kwargs) on it; returns (sim, mgr).
    Whatever started is stopped again if a step fails."""
    sim = start_sim(nodes, **(sim_flags or {}))
    try:
        return sim, BerthManager(sim, **manager_kwargs)
    except BaseException:
        sim.stop()
        raise


class SimPerClass:
    """A unittest.TestCase mixin: one kubesim (`nodes`, `sim_flags`, berth's CRDs, then set_up_sim(sim)) for all of
    a class's tests, without berth-manager."""

    nodes = 3
    sim_flags = {}

    @classmethod
    def setUpClass(cls):
        cls.sim = start_sim(cls.nodes, setup=cls.set_up_sim, **cls.sim_flags)

    @classmethod
    def set_up_sim(cls, sim):
        pass

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()


class ClusterPerClass:
    """A unittest.TestCase mixin: one kubesim (`nodes`, `sim_flags`, berth's CRDs) and one berth-manager
    (`manager_args`) for all of a class's tests. set_up_cluster() adds to them; when it fails, both are stopped."""

    nodes = 3
    sim_flags = {}
    manager_args = ()

    @classmethod
    def setUpClass(cls):
        cls.sim, cls.mgr = start_cluster(nodes=cls.nodes, sim_flags=cls.sim_flags, extra_args=list(cls.manager_args))
        try:
            cls.set_up_cluster()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def set_up_cluster(cls):
        pass

    @classmethod
    def tearDownClass(cls):
        cls.mgr.stop()
        cls.sim.stop()


class ManagerLogOnFailure:
    """A unittest.TestCase mixin: when a test fails or errors, the tail of self.mgr's log goes to stderr (the first
    thing to read)."""

    def tearDown(self):
        result = getattr(getattr(self, "_outcome", None), "result", None)
        failed = getattr(result, "errors", []) + getattr(result, "failures", [])
        if any(test is self for test, _ in failed):
            print("---- berth-manager log (tail) ----\n" + "\n".join(self.mgr.log_text().splitlines()[-60:]),
                  file=sys.stderr)
        super().tearDown()


def start_cluster_for(test, nodes=3, sim_flags=None, setup=None, **manager_kwargs):
    """start_cluster for one test: sets test.sim (berth's CRDs installed, then setup(sim) if given) and test.mgr
    (BerthManager(sim, **manager_kwargs)), each stopped by the test's cleanups (the manager first)."""
    test.sim = start_sim(nodes, setup=setup, **(sim_flags or {}))
    test.addCleanup(test.sim.stop)
    test.mgr = BerthManager(test.sim, **manager_kwargs)
    test.addCleanup(test.mgr.stop)


def kubectl_table(text):
    """Splits `kubectl get` output into (header names, rows as dicts keyed by header), by the header's column
    offsets (a cell may be empty)."""
    lines = text.rstrip("\n").splitlines()
    header = lines[0]
    starts = [i for i, c in enumerate(header) if c != " " and (i == 0 or header[i - 1] == " ")]
    names = header.split()
    rows = []
    for line in lines[1:]:
        rows.append({names[n]: line[start:(starts[n + 1] if n + 1 < len(starts) else len(line))].strip()
                     for n, start in enumerate(starts)})
    return names, rows


def free_ports(count):
    """Returns `count` distinct TCP ports on 127.0.0.1 that were free a moment ago (the OS picks them). Every socket
    stays bound until all are picked: picked one after another, the OS may hand out a just-closed port again."""
    import socket
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockets.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def free_port():
    """Returns a TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    return free_ports(1)[0]


def parse_metrics(text):
    """Parses Prometheus text exposition into {(name, ((label, value), ...)): float}; labels sorted."""
    import re
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)', line)
        if not m:
            continue
        labels = tuple(sorted(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or "")))
        try:
            out[(m.group(1), labels)] = float(m.group(4))
        except ValueError:
            continue
    return out


class BerthManager:
    """berth-manager (BIN/berth-manager) running against a Kubesim.

    Metrics and probes listen on 127.0.0.1 with free ports; stdout/stderr go to a log file that
    stays readable (log_text()) for failure output. stop() sends SIGTERM, kill() SIGKILL (this process
    only, by pid); restart() starts it again with the same flags and the same ports.
        mgr = BerthManager(sim, gc_duration="3s", extra_args=["--log-level", "debug"])
        mgr.wait_ready()
        m = mgr.metrics()     # {(name, ((label, value), ...)): value}
    """

    # A port picked by free_ports is free, not reserved: another process on the machine (a parallel suite's kubesim
    # or its own free_ports) may bind it before berth-manager does. Losing that race is no failure of berth: the
    # first start picks new ports and tries again, at most this many times in all.
    PORT_ATTEMPTS = 3

    def __init__(self, sim, gc_duration=None, extra_args=(), start=True, wait_ready=True):
        self.sim = sim
        self.extra_args = ["--reservation-gc-duration", str(gc_duration)] if gc_duration is not None else []
        self.extra_args += list(extra_args)
        self.pick_ports()
        self.runs = 0
        self.started = 0
        self.proc = None
        self.log = None
        self.log_path = None
        self.http = requests.Session()
        self.http.trust_env = False
        if start:
            self.start(wait_ready=wait_ready)

    def pick_ports(self):
        """Picks the metrics and probe ports; on a second pick they are replaced in place in self.args, which a test
        may have edited otherwise."""
        old = None
        if hasattr(self, "args"):
            old = [f"127.0.0.1:{self.metrics_port}", f"127.0.0.1:{self.probe_port}"]
        self.metrics_port, self.probe_port = free_ports(2)
        new = [f"127.0.0.1:{self.metrics_port}", f"127.0.0.1:{self.probe_port}"]
        if old is None:
            self.args = [os.path.join(BIN, "berth-manager"), "--kubeconfig", self.sim.kubeconfig,
                         "--metrics-bind-address", new[0], "--health-probe-bind-address", new[1]] + self.extra_args
        else:
            self.args = [new[old.index(a)] if a in old else a for a in self.args]

    def start(self, wait_ready=True):
        self.runs += 1  # a run is one start(); its port retries do not count as restarts
        self.started += 1
        for attempt in range(1, self.PORT_ATTEMPTS + 1):
            retry = "" if attempt == 1 else f".{attempt}"
            self.log_path = os.path.join(self.sim.dir, f"berth-manager.{self.runs}{retry}.log")
            self.log = open(self.log_path, "w")
            self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=subprocess.STDOUT)
            if not wait_ready:
                return self
            try:
                self.wait_ready()
                return self
            except AssertionError:
                # Only the first start may move: a restart keeps the ports the test already uses.
                if self.started > 1 or attempt == self.PORT_ATTEMPTS or not self.lost_port_race():
                    raise
                self.log.close()
                self.pick_ports()

    def lost_port_race(self):
        """berth-manager exited because one of its ports was taken ("listen on 127.0.0.1:P: Address already in
        use")."""
        return (self.proc.poll() is not None and
                re.search(r"listen on 127\.0\.0\.1:\d+: Address already in use", self.log_text()) is not None)

    def probe(self, path):
        """GETs a probe path (/healthz, /readyz); returns the status code, or None if nothing answers."""
        try:
            return self.http.get(f"http://127.0.0.1:{self.probe_port}{path}", timeout=2).status_code
        except requests.RequestException:
            return None

    def wait_ready(self, timeout=20):
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError(f"berth-manager exited {self.proc.returncode}:\n{self.log_text()}")
            return self.probe("/readyz") == 200
        try:
            wait_until(ready, timeout=timeout, message="berth-manager /readyz to answer 200")
        except AssertionError as e:
            raise AssertionError(f"{e}\nberth-manager log:\n{self.log_text()}") from None

    def wait(self, predicate, message, timeout=30, interval=0.05, log_tail=4000, context=None):
        """wait_until whose failure also shows context() (when given) and the tail of this berth-manager's log."""
        try:
            return wait_until(predicate, timeout=timeout, interval=interval, message=message)
        except AssertionError as e:
            extra = f"\n{context()}" if context else ""
            raise AssertionError(f"{e}{extra}\nberth-manager log (tail):\n{self.log_text()[-log_tail:]}") from None

    def metrics_text(self):
        r = self.http.get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5)
        r.raise_for_status()
        return r.text

    def metrics(self):
        """Scrapes /metrics: {(name, ((label, value), ...)): value}, labels sorted by name."""
        return parse_metrics(self.metrics_text())

    def metric(self, name, **labels):
        """One sample's value (0.0 when absent), e.g. metric("berth_reservations", phase="Failed")."""
        return self.metrics().get((name, tuple(sorted(labels.items()))), 0.0)

    def log_text(self):
        if self.log:
            self.log.flush()
        try:
            with open(self.log_path) as f:
                return f.read()
        except (OSError, TypeError):
            return ""

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=15):
        """SIGTERM and wait; returns the exit code (SIGKILL after timeout)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log:
            self.log.close()
        return self.proc.returncode

    def kill(self):
        """SIGKILL (kill -9) this berth-manager only."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.log:
            self.log.close()

    def restart(self, wait_ready=True):
        self.stop()
        return self.start(wait_ready=wait_ready)
