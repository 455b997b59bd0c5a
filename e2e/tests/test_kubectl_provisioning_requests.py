"""The ProvisioningRequest CRD (crds/autoscaling.x-k8s.io_provisioningrequests.yaml) against kubesim with real kubectl
1.32 and 1.34: the example requests apply verbatim, `kubectl get provreq` prints the condition columns, v1beta1 serves
the stored v1 objects with the CRD's deprecation warning, the spec is immutable with kube-apiserver's wording, and every
schema rule of the upstream CRD refuses what it must with kubectl's usual error."""
import json
import os
import unittest


from kubesim_fixture import KUBECTL, KUBECTL134, ROOT, SimPerClass, kubectl_table

KUBECTLS = (("v1.32", KUBECTL), ("v1.34", KUBECTL134))
TESTDATA = os.path.join(ROOT, "e2e", "testdata", "provisioningrequest")
DEPRECATION = "Warning: autoscaling.k8s.io/v1beta1 API is deprecated"


def immutable(field, kind):
    """kube-apiserver's wording for a failed `self == oldSelf` rule on `field` (an OpenAPI type)."""
    return f'is invalid: {field}: Invalid value: "{kind}": Value is immutable'
CHECK_CAPACITY = "check-capacity.autoscaling.x-k8s.io"


def request(name, pod_sets=None, **spec):
    body = {"provisioningClassName": CHECK_CAPACITY,
            "podSets": pod_sets if pod_sets is not None else [{"count": 1, "podTemplateRef": {"name": "t"}}]}
    body.update(spec)
    return {"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
            "metadata": {"name": name, "namespace": "default"}, "spec": {k: v for k, v in body.items() if v is not None}}


def condition(type_, status, reason="Testing"):
    return {"type": type_, "status": status, "reason": reason, "message": "set by the test",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}


