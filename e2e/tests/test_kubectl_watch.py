"""Real kubectl against kubesim: `kubectl get -w` streams changes as they happen, and `--chunk-size` pages
through a LIST with limit/continue."""
import re
import unittest

from kubesim_fixture import KUBECTL, KUBECTL134, Kubesim

KUBECTLS = (("v1.32", KUBECTL), ("v1.34", KUBECTL134))


def pod_yaml(name, namespace, node=None):
    text = (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
            f"spec:\n  containers:\n  - name: main\n    image: busybox\n")
    if node:
        text += f"  nodeName: {node}\n"
    return text


class KubectlWatch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sim = Kubesim(nodes=2)

    @classmethod
    def tearDownClass(cls):
        cls.sim.stop()

    def namespace(self, name):
        # `-f` (JSON on the wire), not `kubectl create namespace` (protobuf; kubesim-bugs.md B3).
        self.sim.apply_text(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n")
        return name

    def test_get_pods_watch_streams_add_modify_and_delete_as_table_rows(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                ns = self.namespace(f"watch-{version.replace('.', '-')}")
                self.sim.apply_text(pod_yaml("before", ns))
                with self.sim.background(kubectl, "get", "pods", "-n", ns, "-w") as bg:
                    header = bg.wait_for_line(lambda l: l.startswith("NAME"))
                    self.assertEqual(header.split(), ["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
                    bg.wait_for_line(lambda l: l.split()[:1] == ["before"])
                    self.sim.apply_text(pod_yaml("streamed", ns, node="node-0"))
                    row = bg.wait_for_line(lambda l: l.split()[:1] == ["streamed"])
                    self.assertEqual(row.split()[3], "0")
                    # The simulated kubelet makes it Running and Ready; the watch streams that change.
                    row = bg.wait_for_line(lambda l: l.split()[:3] == ["streamed", "1/1", "Running"])
                    seen = sum(1 for l in bg.lines if l.split()[:1] == ["streamed"])
                    self.sim.kubectl("label", "pod", "streamed", "-n", ns, "seen=yes")
                    bg.wait_for_line(lambda l: l.split()[:1] == ["streamed"])
                    self.sim.kubectl("delete", "pod", "streamed", "-n", ns, "--wait=false")
                    bg.wait_for_line(lambda l: l.split()[:1] == ["streamed"])
                    self.assertGreaterEqual(sum(1 for l in bg.lines if l.split()[:1] == ["streamed"]), seen + 2)
                    self.assertIsNone(bg.proc.poll(), "the watch must stay open")

    def test_watch_with_output_watch_events_shows_event_types(self):
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                ns = self.namespace(f"events-{version.replace('.', '-')}")
                # A sentinel pod: its initial ADDED line shows the list is done and the watch is being opened.
                self.sim.apply_text(pod_yaml("sentinel", ns))
                with self.sim.background(kubectl, "get", "pods", "-n", ns, "-w", "--output-watch-events") as bg:
                    bg.wait_for_line(lambda l: l.split()[:2] == ["ADDED", "sentinel"])
                    self.sim.apply_text(pod_yaml("evt", ns))
                    added = bg.wait_for_line(lambda l: " evt " in f" {l} ")
                    self.assertEqual(added.split()[:2], ["ADDED", "evt"])
                    self.sim.kubectl("label", "pod", "evt", "-n", ns, "a=b")
                    modified = bg.wait_for_line(lambda l: " evt " in f" {l} ")
                    self.assertEqual(modified.split()[:2], ["MODIFIED", "evt"])
                    self.sim.kubectl("delete", "pod", "evt", "-n", ns, "--wait=false")
                    deleted = bg.wait_for_line(lambda l: l.split()[:2] == ["DELETED", "evt"])
                    self.assertTrue(deleted)
                    self.assertEqual(sum(1 for l in bg.lines if l.split()[:2] == ["ADDED", "evt"]), 1)

    def test_watch_only_sees_the_label_selected_pods(self):
        ns = self.namespace("watch-selected")
        self.sim.apply_text(pod_yaml("sentinel", ns).replace("  namespace:", "  labels: {pick: me}\n  namespace:"))
        with self.sim.background(KUBECTL, "get", "pods", "-n", ns, "-w", "-l", "pick=me",
                                 "--output-watch-events") as bg:
            bg.wait_for_line(lambda l: l.split()[:2] == ["ADDED", "sentinel"])
            self.sim.apply_text(pod_yaml("ignored", ns))
            self.sim.apply_text(pod_yaml("picked", ns).replace("  namespace:", "  labels: {pick: me}\n  namespace:"))
            line = bg.wait_for_line(lambda l: "ADDED" in l)
            self.assertEqual(line.split()[:2], ["ADDED", "picked"])
            # A label change that makes "ignored" match arrives as ADDED for this watcher.
            self.sim.kubectl("label", "pod", "ignored", "-n", ns, "pick=me")
            line = bg.wait_for_line(lambda l: "ignored" in l)
            self.assertEqual(line.split()[:2], ["ADDED", "ignored"])

    def test_watch_of_reservations_prints_printer_columns(self):
        import os
        from kubesim_fixture import ROOT
        self.sim.install_crds()
        with open(os.path.join(ROOT, "e2e", "testdata", "reservation-demo.yaml")) as f:
            demo = f.read()
        self.sim.apply_text(demo.replace("name: reservation-demo", "name: sentinel"))
        with self.sim.background(KUBECTL134, "get", "rsv", "-w") as bg:
            bg.wait_for_line(lambda l: l.startswith("sentinel"))
            self.sim.apply_text(demo)
            line = bg.wait_for_line(lambda l: "reservation-demo" in l)
            self.assertIn("1h", line.split())
            header = [l for l in bg.lines if l.startswith("NAME")]
            self.assertEqual(header[0].split(), ["NAME", "PHASE", "AGE", "NODE", "TTL", "EXPIRES"])

    def test_get_with_chunk_size_pages_through_every_pod(self):
        ns = self.namespace("chunks")
        names = [f"chunk-{i}" for i in range(7)]
        self.sim.apply_text("---\n".join(pod_yaml(n, ns) for n in names))
        for version, kubectl in KUBECTLS:
            with self.subTest(kubectl=version):
                r = self.sim.run(kubectl, "get", "pods", "-n", ns, "--chunk-size", "2", "-v=6")
                lines = r.stdout.splitlines()
                self.assertEqual(lines[0].split(), ["NAME", "READY", "STATUS", "RESTARTS", "AGE"])
                self.assertEqual(sorted(l.split()[0] for l in lines[1:]), names)
                self.assertEqual(sum(1 for l in lines if l.startswith("NAME")), 1)
                # v1.32 logs "GET https://... 200 OK", v1.34 logs verb="GET" url="https://..." status="200 OK".
                urls = re.findall(rf'https://[^\s"]+/api/v1/namespaces/{ns}/pods\?[^\s"]+', r.stderr)
                self.assertEqual(len(urls), 4, "7 pods in pages of 2 take 4 requests:\n" + r.stderr)
                self.assertEqual(sum(1 for u in urls if "limit=2" in u), 4, r.stderr)
                self.assertNotIn("continue=", urls[0])
                tokens = [re.search(r"[?&]continue=([^&]+)", u).group(1) for u in urls[1:]]
                self.assertEqual(len(set(tokens)), 3, "each page has its own continue token")
                self.assertEqual(r.stderr.count("200 OK"), 4, r.stderr)

    def test_chunk_size_with_json_output_returns_all_items_in_one_list(self):
        import json
        ns = self.namespace("chunks-json")
        self.sim.apply_text("---\n".join(pod_yaml(f"j-{i}", ns) for i in range(5)))
        out = json.loads(self.sim.kubectl("get", "pods", "-n", ns, "--chunk-size", "2", "-o", "json"))
        self.assertEqual(sorted(p["metadata"]["name"] for p in out["items"]), [f"j-{i}" for i in range(5)])


if __name__ == "__main__":
    unittest.main()
