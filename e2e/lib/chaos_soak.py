"""The parts of the chaos soak (e2e/tests/test_chaos_soak.py): a deterministic workload, the audit-log invariant
watcher, the snapshot checker and the leader chaos driver. Every loop here is bounded in count and time.

Invariants and how each is observed:
- no double binding: kubesim's audit log holds at most one successful pods/binding per pod (names are never reused);
- no mutating write from a non-leader: every mutating request a berth-manager sends (its User-Agent carries its
  leader-election identity) comes from the identity whose Lease write succeeded last, in audit-log order;
- every expiry exactly once: the status writes of a reservation (the audit log records the phase each one returned)
  turn Failed exactly once and never leave Failed, no earlier than creationTimestamp + ttl and no later than
  EXPIRY_BOUND_S after it;
- no over-allocation / node overcommit: snapshots of the cluster (reservations, pods, nodes), see SnapshotChecker.
"""
import json
import signal
import subprocess
import threading
import time
from datetime import datetime, timezone

import requests

from kubesim_fixture import parse_metrics, wait_until
from quantities import pod_requests, quantity

RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
PODS_PATH = "/api/v1/namespaces/default/pods"
ALLOCATED = "scheduling.koordinator.sh/reservation-allocated"
AFFINITY = "scheduling.koordinator.sh/reservation-affinity"
GROUP_LABEL = "soak-group"
MUTATING_VERBS = {"create", "update", "patch", "delete", "deletecollection"}
LEASE_NAMESPACE, LEASE_NAME = "berth-system", "berth-manager"
# Short leases so that a takeover fits many times into a soak; renewDeadline < leaseDuration leaves the standby a
# 2 s margin (the fencing guarantee).
LEASE_DURATION_S, RENEW_DEADLINE_S, RETRY_PERIOD_S = 6, 4, 1
LEASE_FLAGS = ["--leader-elect-lease-duration", f"{LEASE_DURATION_S}s",
               "--leader-elect-renew-deadline", f"{RENEW_DEADLINE_S}s",
               "--leader-elect-retry-period", f"{RETRY_PERIOD_S}s"]
# The latest an expiry may be written, after the deadline: one takeover (the standby acquires at most
# leaseDuration + retryPeriod * 1.2 jitter after the leader's last renewal, which may be right before the deadline),
# plus the new leader's informer sync under 10% faults and the status write's backoff (8 s: the initial lists
# retry with the reflector's 800 ms backoff; per-item write backoff starts at 5 ms).
EXPIRY_BOUND_S = LEASE_DURATION_S + 2 * RETRY_PERIOD_S + 8
# Expiry may be written at most this much before creationTimestamp + ttl: none (the audit timestamp and
# creationTimestamp come from the same kubesim clock; 50 ms for the log's millisecond rounding).
EXPIRY_EARLY_SLACK_S = 0.05

# One workload group every GROUP_INTERVAL_S; kinds cycle through KINDS. Offsets from the group's creation:
DELETE_POD_AT_S = 14         # delete one bound pod of the group
DELETE_RESERVATION_AT_S = 26  # kind "restricted-deleted": delete the reservation, its pods stay
OUTCOME_AT_S = 44            # record the group's outcome, then delete everything of it
SHORT_TTL_S = 24             # > DELETE_POD_AT_S; + EXPIRY_BOUND_S < OUTCOME_AT_S
GROUP_INTERVAL_S = 3
# (name, allocatePolicy, ttl, allocateOnce, pods). Restricted groups have one pod more than fits (3 x 300m fit
# 1 cpu): it must stay Pending. allocateOnce: one of the two pods binds, the reservation turns Succeeded.
KINDS = [("restricted-deleted", "Restricted", "1h", False, 4),
         ("aligned-expiring", "Aligned", f"{SHORT_TTL_S}s", False, 3),
         ("restricted-expiring", "Restricted", f"{SHORT_TTL_S}s", False, 4),
         ("aligned-once", "Aligned", "1h", True, 2)]
