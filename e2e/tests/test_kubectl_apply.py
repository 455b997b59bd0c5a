"""Real kubectl apply against kubesim: client-side apply twice (create, then the 3-way strategic merge patch that
also removes what was dropped from the file) on a Deployment and a Pod, merge-patch apply on a custom resource,
and server-side apply of a ConfigMap."""
import json
import os
import unittest

import yaml

from kubesim_fixture import KUBECTL, KUBECTL134, ROOT, Kubesim

KUBECTLS = (("v1.32", KUBECTL), ("v1.34", KUBECTL134))
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def deployment(name, replicas, image, env, labels):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": labels},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "main", "image": image,
                                                           "env": [{"name": k, "value": v} for k, v in env]}]}}}}


class KubectlApply(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # No Deployment/ReplicaSet controllers: their status writes move a Deployment's resourceVersion at any
        # moment, and these tests check that a no-op apply leaves it alone (pods stay unscheduled, so a rollout
        # never settles into a state to wait for).
        cls.sim = Kubesim(nodes=2, no_workload_controllers=True)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def get(self, *args):
        return json.loads(self.sim.kubectl("get", *args, "-o", "json"))

    def apply(self, kubectl, doc, *extra):
        return self.sim.run(kubectl, "apply", *extra, "-f", "-", input=yaml.safe_dump(doc)).stdout.strip()

    def test_apply_twice_on_a_deployment_creates_then_three_way_patches(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                name = f"web-{version.replace('.', '-')}"
                first = deployment(name, 2, "nginx:1", [("A", "a"), ("B", "b")], {"team": "x", "tier": "web"})
                self.assertEqual(self.apply(kubectl, first), f"deployment.apps/{name} created")
                obj = self.get("deployment", name)
                self.assertEqual(json.loads(obj["metadata"]["annotations"][LAST_APPLIED])["spec"]["replicas"], 2)
                gen1 = obj["metadata"]["generation"]
                # Someone else adds a label and an env var; apply must keep what it does not own.
                self.sim.kubectl("label", "deployment", name, "extra=kept")
                self.sim.kubectl("patch", "deployment", name, "-p", json.dumps(
                    {"spec": {"template": {"spec": {"containers": [
                        {"name": "main", "env": [{"name": "OTHER", "value": "o"}]}]}}}}))
                second = deployment(name, 3, "nginx:2", [("A", "a2")], {"team": "x"})
                self.assertEqual(self.apply(kubectl, second), f"deployment.apps/{name} configured")
                obj = self.get("deployment", name)
                self.assertEqual(obj["spec"]["replicas"], 3)
                container = obj["spec"]["template"]["spec"]["containers"][0]
                self.assertEqual(container["image"], "nginx:2")
                env = {e["name"]: e["value"] for e in container["env"]}
                # B was in the last applied file and is gone now: removed. OTHER was never applied: kept.
                self.assertEqual(env, {"A": "a2", "OTHER": "o"})
                self.assertEqual(obj["metadata"]["labels"], {"team": "x", "extra": "kept"})
                self.assertGreater(obj["metadata"]["generation"], gen1)
                self.assertEqual(json.loads(obj["metadata"]["annotations"][LAST_APPLIED])["spec"]["replicas"], 3)
                # A third identical apply changes nothing. kubectl still sends a patch (and prints "configured"),
                # because the live env list also holds OTHER, so its 3-way diff adds `$setElementOrder/env`; the
                # server's result is identical, so the object is not written: no new resourceVersion.
                rv = obj["metadata"]["resourceVersion"]
                self.assertEqual(self.apply(kubectl, second), f"deployment.apps/{name} configured")
                self.assertEqual(self.get("deployment", name)["metadata"]["resourceVersion"], rv)
                # Without foreign additions, re-applying the file sends `{}`: "unchanged".
                own = deployment(name + "-own", 1, "nginx:2", [("A", "a")], {"team": "x"})
                self.assertEqual(self.apply(kubectl, own), f"deployment.apps/{name}-own created")
                rv = self.get("deployment", name + "-own")["metadata"]["resourceVersion"]
                self.assertEqual(self.apply(kubectl, own), f"deployment.apps/{name}-own unchanged")
                self.assertEqual(self.get("deployment", name + "-own")["metadata"]["resourceVersion"], rv)

    def test_apply_twice_on_a_pod_updates_mutable_fields(self):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "applied-pod", "labels": {"a": "1", "b": "2"}},
               "spec": {"containers": [{"name": "main", "image": "busybox:1"}]}}
        self.assertEqual(self.apply(KUBECTL, pod), "pod/applied-pod created")
        pod["metadata"]["labels"] = {"a": "1", "c": "3"}
        pod["spec"]["containers"][0]["image"] = "busybox:2"   # container image is mutable on a pod
        self.assertEqual(self.apply(KUBECTL134, pod), "pod/applied-pod configured")
        obj = self.get("pod", "applied-pod")
        self.assertEqual(obj["metadata"]["labels"], {"a": "1", "c": "3"})
        self.assertEqual(obj["spec"]["containers"][0]["image"], "busybox:2")

    def test_apply_of_an_immutable_pod_field_is_refused(self):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "immutable-pod"},
               "spec": {"containers": [{"name": "main", "image": "busybox"}]}}
        self.apply(KUBECTL, pod)
        pod["spec"]["containers"][0]["command"] = ["sleep", "1"]
        r = self.sim.run(KUBECTL, "apply", "-f", "-", input=yaml.safe_dump(pod), check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('The Pod "immutable-pod" is invalid: spec: Forbidden: pod updates may not change fields other '
                      'than', r.stderr)

    def test_apply_twice_on_a_reservation_uses_merge_patch(self):
        self.sim.install_crds()
        path = os.path.join(ROOT, "e2e", "testdata", "reservation-demo.yaml")
        self.assertEqual(self.sim.kubectl("apply", "-f", path).strip(),
                         "reservation.scheduling.koordinator.sh/reservation-demo created")
        with open(path) as f:
            doc = yaml.safe_load(f)
        doc["spec"]["ttl"] = "3h"
        r = self.sim.run(KUBECTL, "apply", "-f", "-", "-v=6", input=yaml.safe_dump(doc))
        self.assertEqual(r.stdout.strip(), "reservation.scheduling.koordinator.sh/reservation-demo configured")
        self.assertEqual(self.get("reservation", "reservation-demo")["spec"]["ttl"], "3h")
        self.assertIn("PATCH", r.stderr)

    def test_server_side_apply_of_a_configmap_lands_its_data(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                name = f"ssa-{version.replace('.', '-')}"
                cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                      "data": {"mode": "fast", "level": "3"}}
                out = self.apply(kubectl, cm, "--server-side")
                self.assertEqual(out, f"configmap/{name} serverside-applied")
                self.assertEqual(self.get("configmap", name)["data"], {"mode": "fast", "level": "3"})
                cm["data"]["mode"] = "slow"
                out = self.apply(kubectl, cm, "--server-side", "--field-manager=e2e")
                self.assertEqual(out, f"configmap/{name} serverside-applied")
                self.assertEqual(self.get("configmap", name)["data"], {"mode": "slow", "level": "3"})

    def test_a_second_apply_of_an_unchanged_guide_file_reports_unchanged(self):
        path = os.path.join(ROOT, "e2e", "testdata", "app-demo.yaml")
        r = self.sim.run(KUBECTL, "apply", "-f", path)
        self.assertEqual(r.stdout.strip(), "deployment.apps/app-demo created")
        rv = self.get("deployment", "app-demo")["metadata"]["resourceVersion"]
        # The guide writes `cpu: 2` (a YAML number); the server stores the canonical string "2", so kubectl's
        # 3-way diff resends the quantities and prints "configured", exactly as against a real apiserver
        # (kubernetes/kubernetes#66450). The server's result is unchanged: no new resourceVersion.
        r = self.sim.run(KUBECTL134, "apply", "-f", path)
        self.assertEqual(r.stdout.strip(), "deployment.apps/app-demo configured")
        self.assertEqual(self.get("deployment", "app-demo")["metadata"]["resourceVersion"], rv)
        # With the quantities written as canonical strings, the second apply sends `{}`: "unchanged".
        with open(path) as f:
            doc = yaml.safe_load(f)
        doc["metadata"]["name"] = "app-demo-quoted"
        for section in doc["spec"]["template"]["spec"]["containers"][0]["resources"].values():
            for k, v in section.items():
                section[k] = str(v)
        self.assertEqual(self.apply(KUBECTL, doc), "deployment.apps/app-demo-quoted created")
        self.assertEqual(self.apply(KUBECTL134, doc), "deployment.apps/app-demo-quoted unchanged")

    def test_limits_only_default_requests_on_pods_but_not_in_deployment_templates(self):
        doc = deployment("limits-only", 1, "nginx", [], {"a": "b"})
        doc["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1", "memory": "1Gi"}}
        self.apply(KUBECTL, doc)
        resources = self.get("deployment", "limits-only")["spec"]["template"]["spec"]["containers"][0]["resources"]
        self.assertEqual(resources, {"limits": {"cpu": "1", "memory": "1Gi"}})
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "limits-only"},
               "spec": {"containers": [{"name": "c", "image": "nginx",
                                        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}}
        self.apply(KUBECTL, pod)
        resources = self.get("pod", "limits-only")["spec"]["containers"][0]["resources"]
        self.assertEqual(resources["requests"], {"cpu": "1", "memory": "1Gi"})

    def test_apply_with_an_unknown_field_fails_with_strict_decoding(self):
        doc = deployment("strict", 1, "nginx", [], {"a": "b"})
        doc["spec"]["replicaz"] = 2
        r = self.sim.run(KUBECTL, "apply", "-f", "-", input=yaml.safe_dump(doc), check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('strict decoding error: unknown field "spec.replicaz"', r.stderr)


if __name__ == "__main__":
    unittest.main()
