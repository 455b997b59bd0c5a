"""Regression tests for issue 13's Reservation defects, with real kubectl on kubesim.

InvalidSpec reservations (containers "oops", ttl 1d) are never placed; a reservation-affinity toleration of
node.kubernetes.io/unschedulable opens a paused reservation; exact-match-reservation and
reservation-resize-allocatable are honoured; the lifecycle controller leaves another scheduler's reservations
alone; a reservation pinned by template nodeName gets koordinator's wording; Events come from the profile's
scheduler name.
"""
import json
import unittest

from kubesim_fixture import wait_until
from test_reservation_scheduling import ANNOTATION, RES_PATH, SchedulingSuite

AFFINITY = "scheduling.koordinator.sh/reservation-affinity"
EXACT = "scheduling.koordinator.sh/exact-match-reservation"
RESIZE = "scheduling.koordinator.sh/reservation-resize-allocatable"


def condition(obj, kind):
    return next((c for c in obj.get("status", {}).get("conditions", []) if c["type"] == kind), None)


class ReservationDefectsTest(SchedulingSuite):
    nodes = 2
    sim_flags = {"node_cpu": "8", "node_memory": "16Gi"}

    def tearDown(self):
        self.sim.kubectl("delete", "pods", "--all", "--wait=false")
        self.sim.kubectl("delete", "reservations", "--all", "--wait=false")
        wait_until(lambda: not self.pods() and not self.sim.get_json(RES_PATH)["items"], message="cleanup")

    def kubectl_create(self, obj):
        out = self.sim.kubectl("create", "-f", "-", input=json.dumps(obj))
        self.assertIn("created", out)

    def reservation_obj(self, name, template_spec, owners=None, annotations=None, **spec):
        template_spec.setdefault("schedulerName", "koord-scheduler")
        body = {"template": {"metadata": {"namespace": "default"}, "spec": template_spec},
                "owners": owners or [{"labelSelector": {"matchLabels": {"app": name}}}], "ttl": "1h"}
        body.update(spec)
        return {"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation",
                "metadata": {"name": name, "annotations": annotations or {}}, "spec": body}

    def containers(self, cpu):
        return [{"name": "main", "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]

    def pod_obj(self, name, app, cpu, annotations=None):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "default", "labels": {"app": app},
                             "annotations": annotations or {}},
                "spec": {"schedulerName": "koord-scheduler",
                         "containers": [{"name": "main", "image": "busybox",
                                         "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}]}}

    def allocated(self, pod):
        value = pod["metadata"].get("annotations", {}).get(ANNOTATION)
        return json.loads(value)["name"] if value else None

    def wait_invalid(self, name):
        return self.wait_reservation(name, lambda r: (condition(r, "Ready") or {}).get("reason") == "InvalidSpec",
                                     message=f"{name} Ready=False/InvalidSpec")

    def test_malformed_containers_and_ttl_are_invalid_specs_never_placed(self):
        self.kubectl_create(self.reservation_obj("oops", {"containers": "oops"}))
        bad_ttl = self.reservation_obj("one-day", {"containers": self.containers("100m")})
        bad_ttl["spec"]["ttl"] = "1d"
        self.kubectl_create(bad_ttl)
        oops = self.wait_invalid("oops")
        self.assertIn('spec.template.spec.containers: must be a list of containers, got "oops"',
                      condition(oops, "Ready")["message"])
        day = self.wait_invalid("one-day")
        self.assertIn('spec.ttl: time: unknown unit "d" in duration "1d"', condition(day, "Ready")["message"])
        # An owner pod runs on free capacity, never through them; they have no node.
        self.kubectl_create(self.pod_obj("owner", "oops", "100m"))
        pod = self.wait_running("owner")
        self.assertIsNone(self.allocated(pod))
        for name in ("oops", "one-day"):
            self.assertFalse(self.reservation(name).get("status", {}).get("nodeName"))

    def test_an_affinity_toleration_of_unschedulable_opens_a_paused_reservation(self):
        self.kubectl_create(self.reservation_obj("paused", {"containers": self.containers("1")}, allocateOnce=False))
        self.wait_phase("paused", "Available")
        self.sim.kubectl("patch", "reservation", "paused", "--type=merge", "-p", '{"spec":{"unschedulable":true}}')
        self.wait_reservation("paused", lambda r: r["spec"].get("unschedulable") is True)
        self.kubectl_create(self.pod_obj("plain", "paused", "200m", {AFFINITY: "{}"}))
        pod = self.wait_unschedulable("plain")
        self.assertIn("1 Reservation(s) is unschedulable", condition(pod, "PodScheduled")["message"])
        tolerant = json.dumps({"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                                "effect": "NoSchedule"}]})
        self.kubectl_create(self.pod_obj("tolerant", "paused", "200m", {AFFINITY: tolerant}))
        self.assertEqual(self.allocated(self.wait_running("tolerant")), "paused")

    def test_exact_match_reservation_and_resize_allocatable(self):
        resize = json.dumps({"resources": {"cpu": "300m", "memory": "64Mi"}})
        self.kubectl_create(self.reservation_obj("resized", {"containers": self.containers("100m")},
                                                 annotations={RESIZE: resize}, allocateOnce=False))
        r = self.wait_phase("resized", "Available")
        self.assertEqual(r["status"]["allocatable"]["cpu"], "300m")
        exact = json.dumps({"resourceNames": ["cpu"]})
        self.kubectl_create(self.pod_obj("smaller", "resized", "100m", {EXACT: exact}))
        self.assertIsNone(self.allocated(self.wait_running("smaller")), "100m is not exactly 300m")
        self.kubectl_create(self.pod_obj("equal", "resized", "300m", {EXACT: exact}))
        self.assertEqual(self.allocated(self.wait_running("equal")), "resized")
        self.kubectl_create(self.pod_obj("garbled", "resized", "300m", {EXACT: "[1]"}))
        pod = self.wait_unschedulable("garbled")
        self.assertIn("invalid annotation " + EXACT, condition(pod, "PodScheduled")["message"])
        self.kubectl_create(self.reservation_obj("bad-resize", {"containers": self.containers("100m")},
                                                 annotations={RESIZE: '{"resources":{"cpu":"lots"}}'}))
        bad = self.wait_invalid("bad-resize")
        self.assertIn(RESIZE, condition(bad, "Ready")["message"])

    def test_pinned_reservation_wording_and_event_source(self):
        self.kubectl_create(self.reservation_obj("pinned", {"containers": self.containers("100"),
                                                            "nodeName": "node-0"}))
        r = self.wait_reservation("pinned", lambda r: (condition(r, "Scheduled") or {}).get("status") == "False")
        self.assertEqual(condition(r, "Scheduled")["message"],
                         "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match the nodeName "
                         "specified by reservation.")
        self.kubectl_create(self.pod_obj("sourced", "nobody", "100m"))
        self.wait_running("sourced")
        events = wait_until(lambda: self.events_for("sourced", "Scheduled"), message="Scheduled event")
        self.assertEqual(events[0]["source"]["component"], "koord-scheduler")
        failed = wait_until(lambda: self.events_for("pinned", "FailedScheduling"), message="FailedScheduling event")
        self.assertEqual(failed[0]["source"]["component"], "koord-scheduler")

    def test_the_lifecycle_controller_leaves_another_schedulers_reservations_alone(self):
        foreign = self.reservation_obj("foreign", {"containers": self.containers("100m"),
                                                   "schedulerName": "other-scheduler"})
        foreign["spec"]["ttl"] = "1s"
        self.kubectl_create(foreign)
        ours = self.reservation_obj("ours", {"containers": self.containers("100m")})
        ours["spec"]["ttl"] = "1s"
        self.kubectl_create(ours)
        self.wait_phase("ours", "Failed")
        # The lifecycle controller saw both before expiring "ours" 1 s after creation; it wrote nothing on the other.
        self.assertNotIn("status", self.reservation("foreign"))

    def test_host_ports_conflict_and_a_reservation_holds_its_template_port(self):
        def with_port(obj, port, ip=None):
            entry = {"containerPort": port, "hostPort": port}
            if ip:
                entry["hostIP"] = ip
            obj["spec"]["containers"][0]["ports"] = [entry]
            return obj
        self.kubectl_create(with_port(self.pod_obj("web-1", "web", "100m"), 8080))
        self.kubectl_create(with_port(self.pod_obj("web-2", "web", "100m"), 8080))
        nodes = {self.wait_running(n)["spec"]["nodeName"] for n in ("web-1", "web-2")}
        self.assertEqual(len(nodes), 2, "two pods with the same hostPort never share a node")
        self.kubectl_create(with_port(self.pod_obj("web-3", "web", "100m"), 8080, "10.1.2.3"))
        pod = self.wait_unschedulable("web-3")
        self.assertEqual(condition(pod, "PodScheduled")["message"],
                         "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. "
                         "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")
        tmpl = {"containers": [{"name": "main", "ports": [{"containerPort": 9443, "hostPort": 9443}],
                                "resources": {"requests": {"cpu": "100m"}}}], "nodeName": "node-0"}
        self.kubectl_create(self.reservation_obj("port-holder", tmpl, allocateOnce=False))
        self.wait_phase("port-holder", "Available")
        stranger = with_port(self.pod_obj("stranger", "nobody", "100m"), 9443)
        stranger["spec"]["nodeName"] = None
        stranger["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-0"]}]}]}}}
        del stranger["spec"]["nodeName"]
        self.kubectl_create(stranger)
        pod = self.wait_unschedulable("stranger")
        self.assertIn("node(s) didn't have free ports for the requested pod ports",
                      condition(pod, "PodScheduled")["message"])
        self.kubectl_create(with_port(self.pod_obj("holder-owner", "port-holder", "100m"), 9443))
        owner = self.wait_running("holder-owner")
        self.assertEqual(owner["spec"]["nodeName"], "node-0")
        self.assertEqual(self.allocated(owner), "port-holder")


if __name__ == "__main__":
    unittest.main()