POD_CPU_M, RES_CPU_M = 300, 1000


def parse_time(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()


class Api:
    """HTTP to one kubesim that retries what kubesim injected (500, 503, 429, and 409 Conflict, which kubesim
    answers before the handler runs, so a retry cannot apply a request twice). Bounded: 40 tries, 5 s each."""
    INJECTED = {500, 503, 429}

    def __init__(self, sim, user_agent):
        self.sim = sim
        self.session = requests.Session()
        self.session.trust_env = False
        self.session.verify = sim.ca_path
        self.session.headers["Authorization"] = "Bearer " + sim.token
        self.session.headers["User-Agent"] = user_agent
        self.retries = 0

    def call(self, method, path, body=None, ok=(200, 201, 202)):
        last = None
        for _ in range(40):
            try:
                r = self.session.request(method, self.sim.server + path, json=body, timeout=5)
            except requests.RequestException as e:
                last = repr(e)
                time.sleep(0.1)
                continue
            injected = r.status_code in self.INJECTED or (r.status_code == 409 and
                                                          r.json().get("reason") == "Conflict")
            if r.status_code in ok or not injected:
                return r
            self.retries += 1
            last = f"{r.status_code} {r.text[:200]}"
            time.sleep(0.05)
        raise AssertionError(f"{method} {path}: still failing after 40 tries: {last}")

    def close(self):
        self.session.close()

    def items(self, path):
        r = self.call("GET", path, ok=(200,))
        if r.status_code != 200:
            raise AssertionError(f"GET {path}: {r.status_code} {r.text[:300]}")
        return r.json()["items"]


def reservation_body(group, kind):
    _, policy, ttl, once, _ = kind
    g = f"g{group}"
    return {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
            "metadata": {"name": f"soak-{group}", "labels": {GROUP_LABEL: g}},
            "spec": {"allocateOnce": once, "allocatePolicy": policy, "ttl": ttl,
                     "owners": [{"labelSelector": {"matchLabels": {GROUP_LABEL: g}}}],
                     "template": {"metadata": {"namespace": "default"},
                                  "spec": {"schedulerName": "koord-scheduler", "containers": [
                                      {"name": "main", "resources": {
                                          "requests": {"cpu": f"{RES_CPU_M}m", "memory": "1Gi"}}}]}}}}


def pod_body(group, n):
    g = f"g{group}"
    # The affinity makes the pod use its group's reservation or none: it never lands on free capacity instead, so
    # where it ends is decided by the reservation alone, not by timing.
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"soak-{group}-{n}", "namespace": "default", "labels": {GROUP_LABEL: g},
                         "annotations": {AFFINITY: json.dumps({"reservationSelector": {GROUP_LABEL: g}})}},
            "spec": {"schedulerName": "koord-scheduler", "containers": [
                {"name": "main", "image": "busybox",
                 "resources": {"requests": {"cpu": f"{POD_CPU_M}m", "memory": "256Mi"}}}]}}


