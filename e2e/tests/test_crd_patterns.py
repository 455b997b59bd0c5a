"""CRD `pattern`s are Go regexps in kubesim as in kube-apiserver (RE2): a pattern with Go-only syntax such as `(?i)`
validates objects instead of rejecting every one, and a pattern Go cannot compile is refused when the CRD is
written, naming the schema field, with real kubectl."""
import json
import unittest

from kubesim_fixture import Kubesim, CommandError


def crd(plural, pattern):
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.patterns.berth.dev"},
        "spec": {"group": "patterns.berth.dev", "scope": "Namespaced",
                 "names": {"kind": plural.capitalize()[:-1], "plural": plural, "singular": plural[:-1],
                           "listKind": plural.capitalize()[:-1] + "List"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "properties": {"spec": {"type": "object", "properties": {
                         "name": {"type": "string", "pattern": pattern}}}}}}}]}}


class CrdPatternTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=0)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def test_go_only_syntax_validates_objects(self):
        self.sim.kubectl("create", "-f", "-", input=json.dumps(crd("folds", "(?i)^[a-z]+$")))
        self.sim.kubectl("wait", "--for=condition=established", "crd/folds.patterns.berth.dev", "--timeout=10s")
        obj = {"apiVersion": "patterns.berth.dev/v1", "kind": "Fold", "metadata": {"name": "a", "namespace": "default"},
               "spec": {"name": "MiXeD"}}
        self.sim.kubectl("create", "-f", "-", input=json.dumps(obj))
        obj["metadata"]["name"] = "b"
        obj["spec"]["name"] = "has-dash"
        with self.assertRaises(CommandError) as bad:
            self.sim.kubectl("create", "-f", "-", input=json.dumps(obj))
        self.assertIn("spec.name: Invalid value: \"has-dash\": spec.name in body should match '(?i)^[a-z]+$'",
                      bad.exception.result.stderr)

    def test_a_pattern_go_cannot_compile_is_refused_with_the_crd(self):
        with self.assertRaises(CommandError) as bad:
            self.sim.kubectl("create", "-f", "-", input=json.dumps(crd("looks", "^(?=a)")))
        self.assertIn("spec.validation.openAPIV3Schema.properties[spec].properties[name].pattern: Invalid value: "
                      "\"^(?=a)\": must be a valid regular expression, but isn't: error parsing regexp: invalid or "
                      "unsupported Perl syntax: `(?=`", bad.exception.result.stderr)
        self.assertNotIn("looks.patterns.berth.dev", self.sim.kubectl("get", "crd", "-o", "name"))


if __name__ == "__main__":
    unittest.main()
