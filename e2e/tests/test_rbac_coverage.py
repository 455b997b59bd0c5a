"""The Helm chart's RBAC grants every API request berth-manager makes.

kubesim stores RBAC objects but does not enforce them, so a verb missing from charts/berth/templates/rbac.yaml
would pass every other e2e suite and fail only in a real cluster. Here kubesim writes an audit log (--audit-log:
one JSON line per request with the verb, apiGroup, resource, subresource, namespace and name as kube-apiserver's
RequestInfo derives them), berth-manager runs with leader election through the flows that make it call the API
(placement, owner binding, PodScheduled condition, expiry, garbage collection, owner-annotation cleanup,
preAllocation, PodMigrationJobs: a reservation-first migration under a PDB, a ttl abort, a plain delete under the
Delete policy, a drain by label), and every request from berth-manager's user agent must be allowed by a rule of the rendered
ClusterRole, or of the leader-election Role in that Role's namespace.

The other way round, least privilege: every (apiGroup, resource, verb) the chart grants must be used by some request in
that log, or be listed in NEEDED_BUT_NOT_EXERCISED with the code path that needs it. A grant nothing uses fails the test.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import yaml

from kubesim_fixture import HELM, ROOT, BerthManager, Kubesim

CHART = os.path.join(ROOT, "charts", "berth")
TESTDATA = os.path.join(ROOT, "e2e", "testdata")
RES_PATH = "/apis/scheduling.koordinator.sh/v1alpha1/reservations"
ANNOTATION = "scheduling.koordinator.sh/reservation-allocated"
RELEASE_NAMESPACE = "berth-system"
MANAGER_AGENT_PREFIX = "berth/"  # clientgo-shim's RestConfig default user agent, "berth/0.1"
# Non-resource URLs every authenticated user may GET (the system:discovery and system:public-info-viewer roles).
DISCOVERY_URLS = ("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/readyz", "/version", "/version/",
                  "/openapi", "/openapi/*")
# Grants the scenario below may not exercise, each with the code path that sends the request. Keep this list short:
# an entry whose code path is gone must go, and so must its grant in charts/berth/templates/rbac.yaml.
NEEDED_BUT_NOT_EXERCISED = {
    ("", "events", "patch"):
        "clientgo-shim/events/event_recorder.cc EventRecorder::Send: a repeated Event is aggregated by a merge patch "
        "of its count (client-go's EventCorrelator); the scenario's events may all be distinct",
    ("autoscaling.x-k8s.io", "provisioningrequests", "patch"):
        "controllers/provisioning/provisioning_controller.cc: the booking finalizer is added and removed by a merge "
        "patch (FinalizerPatch); this scenario runs no ProvisioningRequest (test_provisioning_request does)",
    ("autoscaling.x-k8s.io", "provisioningrequests", "delete"):
        "controllers/provisioning/provisioning_controller.cc: a request is deleted 7 days after a terminal state",
    ("autoscaling.x-k8s.io", "provisioningrequests/status", "update"):
        "controllers/provisioning/provisioning_controller.cc: conditions are written by UpdateStatus",
    ("scheduling.koordinator.sh", "reservations", "get"):
        "controllers/migration/migration_controller.cc: a job's reservation the cache does not have yet is read "
        "from the API server (only its 404 says it is missing); whether the scenario hits that depends on timing",
    ("", "nodes", "get"):
        "controllers/migration/prefer_avoid_hook.cc: the PreferAvoidPods patch is conditional on the node's version "
        "read from the cache; after a 409, or for a node the cache lacks, the node is read from the API server",
    ("scheduling.koordinator.sh", "podmigrationjobs", "create"):
        "controllers/rescheduler/rescheduler_controller.cc: a job per move; the scenario's rescheduler has no "
        "ConfigMap, so every strategy is off (test_rescheduler drives it)",
    ("scheduling.koordinator.sh", "podmigrationjobs", "delete"):
        "controllers/migration/migration_controller.cc: a job is garbage-collected at creation + ttl + 5m",
}


def render_rbac():
    """Returns (cluster_rules, [(namespace, rules)]) from the chart rendered with its defaults."""
    out = subprocess.run([HELM, "template", "r1", CHART, "--namespace", RELEASE_NAMESPACE],
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise AssertionError(f"helm template failed:\n{out.stderr}")
    docs = [d for d in yaml.safe_load_all(out.stdout) if d]
    cluster_rules = [r for d in docs if d["kind"] == "ClusterRole" for r in d["rules"]]
    roles = [(d["metadata"]["namespace"], d["rules"]) for d in docs if d["kind"] == "Role"]
    return cluster_rules, roles


def rule_allows(rule, line):
    """RBAC's RuleAllows for a resource request: apiGroups, resources ("res/sub", "*", "*/sub", "res/*"),
    verbs and resourceNames, with "*" wildcards."""
    groups, verbs = rule.get("apiGroups", []), rule.get("verbs", [])
    if "*" not in groups and line["apiGroup"] not in groups:
        return False
    if "*" not in verbs and line["verb"] not in verbs:
        return False
    resource, sub = line["resource"], line["subresource"]
    combined = f"{resource}/{sub}" if sub else resource
    ok = False
    for r in rule.get("resources", []):
        if r == "*" or r == combined or (sub and (r == f"*/{sub}" or r == f"{resource}/*")):
            ok = True
    if not ok:
        return False
    names = rule.get("resourceNames") or []
    return not names or line["name"] in names


def grants(rules):
    """The (apiGroup, resource, verb) triples a list of rules grants. Wildcards are refused: a chart that grants "*"
    cannot be least privilege, and the unused-grant check below could not enumerate it."""
    out = set()
    for rule in rules:
        for field in ("apiGroups", "resources", "verbs"):
            if "*" in rule.get(field, []) or any(r.endswith("/*") or r.startswith("*/") for r in rule.get(field, [])):
                raise AssertionError(f"wildcard in {field} of rule {rule}")
        for g in rule["apiGroups"]:
            for r in rule["resources"]:
                for v in rule["verbs"]:
                    out.add((g, r, v))
    return out


def used_triple(line):
    resource = f"{line['resource']}/{line['subresource']}" if line["subresource"] else line["resource"]
    return (line["apiGroup"], resource, line["verb"])


def unused_grants(cluster_rules, roles, lines):
    """Granted triples no audit line used and NEEDED_BUT_NOT_EXERCISED does not explain."""
    granted = grants(cluster_rules) | {t for _, rules in roles for t in grants(rules)}
    used = {used_triple(l) for l in lines if "nonResourceURL" not in l}
    return sorted(granted - used - set(NEEDED_BUT_NOT_EXERCISED))


def nonresource_allowed(path):
    return any(path == u or (u.endswith("*") and path.startswith(u[:-1])) for u in DISCOVERY_URLS)


def allowed(line, cluster_rules, roles):
    if "nonResourceURL" in line:
        return line["verb"] == "get" and nonresource_allowed(line["nonResourceURL"])
    if any(rule_allows(r, line) for r in cluster_rules):
        return True
    return any(ns == line["namespace"] and any(rule_allows(r, line) for r in rules) for ns, rules in roles)


class RuleMatcherTest(unittest.TestCase):
    """The matcher itself, so a pass below means what it says."""

    def line(self, verb, group, resource, sub="", ns="", name=""):
        return {"verb": verb, "apiGroup": group, "resource": resource, "subresource": sub, "namespace": ns,
                "name": name}

    def test_a_subresource_needs_its_own_resource_entry(self):
        rule = {"apiGroups": [""], "resources": ["pods"], "verbs": ["create", "patch"]}
        self.assertTrue(rule_allows(rule, self.line("patch", "", "pods")))
        self.assertFalse(rule_allows(rule, self.line("create", "", "pods", "binding")))
        self.assertTrue(rule_allows({"apiGroups": [""], "resources": ["pods/*"], "verbs": ["create"]},
                                    self.line("create", "", "pods", "binding")))

    def test_group_verb_and_resource_names_must_all_match(self):
        rule = {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get"],
                "resourceNames": ["a"]}
        self.assertTrue(rule_allows(rule, self.line("get", "coordination.k8s.io", "leases", name="a")))
        self.assertFalse(rule_allows(rule, self.line("get", "coordination.k8s.io", "leases", name="b")))
        self.assertFalse(rule_allows(rule, self.line("get", "", "leases", name="a")))
        self.assertFalse(rule_allows(rule, self.line("update", "coordination.k8s.io", "leases", name="a")))
        self.assertTrue(rule_allows({"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                                    self.line("deletecollection", "x", "y", "z")))

    def test_a_role_grants_only_in_its_namespace(self):
        roles = [("berth-system", [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}])]
        self.assertTrue(allowed(self.line("get", "", "configmaps", ns="berth-system"), [], roles))
        self.assertFalse(allowed(self.line("get", "", "configmaps", ns="default"), [], roles))

    def test_a_granted_verb_no_request_used_is_reported(self):
        rules = [{"apiGroups": [""], "resources": ["pods", "pods/status"], "verbs": ["get", "patch"]}]
        lines = [self.line("patch", "", "pods", ns="default", name="p"),
                 self.line("patch", "", "pods", "status", ns="default", name="p")]
        self.assertEqual(unused_grants(rules, [], lines), [("", "pods", "get"), ("", "pods/status", "get")])
        lines.append(self.line("get", "", "pods", ns="default", name="p"))
        self.assertEqual(unused_grants(rules, [], lines), [("", "pods/status", "get")])
        roles = [("ns", [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["delete"]}])]
        self.assertEqual(unused_grants([], roles, []), [("coordination.k8s.io", "leases", "delete")])
        with self.assertRaises(AssertionError):
            grants([{"apiGroups": [""], "resources": ["pods"], "verbs": ["*"]}])
        with self.assertRaises(AssertionError):
            grants([{"apiGroups": [""], "resources": ["pods/*"], "verbs": ["get"]}])

    def test_every_exception_names_a_grant_of_the_chart(self):
        cluster_rules, roles = render_rbac()
        granted = grants(cluster_rules) | {t for _, rules in roles for t in grants(rules)}
        for triple, reason in NEEDED_BUT_NOT_EXERCISED.items():
            self.assertIn(triple, granted, f"stale NEEDED_BUT_NOT_EXERCISED entry ({reason})")


class RbacCoverageTest(unittest.TestCase):
    def test_every_berth_manager_request_is_granted_by_the_chart_rbac(self):
        cluster_rules, roles = render_rbac()
        self.assertTrue(cluster_rules)
        self.assertEqual({ns for ns, _ in roles}, {RELEASE_NAMESPACE})
        audit_dir = tempfile.mkdtemp(prefix="berth-audit-")
        self.addCleanup(shutil.rmtree, audit_dir, True)
        audit_path = os.path.join(audit_dir, "audit.log")
        sim = Kubesim(nodes=3, audit_log=audit_path)
        mgr = None
        try:
            sim.install_crds()
            sim.kubectl("create", "namespace", RELEASE_NAMESPACE)
            mgr = BerthManager(sim, gc_duration="1s",
                               extra_args=["--leader-elect", "--leader-election-namespace", RELEASE_NAMESPACE,
                                           # as the chart passes it: the ConfigMap Role is in this namespace
                                           "--rescheduler-config-namespace", RELEASE_NAMESPACE])
            self.drive_flows(sim, mgr)
            mgr.stop()
            mgr = None
            with open(audit_path) as f:
                lines = [json.loads(l) for l in f if l.strip()]
        finally:
            if mgr:
                mgr.stop()
            sim.stop()
        ours = [l for l in lines if l["userAgent"].startswith(MANAGER_AGENT_PREFIX)]
        # The flows really reached the API: otherwise an empty log would pass.
        # Non-resource requests (the scheduler's discovery GET of the ResourcePolicy group) have no resource.
        seen = {(l["verb"], l.get("resource", ""), l.get("subresource", "")) for l in ours}
        for need in [("watch", "reservations", ""), ("create", "pods", "binding"), ("create", "leases", ""),
                     ("update", "leases", ""), ("delete", "reservations", ""), ("watch", "resourcepolicies", ""),
                     ("update", "resourcepolicies", "status"), ("create", "reservations", ""),
                     ("create", "pods", "eviction"), ("delete", "pods", ""), ("patch", "podmigrationjobs", ""),
                     ("patch", "podmigrationjobs", "status"), ("watch", "poddisruptionbudgets", ""),
                     ("create", "podmigrationjobs", ""), ("patch", "nodes", ""), ("watch", "replicasets", "")]:
            self.assertIn(need, seen, f"berth-manager made no {need} request; seen: {sorted(seen)}")
        self.assertTrue(any(l.get("resource") == "reservations" and l.get("subresource") == "status" for l in ours))
        self.assertTrue(any(l.get("resource") == "pods" and l.get("subresource") == "status" for l in ours))
        self.assertTrue(any(l.get("resource") == "pods" and not l.get("subresource") and l["verb"] in ("patch", "update")
                            for l in ours))
        self.assertTrue(any(l.get("nonResourceURL") == "/apis/scheduling.sigs.x-k8s.io/v1alpha1" for l in ours))
        unmatched = {}
        for l in ours:
            if not allowed(l, cluster_rules, roles):
                key = json.dumps({k: l.get(k, "") for k in ("verb", "apiGroup", "resource", "subresource",
                                                           "namespace", "nonResourceURL")}, sort_keys=True)
                unmatched[key] = unmatched.get(key, 0) + 1
        self.assertEqual(unmatched, {}, "requests berth-manager made that the chart's RBAC does not grant "
                         "(request: count):\n" + "\n".join(f"{k}: {n}" for k, n in sorted(unmatched.items())))
        used = sorted({used_triple(l) for l in ours if "nonResourceURL" not in l})
        self.maxDiff = None
        self.assertEqual(unused_grants(cluster_rules, roles, ours), [],
                         "the chart grants (apiGroup, resource, verb) that no berth-manager request used and "
                         f"NEEDED_BUT_NOT_EXERCISED does not explain; used: {used}")

    def drive_flows(self, sim, mgr):
        def get(path):
            r = sim.http("GET", path)
            return r.json() if r.status_code == 200 else None

        def wait(predicate, message, timeout=20):
            return mgr.wait(predicate, message, timeout, log_tail=3000)

        def phase(name):
            r = get(f"{RES_PATH}/{name}")
            return r and r.get("status", {}).get("phase")

        def pod(name):
            return get(f"/api/v1/namespaces/default/pods/{name}")

        def create(obj):
            sim.apply_text(json.dumps(obj))

        # Placement, then an owner pod bound through it (pods/binding, owner annotation, reservation status).
        # allocateOnce: false keeps it Available with its owner (allocate-once would make it Succeeded, and
        # --reservation-gc-duration 1s would delete it before the test deletes it below).
        with open(os.path.join(TESTDATA, "reservation-demo.yaml")) as f:
            demo = yaml.safe_load(f)
        demo["spec"]["allocateOnce"] = False
        create(demo)
        wait(lambda: phase("reservation-demo") == "Available", "reservation-demo Available")
        sim.kubectl("create", "-f", os.path.join(TESTDATA, "pod-demo-0.yaml"))
        wait(lambda: (pod("pod-demo-0") or {}).get("metadata", {}).get("annotations", {}).get(ANNOTATION),
             "pod-demo-0 bound through reservation-demo")
        # An unschedulable pod: the PodScheduled=False condition and a FailedScheduling event.
        create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "too-big", "namespace": "default"},
                "spec": {"schedulerName": "koord-scheduler", "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100"}}}]}})
        wait(lambda: any(c.get("type") == "PodScheduled" and c.get("status") == "False"
                         for c in ((pod("too-big") or {}).get("status", {}).get("conditions") or [])),
             "too-big PodScheduled=False")
        # Expiry after 2s, then garbage collection after --reservation-gc-duration 1s.
        start_rv = sim.resource_version(RES_PATH)
        create({"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                "metadata": {"name": "short-lived"},
                "spec": {"ttl": "2s", "owners": [{"object": {"name": "nobody", "namespace": "default"}}],
                         "template": {"metadata": {"namespace": "default"}, "spec": {
                             "schedulerName": "koord-scheduler",
                             "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}}})
        # Read from kubesim's watch history, not polled: the reservation lives 2-3 s (its ttl counts from a
        # whole-second creationTimestamp), which a loaded machine can spend between kubectl's create and a first poll.
        def short_lived_history():
            return [(t, (o.get("status") or {}).get("phase")) for _, t, o in sim.events_since(RES_PATH, start_rv)
                    if o["metadata"]["name"] == "short-lived"]
        history = wait(lambda: (h := short_lived_history()) and h[-1][0] == "DELETED" and h,
                       "short-lived expired and garbage-collected", 30)
        self.assertEqual(history[0][0], "ADDED", history)
        self.assertIn(("MODIFIED", "Failed"), history, "short-lived expired before it was collected")
        # Deleting a reservation with an owner: berth-manager removes the owner's annotation.
        sim.kubectl("delete", "reservation", "reservation-demo")
        wait(lambda: ANNOTATION not in ((pod("pod-demo-0") or {}).get("metadata", {}).get("annotations") or {}),
             "pod-demo-0's reservation annotation removed")
        # preAllocation: a running app: my-app pod (bound by the test, as kube-scheduler would).
        create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "my-app-0", "namespace": "default",
                                                                "labels": {"app": "my-app"}},
                "spec": {"schedulerName": "default-scheduler", "containers": [
                    {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}})
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "my-app-0", "namespace": "default"},
                "target": {"apiVersion": "v1", "kind": "Node", "name": "node-2"}}
        r = sim.http("POST", "/api/v1/namespaces/default/pods/my-app-0/binding", json=body)
        self.assertEqual(r.status_code, 201, r.text)
        wait(lambda: (pod("my-app-0") or {}).get("status", {}).get("phase") == "Running", "my-app-0 Running")
        sim.kubectl("create", "-f", os.path.join(TESTDATA, "reservation-prealloc.yaml"))
        wait(lambda: phase("reservation-prealloc") == "Waiting", "reservation-prealloc Waiting")
        sim.kubectl("delete", "pod", "my-app-0")
        wait(lambda: phase("reservation-prealloc") == "Available", "reservation-prealloc Available")
        # A ResourcePolicy: watched by the scheduler, its status written by resourcepolicy-status.
        create({"apiVersion": "scheduling.sigs.x-k8s.io/v1alpha1", "kind": "ResourcePolicy",
                "metadata": {"name": "rp", "namespace": "default"},
                "spec": {"podSelector": {"matchLabels": {"app": "rp"}},
                         "units": [{"name": "all", "nodeSelector": {}}]}})
        wait(lambda: (get("/apis/scheduling.sigs.x-k8s.io/v1alpha1/namespaces/default/resourcepolicies/rp") or {})
             .get("status", {}).get("unitSummary") == "all 0", "ResourcePolicy rp status written")

        # PodMigrationJobs: reservation-first under a PDB (spec and status patches, reservation create, eviction),
        # a ttl abort (reservation delete), and EvictDirectly under the Delete policy (a plain pod delete).
        pmj_path = "/apis/scheduling.koordinator.sh/v1alpha1/podmigrationjobs"

        def job_phase(name):
            return ((get(f"{pmj_path}/{name}") or {}).get("status") or {}).get("phase")

        def app(name, replicas, cpu):
            create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
                    "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                             "template": {"metadata": {"labels": {"app": name}}, "spec": {
                                 "schedulerName": "koord-scheduler",
                                 "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}}})
            def running():
                return sorted(p["metadata"]["name"] for p in
                              get(f"/api/v1/namespaces/default/pods?labelSelector=app%3D{name}")["items"]
                              if p.get("status", {}).get("phase") == "Running"
                              and not p["metadata"].get("deletionTimestamp"))
            return wait(lambda: len(running()) == replicas and running(), f"{name} running")

        def job(name, pod, labels=None, **spec):
            create({"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "PodMigrationJob",
                    "metadata": {"name": name, "labels": labels or {}},
                    "spec": {"podRef": {"namespace": "default", "name": pod}, **spec}})

        web = app("web", 2, "100m")
        create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
                "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}})
        job("move-web", web[0])
        wait(lambda: job_phase("move-web") == "Succeeded", "move-web Succeeded", 40)
        wide = app("wide", 3, "5")  # one per node (8 cpus): no room anywhere for a reservation of 5 more
        job("stuck", wide[0], ttl="2s")
        wait(lambda: job_phase("stuck") == "Failed", "stuck timed out")
        job("drop", wide[1], labels={"koordinator.sh/evict-policy": "Delete"}, mode="EvictDirectly")
        wait(lambda: job_phase("drop") == "Succeeded", "drop Succeeded")

        # Drain by label: cordon and status annotation (node patch), a job per pod (podmigrationjobs create),
        # uncordon when the label goes.
        drained = get(f"/api/v1/namespaces/default/pods/{web[1]}")["spec"]["nodeName"]
        sim.kubectl("label", "node", drained, "berth.dev/drain=true")
        wait(lambda: get(f"/api/v1/nodes/{drained}")["spec"].get("unschedulable") is True, f"{drained} cordoned")
        wait(lambda: any(j["metadata"].get("annotations", {}).get("berth.dev/drain-node") == drained
                         for j in get(pmj_path)["items"]), f"a drain job for {drained}")
        sim.kubectl("label", "node", drained, "berth.dev/drain-")
        wait(lambda: not get(f"/api/v1/nodes/{drained}")["spec"].get("unschedulable"), f"{drained} uncordoned")


if __name__ == "__main__":
    unittest.main()