class Workload:
    """Runs the same schedule of creates and deletes on one kubesim: group i starts GROUP_INTERVAL_S * i after start.
    The end state of each group (its outcome, recorded at OUTCOME_AT_S just before it is deleted) is determined by
    the schedule alone, so a chaos run and a fault-free replay must record the same outcomes."""

    def __init__(self, api, groups, start):
        self.api = api
        self.groups = groups
        self.start = start
        self.outcomes = {}
        self.reservations = {}   # name -> {"created": creationTimestamp (s), "ttl_s": float or None, "deleted": t}
        self.pods_created = 0
        self.errors = []
        self.done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        schedule = []
        for g in range(groups):
            t0 = GROUP_INTERVAL_S * g
            kind = KINDS[g % len(KINDS)]
            schedule.append((t0, 0, g, "create"))
            schedule.append((t0 + DELETE_POD_AT_S, 1, g, "delete-pod"))
            if kind[0] == "restricted-deleted":
                schedule.append((t0 + DELETE_RESERVATION_AT_S, 2, g, "delete-reservation"))
            schedule.append((t0 + OUTCOME_AT_S, 3, g, "outcome"))
        self.schedule = sorted(schedule)

    def run_in_background(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=60)

    def _run(self):
        try:
            for at, _, g, action in self.schedule:
                if self._stop.wait(max(0.0, self.start + at - time.time())):
                    return
                getattr(self, "_" + action.replace("-", "_"))(g)
        except Exception as e:  # recorded and reported by the test, never lost in a thread
            self.errors.append(f"workload: {e!r}")
        finally:
            self.done.set()

    def _group_pods(self, g):
        return self.api.items(f"{PODS_PATH}?labelSelector={GROUP_LABEL}%3Dg{g}")

    def _create(self, g):
        kind = KINDS[g % len(KINDS)]
        r = self.api.call("POST", RES_PATH, reservation_body(g, kind))
        if r.status_code != 201:
            self.errors.append(f"create reservation soak-{g}: {r.status_code} {r.text[:200]}")
            return
        meta = r.json()["metadata"]
        ttl = kind[2]
        self.reservations[meta["name"]] = {"created": parse_time(meta["creationTimestamp"]), "deleted": None,
                                           "ttl_s": float(ttl[:-1]) if ttl.endswith("s") else None}
        for n in range(kind[4]):
            p = self.api.call("POST", PODS_PATH, pod_body(g, n))
            if p.status_code != 201:
                self.errors.append(f"create pod soak-{g}-{n}: {p.status_code} {p.text[:200]}")
            else:
                self.pods_created += 1

    def _delete_pod(self, g):
        bound = sorted(p["metadata"]["name"] for p in self._group_pods(g) if p["spec"].get("nodeName"))
        if bound:
            self.api.call("DELETE", f"{PODS_PATH}/{bound[0]}", ok=(200, 202, 404))
        self.outcomes.setdefault(g, {})["boundAtPodDelete"] = min(len(bound), 1)

    def _delete_reservation(self, g):
        self.api.call("DELETE", f"{RES_PATH}/soak-{g}", ok=(200, 202, 404))
        self.reservations[f"soak-{g}"]["deleted"] = time.time()

    def _outcome(self, g):
        name = f"soak-{g}"
        r = self.api.call("GET", f"{RES_PATH}/{name}", ok=(200, 404))
        res = r.json() if r.status_code == 200 else None
        out = self.outcomes.setdefault(g, {})
        out["kind"] = KINDS[g % len(KINDS)][0]
        if res is None:
            out["reservation"] = "deleted"
        else:
            st = res.get("status", {})
            ready = next((c for c in st.get("conditions", []) if c.get("type") == "Ready"), {})
            out["reservation"] = f"{st.get('phase')}/{ready.get('reason')}"
            out["currentOwners"] = len(st.get("currentOwners") or [])
        into = outside = pending = 0
        for p in self._group_pods(g):
            if not p["spec"].get("nodeName"):
                pending += 1
            elif (p["metadata"].get("annotations") or {}).get(ALLOCATED):
                into += 1
            else:
                outside += 1
        out.update({"podsInReservation": into, "podsBoundOutside": outside, "podsPending": pending})
        # Then the group goes: its pods and its reservation.
        for p in self._group_pods(g):
            self.api.call("DELETE", f"{PODS_PATH}/{p['metadata']['name']}", ok=(200, 202, 404))
        if res is not None:
            self.api.call("DELETE", f"{RES_PATH}/{name}", ok=(200, 202, 404))
            self.reservations[name]["deleted"] = time.time()


