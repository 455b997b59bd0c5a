"""The ResourcePolicy CRD (crds/scheduling.sigs.x-k8s.io_resourcepolicies.yaml) against kubesim with real kubectl:
the KEP's example applies verbatim, `kubectl get rsp` prints STRATEGY/UNITS/AGE, defaults are applied, and every
schema rule (unique unit names, non-negative priority and maxCount, selector operators, strategy) refuses bad input
with kube-apiserver's wording."""
import json
import os
import unittest

from kubesim_fixture import KUBECTL, ROOT, SimPerClass

EXAMPLE = os.path.join(ROOT, "e2e", "testdata", "resourcepolicy-kep-example.yaml")


def policy(name, units, **spec):
    body = {"podSelector": {"matchLabels": {"app": "web"}}, "units": units}
    body.update(spec)
    return {"apiVersion": "scheduling.sigs.x-k8s.io/v1alpha1", "kind": "ResourcePolicy",
            "metadata": {"name": name, "namespace": "default"}, "spec": body}


class ResourcePolicyCrd(SimPerClass, unittest.TestCase):
    nodes = 1


    def create_fails(self, obj):
        result = self.sim.run(KUBECTL, "create", "-f", "-", input=json.dumps(obj), check=False)
        self.assertNotEqual(result.returncode, 0, f"{obj['metadata']['name']} was accepted")
        return result.stderr

    def test_kep_example_applies_verbatim_and_prints_columns(self):
        self.sim.kubectl("create", "namespace", "xxx")
        self.sim.kubectl("apply", "-f", EXAMPLE)
        stored = json.loads(self.sim.kubectl("get", "rsp", "xxx", "-n", "xxx", "-o", "json"))
        self.assertEqual([u["name"] for u in stored["spec"]["units"]], ["unit1", "unit2", "unit3"])
        self.assertEqual(stored["spec"]["units"][2]["nodeSelector"], {"matchLabels": {"key1": "value3"}})
        self.assertEqual(stored["spec"]["matchPolicy"], {"ignoreTerminatingPod": True})
        header = self.sim.kubectl("get", "resourcepolicies", "-n", "xxx").splitlines()[0].split()
        self.assertEqual(header, ["NAME", "STRATEGY", "UNITS", "AGE"])
        row = self.sim.kubectl("get", "rsp", "-n", "xxx").splitlines()[1].split()
        self.assertEqual(row[:2], ["xxx", "prefer"])

    def test_defaults_priority_zero_and_strategy_prefer(self):
        self.sim.run(KUBECTL, "create", "-f", "-", input=json.dumps(
            policy("defaults", [{"name": "a", "nodeSelector": {"matchLabels": {"pool": "spot"}}}])))
        stored = json.loads(self.sim.kubectl("get", "rsp", "defaults", "-o", "json"))
        self.assertEqual(stored["spec"]["strategy"], "prefer")
        self.assertEqual(stored["spec"]["units"][0]["priority"], 0)
        self.assertNotIn("maxCount", stored["spec"]["units"][0])

    def test_schema_rejections_use_kubectl_wording(self):
        prefix = 'The ResourcePolicy "{}" is invalid: '
        cases = [
            ("dup-units", policy("dup-units", [{"name": "a"}, {"name": "b"}, {"name": "a"}]),
             'spec.units[2]: Duplicate value: map[string]interface {}{"name":"a"}'),
            ("neg-priority", policy("neg-priority", [{"name": "a", "priority": -1}]),
             "spec.units[0].priority: Invalid value: -1: spec.units[0].priority in body should be greater than "
             "or equal to 0"),
            ("neg-max", policy("neg-max", [{"name": "a", "maxCount": -3}]),
             "spec.units[0].maxCount: Invalid value: -3: spec.units[0].maxCount in body should be greater than "
             "or equal to 0"),
            ("bad-op", policy("bad-op", [{"name": "a", "nodeSelector": {"matchExpressions": [
                {"key": "pool", "operator": "Like", "values": ["x"]}]}}]),
             'spec.units[0].nodeSelector.matchExpressions[0].operator: Unsupported value: "Like": supported '
             'values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"'),
            ("bad-pod-op", policy("bad-pod-op", [{"name": "a"}], podSelector={"matchExpressions": [
                {"key": "app", "operator": "Gt", "values": ["1"]}]}),
             'spec.podSelector.matchExpressions[0].operator: Unsupported value: "Gt": supported values: "In", '
             '"NotIn", "Exists", "DoesNotExist"'),
            ("bad-strategy", policy("bad-strategy", [{"name": "a"}], strategy="always"),
             'spec.strategy: Unsupported value: "always": supported values: "prefer", "required"'),
            ("no-name", policy("no-name", [{"priority": 1}]), "spec.units[0].name: Required value"),
        ]
        for name, obj, expected in cases:
            with self.subTest(name):
                stderr = self.create_fails(obj)
                self.assertIn(prefix.format(name) + expected, stderr)
        self.assertNotIn("dup-units", self.sim.kubectl("get", "rsp", "-o", "name"))


if __name__ == "__main__":
    unittest.main()
