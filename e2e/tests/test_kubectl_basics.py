"""Real kubectl (v1.32 and 1.34) against kubesim: CRDs and discovery, explain, error wording, and the everyday
verbs (create, get -o json/yaml/wide, describe, label, annotate, patch x3, edit-by-replace, delete, wait)."""
import datetime
import json
import os
import unittest

import yaml

from kubesim_fixture import KUBECTL, KUBECTL134, ROOT, SimPerClass, wait_until

KUBECTLS = (("v1.32", KUBECTL), ("v1.34", KUBECTL134))
CRD_NAME = "reservations.scheduling.koordinator.sh"


def pod_yaml(name, node=None, labels=None, extra_spec=""):
    lines = ["apiVersion: v1", "kind: Pod", "metadata:", f"  name: {name}"]
    if labels:
        lines.append("  labels:")
        lines += [f"    {k}: \"{v}\"" for k, v in labels.items()]
    lines += ["spec:", "  containers:", "  - name: main", "    image: busybox",
              "    env:", "    - name: A", "      value: a"]
    if node:
        lines.append(f"  nodeName: {node}")
    if extra_spec:
        lines.append(extra_spec)
    return "\n".join(lines) + "\n"


def now_rfc3339():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class KubectlBasics(SimPerClass, unittest.TestCase):
    def k(self, binary, *args, **kw):
        return self.sim.run(binary, *args, **kw)

    def get_obj(self, *args):
        return json.loads(self.sim.kubectl("get", *args, "-o", "json"))

    # --- CRDs, discovery, explain ---------------------------------------------------------------------------

    def test_api_resources_lists_reservations_with_short_name_rsv(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.k(kubectl, "api-resources", "--api-group=scheduling.koordinator.sh").stdout
                rows = [line.split() for line in out.splitlines()[1:]]
                self.assertIn(["reservations", "rsv", "scheduling.koordinator.sh/v1alpha1", "false", "Reservation"], rows)
                # The short name works as a resource name.
                self.assertEqual(self.k(kubectl, "get", "rsv").returncode, 0)

    def test_api_resources_lists_the_builtin_resources(self):
        out = self.sim.kubectl("api-resources", "-o", "name")
        names = set(out.split())
        for want in ("pods", "nodes", "namespaces", "events", "configmaps", "services", "podtemplates",
                     "deployments.apps", "replicasets.apps", "statefulsets.apps", "poddisruptionbudgets.policy",
                     "leases.coordination.k8s.io", "customresourcedefinitions.apiextensions.k8s.io",
                     "reservations.scheduling.koordinator.sh"):
            self.assertIn(want, names)

    def test_wait_for_established_on_the_crd_succeeds(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.k(kubectl, "wait", "--for=condition=established", f"crd/{CRD_NAME}", "--timeout=10s").stdout
                self.assertIn(f"customresourcedefinition.apiextensions.k8s.io/{CRD_NAME} condition met", out)

    def test_explain_reservation_spec_shows_its_fields(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.k(kubectl, "explain", "reservation.spec").stdout
                self.assertIn("KIND:       Reservation", out)
                self.assertIn("VERSION:    v1alpha1", out)
                for field in ("owners\t<[]Object> -required-", "template\t<Object> -required-", "ttl\t<string>",
                              "allocateOnce\t<boolean>"):
                    self.assertIn(field, out)

    def test_explain_pods_spec_containers_shows_container_fields(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.k(kubectl, "explain", "pods.spec.containers").stdout
                self.assertIn("KIND:       Pod", out)
                self.assertIn("FIELD: containers <[]Container>", out)
                self.assertIn("name\t<string> -required-", out)
                self.assertIn("image\t<string>", out)
                self.assertIn("env\t<[]EnvVar>", out)

    # --- error wording ------------------------------------------------------------------------------------

    def test_get_of_a_missing_pod_prints_not_found(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                r = self.k(kubectl, "get", "pod", "nope", check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertEqual(r.stderr.strip(), 'Error from server (NotFound): pods "nope" not found')

    def test_create_of_a_pod_with_an_unknown_field_fails_with_strict_decoding(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                text = pod_yaml(f"unknown-field-{version.replace('.', '-')}", extra_spec="  bogusField: 1")
                r = self.k(kubectl, "create", "-f", "-", input=text, check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn('strict decoding error: unknown field "spec.bogusField"', r.stderr)
                self.assertIn('Pod in version "v1" cannot be handled as a Pod', r.stderr)
                r = self.k(kubectl, "get", "pod", f"unknown-field-{version.replace('.', '-')}", check=False)
                self.assertIn("NotFound", r.stderr)

    def test_create_of_an_existing_pod_prints_already_exists(self):
        self.sim.apply_text(pod_yaml("dup"))
        r = self.sim.run(KUBECTL, "create", "-f", "-", input=pod_yaml("dup"), check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('Error from server (AlreadyExists): error when creating "STDIN": pods "dup" already exists',
                      r.stderr)

    def test_imperative_create_commands_send_protobuf_and_work(self):
        self.assertEqual(self.sim.kubectl("create", "namespace", "imperative").strip(), "namespace/imperative created")
        self.assertEqual(self.sim.kubectl("create", "configmap", "imp-cm", "--from-literal=a=b").strip(),
                         "configmap/imp-cm created")
        self.assertEqual(self.get_obj("configmap", "imp-cm")["data"], {"a": "b"})
        self.assertEqual(self.sim.kubectl134("create", "deployment", "imp-dep", "--image=busybox").strip(),
                         "deployment.apps/imp-dep created")
        self.assertEqual(self.get_obj("deployment", "imp-dep")["spec"]["template"]["spec"]["containers"][0]["image"],
                         "busybox")
        # The typed client sends `strategy: {}`; the apiserver defaults it like an absent one.
        self.assertEqual(self.get_obj("deployment", "imp-dep")["spec"]["strategy"],
                         {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        self.assertEqual(self.sim.kubectl("create", "service", "clusterip", "imp-svc", "--tcp=80:8080").strip(),
                         "service/imp-svc created")
        self.assertEqual(self.get_obj("service", "imp-svc")["spec"]["ports"][0]["targetPort"], 8080)
        self.assertEqual(self.sim.kubectl134("create", "poddisruptionbudget", "imp-pdb", "--selector=app=imp-dep",
                                             "--min-available=50%").strip(),
                         "poddisruptionbudget.policy/imp-pdb created")
        self.assertEqual(self.get_obj("pdb", "imp-pdb")["spec"]["minAvailable"], "50%")

    def test_create_of_a_kind_list_validates_through_the_openapi_v2_protobuf(self):
        # kubectl validates a List client-side against /openapi/v2, asked for as gnostic protobuf only (B10).
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                suffix = version.replace(".", "-")
                with open(os.path.join(ROOT, "e2e", "testdata", "reservation-demo.yaml")) as f:
                    rsv = yaml.safe_load(f)
                rsv["metadata"]["name"] = f"list-rsv-{suffix}"
                cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"list-cm-{suffix}"},
                      "data": {"a": "b"}}
                doc = {"apiVersion": "v1", "kind": "List", "items": [rsv, cm]}
                out = self.k(kubectl, "create", "-f", "-", input=json.dumps(doc)).stdout
                self.assertEqual(out.splitlines(), [f"reservation.scheduling.koordinator.sh/list-rsv-{suffix} created",
                                                    f"configmap/list-cm-{suffix} created"])
                self.assertEqual(self.get_obj("configmap", f"list-cm-{suffix}")["data"], {"a": "b"})
                cm["metadata"]["name"] = f"list-bad-{suffix}"
                cm["bogusField"] = 1
                r = self.k(kubectl, "create", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                                           "items": [cm]}), check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn('unknown field "bogusField"', r.stderr)
                self.assertIn("NotFound", self.k(kubectl, "get", "configmap", f"list-bad-{suffix}", check=False).stderr)

    def test_services_get_a_cluster_ip_and_the_apiservers_defaults(self):
        # B9: ClusterIP allocation from 10.96.0.0/12, release on delete, and default/kubernetes at start.
        kube = self.get_obj("service", "kubernetes", "-n", "default")
        self.assertEqual(kube["spec"]["clusterIP"], "10.96.0.1")
        self.assertEqual(kube["spec"]["ports"][0]["port"], 443)
        self.assertEqual(kube["spec"]["ports"][0]["name"], "https")
        svc = ("apiVersion: v1\nkind: Service\nmetadata: {name: %s}\nspec:\n  type: %s\n%s"
               "  selector: {app: x}\n  ports: [{port: 80}]\n")
        self.sim.apply_text(svc % ("ip-a", "ClusterIP", "") + "---\n" + svc % ("ip-np", "NodePort", "") +
                            "---\n" + svc % ("ip-headless", "ClusterIP", "  clusterIP: None\n"))
        spec = self.get_obj("service", "ip-a")["spec"]
        octets = [int(x) for x in spec["clusterIP"].split(".")]
        self.assertEqual(octets[:1], [10])
        self.assertTrue(96 <= octets[1] <= 111, spec["clusterIP"])
        self.assertEqual(spec["clusterIPs"], [spec["clusterIP"]])
        self.assertEqual((spec["ipFamilies"], spec["ipFamilyPolicy"], spec["sessionAffinity"],
                          spec["internalTrafficPolicy"]), (["IPv4"], "SingleStack", "None", "Cluster"))
        self.assertEqual(spec["ports"][0], {"port": 80, "protocol": "TCP", "targetPort": 80})
        node_port = self.get_obj("service", "ip-np")["spec"]["ports"][0]["nodePort"]
        self.assertTrue(30000 <= node_port <= 32767, node_port)
        self.assertEqual(self.get_obj("service", "ip-headless")["spec"]["clusterIP"], "None")
        row = self.sim.kubectl("get", "svc", "ip-a").splitlines()[1].split()
        self.assertEqual(row[:3], ["ip-a", "ClusterIP", spec["clusterIP"]])
        # A requested address that is taken is refused with the allocator's wording, and freed by a delete.
        taken = spec["clusterIP"]
        r = self.sim.run(KUBECTL, "create", "-f", "-", check=False,
                         input=svc % ("ip-b", "ClusterIP", f"  clusterIP: {taken}\n"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(f'spec.clusterIPs: Invalid value: []string{{"{taken}"}}: failed to allocate IP {taken}: '
                      "provided IP is already allocated", r.stderr)
        self.sim.kubectl("delete", "service", "ip-a")
        self.sim.apply_text(svc % ("ip-b", "ClusterIP", f"  clusterIP: {taken}\n"))
        self.assertEqual(self.get_obj("service", "ip-b")["spec"]["clusterIP"], taken)

    # --- create / get ----------------------------------------------------------------------------------------

    def test_create_then_get_in_json_yaml_and_wide(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                name = f"get-{version.replace('.', '-')}"
                out = self.k(kubectl, "create", "-f", "-", input=pod_yaml(name, node="node-1", labels={"app": "g"})).stdout
                self.assertEqual(out.strip(), f"pod/{name} created")
                obj = json.loads(self.k(kubectl, "get", "pod", name, "-o", "json").stdout)
                self.assertEqual(obj["kind"], "Pod")
                self.assertEqual(obj["metadata"]["name"], name)
                self.assertEqual(obj["metadata"]["namespace"], "default")
                self.assertTrue(obj["metadata"]["uid"])
                self.assertTrue(obj["metadata"]["resourceVersion"])
                self.assertEqual(obj["spec"]["nodeName"], "node-1")
                y = yaml.safe_load(self.k(kubectl, "get", "pod", name, "-o", "yaml").stdout)
                self.assertEqual(y["metadata"]["uid"], obj["metadata"]["uid"])
                self.assertEqual(y["spec"]["containers"][0]["image"], "busybox")
                self.k(kubectl, "wait", "--for=condition=Ready", f"pod/{name}", "--timeout=10s")
                wide = self.k(kubectl, "get", "pod", name, "-o", "wide").stdout.splitlines()
                self.assertEqual(wide[0].split(), ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                                                   "NOMINATED", "NODE", "READINESS", "GATES"])
                row = wide[1].split()
                self.assertEqual(row[:4], [name, "1/1", "Running", "0"])
                self.assertEqual(row[6], "node-1")

    def test_get_prints_the_apiservers_columns_for_builtin_kinds(self):
        out = self.sim.kubectl("create", "-f", os.path.join(ROOT, "e2e", "testdata", "builtin-kinds.yaml"))
        self.assertEqual(len(out.splitlines()), 8, out)
        want = {
            "configmaps": (["NAME", "DATA", "AGE"], ["cols", "2"]),
            "services": (["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"], ["cols", "ClusterIP"]),
            # kubesim's workload controllers create the pods; no kube-scheduler runs, so none is ready.
            "deployments": (["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], ["cols", "0/2", "2", "0"]),
            "replicasets": (["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["cols", "3", "3", "0"]),
            "statefulsets": (["NAME", "READY", "AGE"], ["cols", "0/2"]),
            "pdb": (["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"],
                    ["cols", "N/A", "1"]),
            "leases": (["NAME", "HOLDER", "AGE"], ["cols", "me"]),
            "podtemplates": (["NAME", "CONTAINERS", "IMAGES", "POD", "LABELS"], ["cols", "c", "nginx", "app=cols"]),
        }
        apps = "/apis/apps/v1/namespaces/default"
        wait_until(lambda: self.sim.get_json(apps + "/deployments/cols").get("status", {}).get("updatedReplicas") == 2
                   and self.sim.get_json(apps + "/replicasets/cols").get("status", {}).get("replicas") == 3,
                   message="the Deployment and ReplicaSet controllers created their pods")
        for resource, (header, prefix) in want.items():
            for version, kubectl in KUBECTLS:
                with self.subTest(resource=resource, kubectl=version):
                    lines = self.k(kubectl, "get", resource, "cols").stdout.splitlines()
                    self.assertEqual(lines[0].split(), header)
                    self.assertEqual(lines[1].split()[:len(prefix)], prefix)
        lines = self.sim.kubectl("get", "deployment", "cols", "-o", "wide").splitlines()
        self.assertEqual(lines[0].split()[5:], ["CONTAINERS", "IMAGES", "SELECTOR"])
        self.assertEqual(lines[1].split()[5:], ["c", "nginx", "app=cols"])
        lines = self.sim.kubectl("get", "namespaces").splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "STATUS", "AGE"])
        self.assertIn(["default", "Active"], [l.split()[:2] for l in lines[1:]])
        lines = self.sim.kubectl("get", "crds").splitlines()
        self.assertEqual(lines[0].split(), ["NAME", "CREATED", "AT"])
        self.assertIn(CRD_NAME, [l.split()[0] for l in lines[1:]])

    def test_scale_uses_the_scale_subresource_and_current_replicas_precondition(self):
        with open(os.path.join(ROOT, "e2e", "testdata", "app-demo.yaml")) as f:
            self.sim.apply_text(f.read().replace("name: app-demo\n", "name: scale-demo\n", 1))
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                replicas = self.get_obj("deployment", "scale-demo")["spec"]["replicas"]
                out = self.k(kubectl, "scale", "deployment", "scale-demo", f"--replicas={replicas + 1}",
                             f"--current-replicas={replicas}").stdout
                self.assertEqual(out.strip(), "deployment.apps/scale-demo scaled")
                self.assertEqual(self.get_obj("deployment", "scale-demo")["spec"]["replicas"], replicas + 1)
                r = self.k(kubectl, "scale", "deployment", "scale-demo", "--replicas=9", "--current-replicas=1",
                           check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn("Expected replicas to be 1, was", r.stderr)
        scale = self.sim.get_json("/apis/apps/v1/namespaces/default/deployments/scale-demo/scale")
        self.assertEqual(scale["kind"], "Scale")
        self.assertEqual(scale["spec"]["replicas"], 4)
        self.assertEqual(scale["status"]["selector"], "app=app-demo")

    def test_delete_dash_f_removes_every_object_of_a_file(self):
        text = (f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: delf-a}}\n---\n"
                f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: delf-b}}\n")
        self.sim.apply_text(text)
        out = self.sim.run(KUBECTL, "delete", "-f", "-", input=text).stdout
        self.assertEqual(out.splitlines(), ['configmap "delf-a" deleted', 'configmap "delf-b" deleted'])
        r = self.sim.run(KUBECTL, "get", "configmap", "delf-a", "delf-b", check=False)
        self.assertIn('configmaps "delf-a" not found', r.stderr)
        self.assertIn('configmaps "delf-b" not found', r.stderr)

    def test_get_nodes_shows_ready_nodes(self):
        out = self.sim.kubectl("get", "nodes").splitlines()
        self.assertEqual(out[0].split(), ["NAME", "STATUS", "ROLES", "AGE", "VERSION"])
        rows = {line.split()[0]: line.split() for line in out[1:]}
        self.assertEqual(sorted(rows), ["node-0", "node-1", "node-2"])
        for row in rows.values():
            self.assertEqual(row[1], "Ready")

    def test_get_by_label_selector_filters(self):
        self.sim.apply_text(pod_yaml("sel-a", labels={"tier": "front"}))
        self.sim.apply_text(pod_yaml("sel-b", labels={"tier": "back"}))
        out = self.sim.kubectl("get", "pods", "-l", "tier=front", "-o", "name").split()
        self.assertEqual(out, ["pod/sel-a"])
        out = self.sim.kubectl("get", "pods", "-l", "tier in (front,back)", "-o", "name").split()
        self.assertEqual(sorted(out), ["pod/sel-a", "pod/sel-b"])
        out = self.sim.kubectl("get", "pods", "--field-selector", "metadata.name=sel-b", "-o", "name").split()
        self.assertEqual(out, ["pod/sel-b"])

    # --- describe ----------------------------------------------------------------------------------------------

    def create_event_for(self, kind, name, uid, namespace="default", reason="E2ETesting", message="hello"):
        ts = now_rfc3339()
        involved = {"kind": kind, "name": name, "uid": uid}
        if kind != "Node" and kind != "Reservation":
            involved["namespace"] = namespace
        if kind == "Reservation":
            involved["apiVersion"] = "scheduling.koordinator.sh/v1alpha1"
        event = {"apiVersion": "v1", "kind": "Event",
                 "metadata": {"name": f"{name}.{reason.lower()}", "namespace": namespace},
                 "involvedObject": involved, "reason": reason, "message": message, "type": "Normal",
                 "source": {"component": "e2e-test"}, "firstTimestamp": ts, "lastTimestamp": ts, "count": 1}
        self.assertIn("created", self.sim.apply_text(yaml.safe_dump(event)))

    def test_describe_pod_shows_its_fields_and_events(self):
        self.sim.apply_text(pod_yaml("desc", node="node-0", labels={"app": "desc"}))
        self.sim.kubectl("wait", "--for=condition=Ready", "pod/desc", "--timeout=10s")
        uid = self.get_obj("pod", "desc")["metadata"]["uid"]
        self.create_event_for("Pod", "desc", uid, message="pod event seen by describe")
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.k(kubectl, "describe", "pod", "desc").stdout
                self.assertRegex(out, r"(?m)^Name:\s+desc$")
                self.assertRegex(out, r"(?m)^Namespace:\s+default$")
                self.assertRegex(out, r"(?m)^Node:\s+node-0")
                self.assertRegex(out, r"(?m)^Status:\s+Running$")
                self.assertRegex(out, r"(?m)^Labels:\s+app=desc$")
                self.assertRegex(out, r"(?m)^\s+Image:\s+busybox$")
                self.assertRegex(out, r"(?m)^\s+Normal\s+E2ETesting\s+\S+\s+e2e-test\s+pod event seen by describe$")

    def test_describe_node_shows_capacity_and_events(self):
        uid = self.get_obj("node", "node-2")["metadata"]["uid"]
        self.create_event_for("Node", "node-2", uid, message="node event seen by describe")
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.k(kubectl, "describe", "node", "node-2").stdout
                self.assertRegex(out, r"(?m)^Name:\s+node-2$")
                self.assertIn("Allocatable:", out)
                self.assertRegex(out, r"(?m)^\s+cpu:\s+8$")
                self.assertRegex(out, r"(?m)^\s+pods:\s+110$")
                self.assertRegex(out, r"(?m)^\s+Ready\s+True")
                self.assertIn("Allocated resources:", out)
                self.assertRegex(out, r"(?m)^\s+Normal\s+E2ETesting\s+\S+\s+e2e-test\s+node event seen by describe$")

    def test_describe_reservation_shows_spec_and_events(self):
        with open(os.path.join(ROOT, "e2e", "testdata", "reservation-demo.yaml")) as f:
            text = f.read().replace("name: reservation-demo", "name: reservation-describe")
        self.sim.apply_text(text)
        uid = self.get_obj("reservation", "reservation-describe")["metadata"]["uid"]
        self.create_event_for("Reservation", "reservation-describe", uid, message="reservation event")
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                out = self.k(kubectl, "describe", "reservation", "reservation-describe").stdout
                self.assertRegex(out, r"(?m)^Name:\s+reservation-describe$")
                self.assertRegex(out, r"(?m)^Kind:\s+Reservation$")
                self.assertRegex(out, r"(?m)^\s+Ttl:\s+1h$")
                self.assertRegex(out, r"(?m)^\s+Normal\s+E2ETesting\s+\S+\s+e2e-test\s+reservation event$")

    # --- label, annotate, patch, replace, delete -------------------------------------------------------------

    def test_label_and_annotate_add_overwrite_and_remove(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                name = f"lab-{version.replace('.', '-')}"
                self.sim.apply_text(pod_yaml(name, labels={"a": "1"}))
                self.assertEqual(self.k(kubectl, "label", "pod", name, "b=2").stdout.strip(), f"pod/{name} labeled")
                r = self.k(kubectl, "label", "pod", name, "a=9", check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn("'a' already has a value (1), and --overwrite is false", r.stderr)
                self.k(kubectl, "label", "pod", name, "a=9", "--overwrite")
                self.k(kubectl, "label", "pod", name, "b-")
                self.assertEqual(self.get_obj("pod", name)["metadata"]["labels"], {"a": "9"})
                self.assertEqual(self.k(kubectl, "annotate", "pod", name, "note=hi there").stdout.strip(),
                                 f"pod/{name} annotated")
                self.assertEqual(self.get_obj("pod", name)["metadata"]["annotations"]["note"], "hi there")
                self.k(kubectl, "annotate", "pod", name, "note-")
                self.assertNotIn("note", self.get_obj("pod", name)["metadata"].get("annotations", {}))

    def test_patch_strategic_merges_containers_by_name(self):
        self.sim.apply_text(pod_yaml("pstrat"))
        # The image is the one container field a pod update may change; the element merges by name, so env stays.
        out = self.sim.kubectl("patch", "pod", "pstrat", "-p",
                               '{"spec":{"containers":[{"name":"main","image":"busybox:2"}]}}')
        self.assertEqual(out.strip(), "pod/pstrat patched")
        pod = self.get_obj("pod", "pstrat")
        self.assertEqual(len(pod["spec"]["containers"]), 1)
        self.assertEqual(pod["spec"]["containers"][0]["image"], "busybox:2")
        self.assertEqual({e["name"]: e["value"] for e in pod["spec"]["containers"][0]["env"]}, {"A": "a"})
        # Adding an env var to a running pod is an immutable-field change: 422, as ValidatePodUpdate answers.
        r = self.sim.run(KUBECTL, "patch", "pod", "pstrat", "-p",
                         '{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"b"}]}]}}', check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('The Pod "pstrat" is invalid: spec: Forbidden: pod updates may not change fields other than',
                      r.stderr)

    def test_patch_merge_replaces_lists_and_deletes_with_null(self):
        self.sim.apply_text(pod_yaml("pmerge", labels={"keep": "1", "drop": "2"}))
        self.sim.kubectl134("patch", "pod", "pmerge", "--type=merge", "-p",
                            '{"metadata":{"labels":{"drop":null,"add":"3"}},'
                            '"spec":{"tolerations":[{"key":"k","operator":"Exists"}]}}')
        pod = self.get_obj("pod", "pmerge")
        self.assertEqual(pod["metadata"]["labels"], {"keep": "1", "add": "3"})
        # The merge patch replaced the list; the DefaultTolerationSeconds admission re-appends its two defaults.
        self.assertEqual(pod["spec"]["tolerations"][0], {"key": "k", "operator": "Exists"})
        self.assertEqual(sorted(t["key"] for t in pod["spec"]["tolerations"][1:]),
                         ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"])
        self.assertEqual(pod["spec"]["containers"][0]["env"], [{"name": "A", "value": "a"}])

    def test_patch_json_applies_operations_and_a_failed_test_is_refused(self):
        self.sim.apply_text(pod_yaml("pjson"))
        self.sim.kubectl("patch", "pod", "pjson", "--type=json", "-p",
                         '[{"op":"add","path":"/metadata/labels","value":{"j":"1"}},'
                         '{"op":"replace","path":"/spec/containers/0/image","value":"busybox:2"}]')
        pod = self.get_obj("pod", "pjson")
        self.assertEqual(pod["metadata"]["labels"], {"j": "1"})
        self.assertEqual(pod["spec"]["containers"][0]["image"], "busybox:2")
        r = self.sim.run(KUBECTL, "patch", "pod", "pjson", "--type=json", "-p",
                         '[{"op":"test","path":"/metadata/labels/j","value":"2"}]', check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("test failed", r.stderr)
        self.assertEqual(self.get_obj("pod", "pjson")["metadata"]["labels"], {"j": "1"})

    def test_patch_merge_on_a_reservation(self):
        with open(os.path.join(ROOT, "e2e", "testdata", "reservation-demo.yaml")) as f:
            self.sim.apply_text(f.read().replace("name: reservation-demo", "name: reservation-patch"))
        self.sim.kubectl("patch", "reservation", "reservation-patch", "--type=merge", "-p", '{"spec":{"ttl":"2h"}}')
        self.assertEqual(self.get_obj("rsv", "reservation-patch")["spec"]["ttl"], "2h")

    def test_edit_by_replace_round_trips_through_get_yaml(self):
        self.sim.apply_text(pod_yaml("repl"))
        before = self.get_obj("pod", "repl")
        text = self.sim.kubectl("get", "pod", "repl", "-o", "yaml")
        self.assertIn("image: busybox\n", text)
        edited = text.replace("image: busybox\n", "image: busybox:1.36\n")
        out = self.sim.run(KUBECTL, "replace", "-f", "-", input=edited).stdout
        self.assertEqual(out.strip(), "pod/repl replaced")
        after = self.get_obj("pod", "repl")
        self.assertEqual(after["spec"]["containers"][0]["image"], "busybox:1.36")
        self.assertEqual(after["metadata"]["uid"], before["metadata"]["uid"])
        self.assertGreater(int(after["metadata"]["resourceVersion"]), int(before["metadata"]["resourceVersion"]))
        # Replaying the stale YAML is a conflict.
        r = self.sim.run(KUBECTL134, "replace", "-f", "-", input=text, check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("Error from server (Conflict)", r.stderr)
        self.assertIn("the object has been modified; please apply your changes to the latest version and try again",
                      r.stderr)

    def test_delete_and_wait_for_delete(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                name = f"del-{version.replace('.', '-')}"
                self.sim.apply_text(pod_yaml(name))
                out = self.k(kubectl, "delete", "pod", name, "--wait=false").stdout
                # v1.34 adds " from default namespace"; the server's part is the same.
                self.assertRegex(out.strip(), rf'^pod "{name}" deleted( from default namespace)?$')
                r = self.k(kubectl, "wait", "--for=delete", f"pod/{name}", "--timeout=10s", check=False)
                self.assertEqual(r.returncode, 0, r.stderr)
                r = self.k(kubectl, "get", "pod", name, check=False)
                self.assertIn("NotFound", r.stderr)

    def test_wait_for_delete_blocks_until_a_finalizer_is_removed(self):
        self.sim.apply_text(pod_yaml("fin", extra_spec="").replace("metadata:\n",
                                                                   "metadata:\n  finalizers: [e2e.berth.io/hold]\n"))
        self.sim.kubectl("delete", "pod", "fin", "--wait=false")
        pod = self.get_obj("pod", "fin")
        self.assertIn("deletionTimestamp", pod["metadata"])
        with self.sim.background(KUBECTL, "wait", "--for=delete", "pod/fin", "--timeout=20s") as bg:
            r = self.sim.run(KUBECTL, "wait", "--for=delete", "pod/fin", "--timeout=1s", check=False)
            self.assertNotEqual(r.returncode, 0)   # still there: the finalizer holds it
            self.sim.kubectl("patch", "pod", "fin", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
            code, lines = bg.wait_exit(timeout=20)
            self.assertEqual(code, 0, lines)
            self.assertIn("pod/fin condition met", "\n".join(lines))

    def test_wait_for_ready_on_a_bound_pod(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                name = f"ready-{version.replace('.', '-')}"
                self.sim.apply_text(pod_yaml(name, node="node-2"))
                out = self.k(kubectl, "wait", "--for=condition=Ready", f"pod/{name}", "--timeout=10s").stdout
                self.assertEqual(out.strip(), f"pod/{name} condition met")

    def test_wait_for_ready_times_out_on_an_unbound_pod(self):
        self.sim.apply_text(pod_yaml("unbound"))
        r = self.sim.run(KUBECTL, "wait", "--for=condition=Ready", "pod/unbound", "--timeout=1s", check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("timed out waiting for the condition on pods/unbound", r.stderr)


if __name__ == "__main__":
    unittest.main()