class AuditWatcher:
    """Follows kubesim's audit log while the soak runs and checks the audit invariants on every line as it comes."""

    def __init__(self, path):
        self.path = path
        self.holder = None           # User-Agent of the identity whose Lease write succeeded last
        self.holders = []            # (ts, user agent) per change of holder
        self.violations = []
        self.bindings = {}           # "ns/name" -> successful bindings
        self.status_writes = {}      # reservation name -> [(ts, phase, user agent)]
        self.lines = 0
        self.berth_writes = 0
        self._offset = 0
        self._partial = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def run_in_background(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=30)
        self.poll()  # the rest of the log

    def _run(self):
        while not self._stop.wait(0.5):
            self.poll()

    def poll(self):
        with open(self.path) as f:
            f.seek(self._offset)
            chunk = f.read()
            self._offset = f.tell()
        text = self._partial + chunk
        lines = text.split("\n")
        self._partial = lines.pop()  # a line still being written
        for line in lines:
            if line.strip():
                self.check(json.loads(line))

    def check(self, l):
        self.lines += 1
        ua, verb, code = l.get("userAgent", ""), l.get("verb"), l.get("code", 0)
        ok = 200 <= code < 300
        if (l.get("resource") == "leases" and l.get("namespace") == LEASE_NAMESPACE
                and l.get("name") in (LEASE_NAME, "") and verb in ("create", "update", "patch")):
            # (a create is a POST to the collection: the audit line names no object)
            if ok and ua != self.holder:
                self.holder = ua
                self.holders.append((l.get("ts"), ua))
            return
        if not ua.startswith("berth/"):
            return
        if verb in MUTATING_VERBS:
            self.berth_writes += 1
            if ua != self.holder:
                self.violations.append(f"audit line {self.lines}: {verb} {l.get('resource')}/{l.get('subresource')} "
                                       f"{l.get('name')} -> {code} from {ua!r} while the Lease holder is "
                                       f"{self.holder!r}")
        if ok and l.get("resource") == "pods" and l.get("subresource") == "binding" and verb == "create":
            key = f"{l.get('namespace')}/{l.get('name')}"
            self.bindings[key] = self.bindings.get(key, 0) + 1
            if self.bindings[key] > 1:
                self.violations.append(f"audit line {self.lines}: pod {key} bound a second time by {ua!r}")
        if ok and l.get("resource") == "reservations" and l.get("subresource") == "status" and l.get("phase"):
            self.status_writes.setdefault(l["name"], []).append((l["ts"], l["phase"], ua, l.get("nodeName")))

    def history(self, name):
        """The status writes of one reservation and the Lease takeovers among them, for failure messages."""
        writes = self.status_writes.get(name, [])
        if not writes:
            return f"{name}: no status write"
        t0 = writes[0][0]
        events = [(ts, f"{phase} node={node} by {ua}") for ts, phase, ua, node in writes]
        events += [(ts, f"Lease taken by {ua}") for ts, ua in self.holders if ts and t0 - 10 <= ts <= writes[-1][0]]
        return f"{name}:\n" + "\n".join(f"    {ts - t0:+7.2f}s {text}" for ts, text in sorted(events))

    def expiry_findings(self, reservations):
        """Checks every expiry against the workload's record of each reservation; returns (findings, lags)."""
        findings, lags = [], []
        for name, info in sorted(reservations.items()):
            writes = self.status_writes.get(name, [])
            phases = [w[1] for w in writes]
            into_failed = [i for i, p in enumerate(phases) if p == "Failed" and (i == 0 or phases[i - 1] != "Failed")]
            if len(into_failed) > 1:
                findings.append(f"{name}: {len(into_failed)} transitions to Failed: {phases}")
            if into_failed and any(p != "Failed" for p in phases[into_failed[0]:]):
                findings.append(f"{name}: a status write left Failed: {phases}")
            if info["ttl_s"] is None:
                if into_failed:
                    findings.append(f"{name}: failed without a short ttl: {writes}")
                continue
            deadline = info["created"] + info["ttl_s"]
            gone = info["deleted"]
            if not into_failed:
                if gone is None or gone > deadline + EXPIRY_BOUND_S:
                    findings.append(f"{name}: not expired by deadline + {EXPIRY_BOUND_S}s (deleted at "
                                    f"{'never' if gone is None else f'{gone - deadline:+.1f}s'})")
                continue
            ts = writes[into_failed[0]][0]
            lags.append(ts - deadline)
            if ts < deadline - EXPIRY_EARLY_SLACK_S:
                findings.append(f"{name}: expired {deadline - ts:.2f}s before its deadline")
            if ts > deadline + EXPIRY_BOUND_S:
                findings.append(f"{name}: expired {ts - deadline:.1f}s after its deadline (bound {EXPIRY_BOUND_S}s)")
        return findings, lags