class ProvisioningRequestCrd(SimPerClass, unittest.TestCase):
    nodes = 1

    @classmethod
    def set_up_sim(cls, sim):
        sim.run(KUBECTL, "apply", "-f", os.path.join(TESTDATA, "check-capacity.yaml"))

    def create_fails(self, obj, kubectl=KUBECTL):
        result = self.sim.run(kubectl, "create", "-f", "-", input=json.dumps(obj), check=False)
        self.assertNotEqual(result.returncode, 0, f"{obj['metadata']['name']} was accepted")
        return result.stderr

    def test_examples_apply_verbatim_through_both_versions(self):
        out = self.sim.run(KUBECTL134, "apply", "-f", os.path.join(TESTDATA, "check-capacity.yaml")).stdout
        self.assertIn("provisioningrequest.autoscaling.x-k8s.io/provreq-check-capacity unchanged", out)
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                name = "provreq-atomic-" + version.replace(".", "-")
                with open(os.path.join(TESTDATA, "best-effort-atomic-v1beta1.yaml")) as f:
                    text = f.read()
                result = self.sim.run(kubectl, "apply", "-f", "-", input=text.replace("provreq-atomic", name))
                self.assertEqual(result.stdout.strip(), f"provisioningrequest.autoscaling.x-k8s.io/{name} created")
                self.assertIn(DEPRECATION, result.stderr)
                obj = json.loads(self.sim.kubectl("get", "provreq", name, "-o", "json"))
                self.assertEqual(obj["apiVersion"], "autoscaling.x-k8s.io/v1")
                self.assertEqual(obj["spec"]["parameters"], {"ValidUntilSeconds": "3600"})
        out = self.sim.run(KUBECTL, "create", "-f", os.path.join(TESTDATA, "kueue-shaped.yaml")).stdout
        self.assertEqual(out.split("\n")[:2], ["podtemplate/ppt-job-sample-prov-check-1-main created",
                                               "provisioningrequest.autoscaling.x-k8s.io/job-sample-prov-check-1 created"])

    def test_get_prints_class_and_condition_columns(self):
        self.sim.apply_text(json.dumps(request("columns")))
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version, conditions="none"):
                names, rows = kubectl_table(self.sim.run(kubectl, "get", "provreq", "columns").stdout)
                self.assertEqual(names, ["NAME", "CLASS", "ACCEPTED", "PROVISIONED", "FAILED", "BOOKING-EXPIRED", "AGE"])
                self.assertEqual(rows[0]["CLASS"], CHECK_CAPACITY)
                self.assertEqual([rows[0][c] for c in ("ACCEPTED", "PROVISIONED", "FAILED", "BOOKING-EXPIRED")],
                                 ["", "", "", ""])
                self.assertRegex(rows[0]["AGE"], r"^\d+s$")
        status = {"status": {"conditions": [condition("Accepted", "True", "Accepted"),
                                            condition("Provisioned", "True", "CapacityIsFound"),
                                            condition("BookingExpired", "False")]}}
        self.sim.kubectl("patch", "provreqs", "columns", "--subresource=status", "--type=merge", "-p", json.dumps(status))
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version, conditions="set"):
                _, rows = kubectl_table(self.sim.run(kubectl, "get", "provisioningrequest", "columns").stdout)
                self.assertEqual([rows[0][c] for c in ("ACCEPTED", "PROVISIONED", "FAILED", "BOOKING-EXPIRED")],
                                 ["True", "True", "", "False"])

    def test_v1beta1_serves_the_stored_v1_object_with_the_deprecation_warning(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                result = self.sim.run(kubectl, "get", "provisioningrequests.v1beta1.autoscaling.x-k8s.io",
                                      "provreq-check-capacity", "-o", "json")
                obj = json.loads(result.stdout)
                self.assertEqual(obj["apiVersion"], "autoscaling.x-k8s.io/v1beta1")
                self.assertEqual(obj["spec"]["podSets"], [{"count": 1, "podTemplateRef": {"name": "provreq-template"}}])
                self.assertIn(DEPRECATION, result.stderr)
                v1 = self.sim.run(kubectl, "get", "provisioningrequests.v1.autoscaling.x-k8s.io",
                                  "provreq-check-capacity", "-o", "json")
                self.assertEqual(json.loads(v1.stdout)["apiVersion"], "autoscaling.x-k8s.io/v1")
                self.assertNotIn("Warning", v1.stderr)
        # Discovery: v1 is preferred, both are served, and kubectl's default resolves to v1.
        group = self.sim.get_json("/apis/autoscaling.x-k8s.io")
        self.assertEqual(group["preferredVersion"]["version"], "v1")
        self.assertEqual([v["version"] for v in group["versions"]], ["v1", "v1beta1"])
        self.assertIn("provisioningrequests.autoscaling.x-k8s.io",
                      self.sim.kubectl("api-resources", "--api-group=autoscaling.x-k8s.io", "-o", "name"))

    def test_openapi_v3_describes_both_versions_for_explain(self):
        for version in ("v1", "v1beta1"):
            with self.subTest(version=version):
                out = self.sim.run(KUBECTL134, "explain", f"provisioningrequests.spec.podSets.count",
                                   f"--api-version=autoscaling.x-k8s.io/{version}").stdout
                self.assertIn("integer", out)
                self.assertIn(f"VERSION:    {version}", out)

    def test_the_spec_is_immutable_whatever_the_client_or_version(self):
        self.sim.apply_text(json.dumps(request("frozen", parameters={"noRetry": "false"})))
        # The rule sits on each field, as in the upstream CRD: the error names the field.
        changes = {"count": ({"spec": {"podSets": [{"count": 2, "podTemplateRef": {"name": "t"}}]}},
                             immutable("spec.podSets", "array")),
                   "class": ({"spec": {"provisioningClassName": "best-effort-atomic-scale-up.autoscaling.x-k8s.io"}},
                             immutable("spec.provisioningClassName", "string")),
                   "parameter": ({"spec": {"parameters": {"noRetry": "true"}}}, immutable("spec.parameters", "object"))}
        for version, kubectl in KUBECTLS:
            for what, (patch, expected) in changes.items():
                with self.subTest(kubectl=version, change=what):
                    result = self.sim.run(kubectl, "patch", "provreq", "frozen", "--type=merge", "-p",
                                          json.dumps(patch), check=False)
                    self.assertNotEqual(result.returncode, 0)
                    self.assertIn('The ProvisioningRequest "frozen" ' + expected, result.stderr)
        # kubectl apply of an edited manifest, through v1beta1 too.
        edited = request("frozen", pod_sets=[{"count": 3, "podTemplateRef": {"name": "t"}}],
                         parameters={"noRetry": "false"})
        edited["apiVersion"] = "autoscaling.x-k8s.io/v1beta1"
        result = self.sim.run(KUBECTL, "apply", "-f", "-", input=json.dumps(edited), check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn(immutable("spec.podSets", "array"), result.stderr)
        # A transition rule does not run where the old object had no value: parameters may be added to a request
        # created without any (upstream's CRD behaves so too), never changed after.
        self.sim.apply_text(json.dumps(request("open")))
        self.sim.kubectl("patch", "provreq", "open", "--type=merge", "-p", json.dumps({"spec": {"parameters": {"a": "b"}}}))
        result = self.sim.run(KUBECTL, "patch", "provreq", "open", "--type=merge", "-p",
                              json.dumps({"spec": {"parameters": {"a": "c"}}}), check=False)
        self.assertIn(immutable("spec.parameters", "object"), result.stderr)
        # Labels and status still change; the spec is what it was.
        self.sim.kubectl("label", "provreq", "frozen", "team=a")
        self.sim.kubectl("patch", "provreq", "frozen", "--subresource=status", "--type=merge", "-p",
                         json.dumps({"status": {"conditions": [condition("Failed", "True")]}}))
        obj = json.loads(self.sim.kubectl("get", "provreq", "frozen", "-o", "json"))
        self.assertEqual(obj["metadata"]["labels"], {"team": "a"})
        self.assertEqual(obj["spec"]["podSets"][0]["count"], 1)
        self.assertEqual(obj["status"]["conditions"][0]["type"], "Failed")

    def test_every_schema_rule_refuses_what_it_must(self):
        long_name = "a" * 254
        cases = {
            "no-podsets": (request("no-podsets", pod_sets=[]),
                           "spec.podSets: Invalid value: 0: spec.podSets in body should have at least 1 items"),
            "many-podsets": (request("many-podsets", pod_sets=[{"count": 1, "podTemplateRef": {"name": "t"}}] * 33),
                             "spec.podSets: Too many: 33: must have at most 32 items"),
            "zero-count": (request("zero-count", pod_sets=[{"count": 0, "podTemplateRef": {"name": "t"}}]),
                           "spec.podSets[0].count: Invalid value: 0: spec.podSets[0].count in body should be greater "
                           "than or equal to 1"),
            "text-count": (request("text-count", pod_sets=[{"count": "1", "podTemplateRef": {"name": "t"}}]),
                           'spec.podSets[0].count: Invalid value: "string": spec.podSets[0].count in body must be of '
                           'type integer: "string"'),
            "no-count": (request("no-count", pod_sets=[{"podTemplateRef": {"name": "t"}}]),
                         "spec.podSets[0].count: Required value"),
            "no-template": (request("no-template", pod_sets=[{"count": 1}]),
                            "spec.podSets[0].podTemplateRef: Required value"),
            "bad-template-name": (request("bad-template-name", pod_sets=[{"count": 1, "podTemplateRef": {"name": "T_1"}}]),
                                  'spec.podSets[0].podTemplateRef.name: Invalid value: "T_1": '
                                  "spec.podSets[0].podTemplateRef.name in body should match "
                                  "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'"),
            "long-template-name": (request("long-template-name",
                                           pod_sets=[{"count": 1, "podTemplateRef": {"name": long_name}}]),
                                   "spec.podSets[0].podTemplateRef.name: Too long: may not be longer than 253"),
            "no-class": (request("no-class", provisioningClassName=None), "spec.provisioningClassName: Required value"),
            "bad-class": (request("bad-class", provisioningClassName="Check-Capacity"),
                          'spec.provisioningClassName: Invalid value: "Check-Capacity": spec.provisioningClassName in '
                          "body should match"),
            "long-class": (request("long-class", provisioningClassName=long_name),
                           "spec.provisioningClassName: Too long: may not be longer than 253"),
            "many-parameters": (request("many-parameters", parameters={f"p{i}": "v" for i in range(101)}),
                                "spec.parameters: Too many: 101: must have at most 100 items"),
            "long-parameter": (request("long-parameter", parameters={"noRetry": "x" * 256}),
                               "spec.parameters.noRetry: Too long: may not be longer than 255"),
            "no-spec": ({"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
                         "metadata": {"name": "no-spec", "namespace": "default"}}, "spec: Required value"),
        }
        for name, (obj, expected) in cases.items():
            for version, kubectl in KUBECTLS:
                with self.subTest(case=name, kubectl=version):
                    stderr = self.create_fails(obj, kubectl)
                    self.assertIn(f'The ProvisioningRequest "{name}" is invalid: ', stderr)
                    self.assertIn(expected, stderr)
        # The limits themselves are accepted.
        edge = request("edge", pod_sets=[{"count": 2147483647, "podTemplateRef": {"name": "a" * 253}}] * 32,
                       provisioningClassName="a" * 253, parameters={f"p{i}": "v" * 255 for i in range(100)})
        self.sim.apply_text(json.dumps(edge))

    def test_status_conditions_are_metav1_conditions(self):
        self.sim.apply_text(json.dumps(request("conditions")))
        cases = {
            "status": (condition("Accepted", "Maybe"),
                       'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", '
                       '"Unknown"'),
            "reason": (condition("Accepted", "True", reason="not a reason"),
                       'status.conditions[0].reason: Invalid value: "not a reason": status.conditions[0].reason in '
                       "body should match"),
            "type": (condition("Not A Type", "True"), 'status.conditions[0].type: Invalid value: "Not A Type"'),
            "time": ({k: v for k, v in condition("Accepted", "True").items() if k != "lastTransitionTime"},
                     "status.conditions[0].lastTransitionTime: Required value"),
            "generation": (dict(condition("Accepted", "True"), observedGeneration=-1),
                           "status.conditions[0].observedGeneration: Invalid value: -1"),
        }
        for what, (cond, expected) in cases.items():
            with self.subTest(field=what):
                result = self.sim.run(KUBECTL, "patch", "provreq", "conditions", "--subresource=status",
                                      "--type=merge", "-p", json.dumps({"status": {"conditions": [cond]}}), check=False)
                self.assertNotEqual(result.returncode, 0)
                self.assertIn(expected, result.stderr)


if __name__ == "__main__":
    unittest.main()
