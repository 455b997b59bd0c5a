"""The probe and metrics servers of a real berth-manager under hostile clients (issue 9, item 5).

Only GET and HEAD are served (405 with Allow otherwise), and 2,000 slowloris connections (the start of a
request, then one header byte per second, reopened whenever the server closes them) neither stop /healthz,
/readyz and /metrics from answering nor add threads to the process, which keeps running. Loopback only;
the swarm runs for a bounded time. Probe latencies are printed to stderr as `MEASURED ...` lines.
"""
import resource
import socket
import sys
import threading
import time
import unittest

import requests

from kubesim_fixture import ManagerLogOnFailure, start_cluster

SLOW_CONNECTIONS = 2000
SWARM_SECONDS = 8


def report(text):
    print("MEASURED " + text, file=sys.stderr, flush=True)


def raw_exchange(port, request, timeout=5.0):
    """Sends `request` bytes on a new connection; returns everything the server sent until it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        chunks = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks)


def thread_count(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return -1


class SlowSwarm:
    """`count` connections to `port` that never finish their request; closed ones are reopened each tick."""

    START = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: "

    def __init__(self, port, count):
        self.port = port
        self.count = count
        self.socks = [None] * count
        self.stop_event = threading.Event()
        self.reopened = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open_one(self):
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=2)
            s.setblocking(False)
            s.send(self.START)
            return s
        except OSError:
            return None

    def start(self):
        for i in range(self.count):
            self.socks[i] = self.open_one()
        self.thread.start()

    def run(self):
        while not self.stop_event.wait(1.0):
            for i, s in enumerate(self.socks):
                if s is not None:
                    try:
                        if s.recv(1, socket.MSG_PEEK) == b"":
                            raise ConnectionResetError
                    except BlockingIOError:
                        try:
                            s.send(b"a")
                            continue
                        except OSError:
                            pass
                    except OSError:
                        pass
                    s.close()
                self.socks[i] = self.open_one()
                self.reopened += 1

    def stop(self):
        self.stop_event.set()
        self.thread.join(timeout=10)
        for s in self.socks:
            if s is not None:
                s.close()


class ProbeServerHardeningTest(ManagerLogOnFailure, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        need = SLOW_CONNECTIONS + 500
        if soft < need and hard >= need:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
        cls.fd_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        cls.sim, cls.mgr = start_cluster(nodes=1)

    @classmethod
    def tearDownClass(cls):
        cls.mgr.stop()
        cls.sim.stop()

    def test_only_get_and_head_are_served(self):
        for method in ("DELETE", "TRACE", "POST", "PUT", "OPTIONS"):
            reply = raw_exchange(self.mgr.probe_port,
                                 f"{method} /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            self.assertTrue(reply.startswith(b"HTTP/1.1 405 "), (method, reply[:80]))
            self.assertIn(b"\r\nAllow: GET, HEAD\r\n", reply)
        reply = raw_exchange(self.mgr.probe_port, b"CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 405 "), reply[:80])
        reply = raw_exchange(self.mgr.metrics_port, b"DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertTrue(reply.startswith(b"HTTP/1.1 405 "), reply[:80])
        head = raw_exchange(self.mgr.probe_port, b"HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200 "), head[:80])
        self.assertIn(b"\r\nContent-Length: 2\r\n", head)
        self.assertTrue(head.endswith(b"\r\n\r\n"), "HEAD carries no body")
        big = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n"
        self.assertTrue(raw_exchange(self.mgr.probe_port, big).startswith(b"HTTP/1.1 431 "))
        self.assertEqual(self.mgr.probe("/healthz"), 200)

    def test_two_thousand_slow_connections_do_not_stop_the_probes(self):
        if self.fd_limit < SLOW_CONNECTIONS + 500:
            self.skipTest(f"needs RLIMIT_NOFILE >= {SLOW_CONNECTIONS + 500} (ulimit -n is {self.fd_limit})")
        pid = self.mgr.proc.pid
        threads_before = thread_count(pid)
        swarm = SlowSwarm(self.mgr.probe_port, SLOW_CONNECTIONS)
        swarm.start()
        session = requests.Session()
        session.trust_env = False
        latencies, failures, max_threads = [], [], threads_before
        try:
            end = time.monotonic() + SWARM_SECONDS
            paths = ("/healthz", "/readyz", "/readyz?verbose")
            i = 0
            while time.monotonic() < end:
                path = paths[i % len(paths)]
                i += 1
                start = time.monotonic()
                try:
                    # A fresh connection per probe, as kubelet does.
                    code = requests.get(f"http://127.0.0.1:{self.mgr.probe_port}{path}", timeout=2,
                                        headers={"Connection": "close"}).status_code
                except requests.RequestException as e:
                    code = repr(e)
                elapsed = time.monotonic() - start
                if code == 200:
                    latencies.append(elapsed * 1000)
                else:
                    failures.append((path, code))
                max_threads = max(max_threads, thread_count(pid))
                self.assertTrue(self.mgr.running(), "berth-manager exited under the swarm")
                time.sleep(0.05)
            metrics = session.get(f"http://127.0.0.1:{self.mgr.metrics_port}/metrics", timeout=5)
            self.assertEqual(metrics.status_code, 200)
        finally:
            swarm.stop()
        latencies.sort()
        if latencies:
            report(f"probe latency under {SLOW_CONNECTIONS} slow connections: n={len(latencies)} "
                   f"p50={latencies[len(latencies) // 2]:.1f}ms p99={latencies[int(len(latencies) * 0.99)]:.1f}ms "
                   f"max={latencies[-1]:.1f}ms failures={len(failures)} swarm_reopened={swarm.reopened} "
                   f"threads={threads_before}->{max_threads}")
        self.assertEqual(failures, [])
        self.assertGreaterEqual(len(latencies), 20)
        self.assertGreater(swarm.reopened, 0, "the server closed slow connections (limit and deadline)")
        # No thread per connection: 2,000 connections leave the thread count where it was.
        self.assertLessEqual(max_threads, threads_before + 2)
        self.assertTrue(self.mgr.running())
        self.assertEqual(self.mgr.probe("/readyz"), 200)


if __name__ == "__main__":
    unittest.main()