class SnapshotChecker:
    """Lists reservations, pods and nodes every second and checks the allocation invariants. The lists are separate
    requests, so one snapshot can mix two moments (a reservation placed into capacity a pod freed after the pod list
    was taken): a violation counts only when the next snapshot shows it again."""

    def __init__(self, api):
        self.api = api
        self.snapshots = 0
        self.checks = 0
        self.violations = []
        self._previous = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def run_in_background(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=60)

    def _run(self):
        while not self._stop.wait(1.0):
            try:
                found = self.check_once()
            except AssertionError:  # the API kept failing (40 tries): no snapshot this round
                continue
            for key, text in found.items():
                if key in self._previous and text not in self.violations:
                    self.violations.append(text)
            self._previous = found

    def check_once(self):
        pods = self.api.items("/api/v1/pods")
        reservations = self.api.items(RES_PATH)
        nodes = self.api.items("/api/v1/nodes")
        self.snapshots += 1
        found = {}
        active = {r["metadata"]["uid"]: r for r in reservations
                  if r.get("status", {}).get("phase") in ("Available", "Waiting")}
        by_uid = {r["metadata"]["uid"]: r for r in reservations}
        inside = {}
        for p in pods:
            ann = (p["metadata"].get("annotations") or {}).get(ALLOCATED)
            if ann and p["spec"].get("nodeName") and p.get("status", {}).get("phase") not in ("Succeeded", "Failed"):
                inside.setdefault(json.loads(ann)["uid"], []).append(p)
        for uid, r in by_uid.items():
            st, name = r.get("status", {}), r["metadata"]["name"]
            if not st.get("allocatable"):
                continue
            allocatable = {k: quantity(v) for k, v in st["allocatable"].items()}
            self.checks += 1
            for k, v in (st.get("allocated") or {}).items():
                if quantity(v) > allocatable.get(k, 0.0) + 1e-9:
                    found[f"alloc/{name}/{k}"] = f"{name}: status.allocated {k} {v} > allocatable {st['allocatable']}"
            owners = inside.get(uid, [])
            used = {}
            for p in owners:
                if p["spec"]["nodeName"] != st.get("nodeName"):
                    found[f"node/{p['metadata']['name']}"] = (f"pod {p['metadata']['name']} allocated from {name} on "
                                                              f"{st.get('nodeName')} but bound to {p['spec']['nodeName']}")
                for k, v in pod_requests(p).items():
                    used[k] = used.get(k, 0.0) + v
            for k, v in used.items():
                if v > allocatable.get(k, 0.0) + 1e-9:
                    found[f"owners/{name}/{k}"] = (f"{name}: owner pods {sorted(p['metadata']['name'] for p in owners)}"
                                                   f" request {k} {v:g} > allocatable {allocatable.get(k, 0.0):g}")
            if r["spec"].get("allocateOnce") and len(owners) > 1:
                found[f"once/{name}"] = (f"{name} (allocateOnce) has {len(owners)} owner pods: "
                                         f"{sorted(p['metadata']['name'] for p in owners)}")
        for node in nodes:
            node_name = node["metadata"]["name"]
            total = {}
            for p in pods:
                if p["spec"].get("nodeName") != node_name or p.get("status", {}).get("phase") in ("Succeeded",
                                                                                                   "Failed"):
                    continue
                ann = (p["metadata"].get("annotations") or {}).get(ALLOCATED)
                if ann and json.loads(ann)["uid"] in active:
                    continue  # covered by the reservation's own size
                for k, v in pod_requests(p).items():
                    total[k] = total.get(k, 0.0) + v
            for r in active.values():
                if r["status"].get("nodeName") == node_name:
                    for k, v in (r["status"].get("allocatable") or {}).items():
                        total[k] = total.get(k, 0.0) + quantity(v)
            self.checks += 1
            for k, v in node["status"]["allocatable"].items():
                if k in ("cpu", "memory") and total.get(k, 0.0) > quantity(v) + 1e-9:
                    found[f"overcommit/{node_name}/{k}"] = (f"node {node_name} overcommitted: {k} {total[k]:g} > "
                                                            f"{quantity(v):g}")
        return found


def leads(mgr):
    """Whether this berth-manager reports itself leader (False when it does not answer, e.g. while stopped)."""
    if not mgr.running():
        return False
    try:
        text = mgr.http.get(f"http://127.0.0.1:{mgr.metrics_port}/metrics", timeout=1).text
    except requests.RequestException:
        return False
    return parse_metrics(text).get(("leader_election_master_status", (("name", LEASE_NAME),)), 0.0) == 1.0


class Chaos:
    """Every `period` seconds kills (SIGKILL, then restarts) or pauses (SIGSTOP until the standby leads, then
    SIGCONT: the old leader must exit on its lost Lease, and is restarted) the leader, alternately."""

    def __init__(self, managers, period=30.0):
        self.managers = managers
        self.period = period
        self.events = []       # (kind, seconds until the standby led)
        self.errors = []
        self.lease_losses = 0  # managers that exited on their own lost Lease (renewal failed under faults)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def run_in_background(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=120)

    def leader(self, timeout=60):
        return wait_until(lambda: next((m for m in self.managers if leads(m)), None), timeout=timeout, interval=0.2,
                          message="a leader")

    def _restart_exited(self):
        # A leader whose renewals fail under faults past its renew deadline exits (code 1) by design; a
        # Deployment would restart it, so the soak does too (otherwise the next takeover has no standby).
        for m in self.managers:
            if m.running():
                continue
            code = m.proc.poll() if m.proc else None
            if code != 1:
                self.errors.append(f"manager (log {m.log_path}) exited {code}, not 1 (leader election lost)")
            self.lease_losses += 1
            m.stop()
            m.start(wait_ready=False)

    def _run(self):
        n = 0
        try:
            while not self._stop.wait(self.period):
                self._restart_exited()
                old = self.leader()
                self._restart_exited()  # the old leader may have lost its Lease while we looked for the new one
                other = next(m for m in self.managers if m is not old)
                kind = "kill" if n % 2 == 0 else "pause"
                n += 1
                started = time.monotonic()
                if kind == "kill":
                    old.kill()
                    wait_until(lambda: leads(other), timeout=60, interval=0.2, message="the standby to lead")
                    self.events.append((kind, time.monotonic() - started))
                    old.start(wait_ready=False)
                    continue
                old.proc.send_signal(signal.SIGSTOP)
                try:
                    wait_until(lambda: leads(other), timeout=60, interval=0.2, message="the standby to lead")
                    self.events.append((kind, time.monotonic() - started))
                    self._stop.wait(2.0)  # the new leader changes the cluster the paused one last saw
                finally:
                    old.proc.send_signal(signal.SIGCONT)
                try:
                    code = old.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    self.errors.append(f"the resumed old leader (log {old.log_path}) did not exit within 30 s")
                    old.kill()
                    code = None
                if code is not None and code != 1:
                    self.errors.append(f"the resumed old leader exited {code}, not 1 (leader election lost)")
                old.stop()
                old.start(wait_ready=False)
        except Exception as e:
            self.errors.append(f"chaos: {e!r}")
