"""berth-manager's container image: scripts/image.sh builds it with buildah (no daemon, FROM scratch) into an OCI
archive; the image's own berth-manager then runs under `buildah run --isolation chroot` against kubesim, reaches
/readyz and places a Reservation. What that proves: the image's files (binary, the libraries ldd named, the loader,
CA bundle, passwd) are enough to run as 65532 with no host library mapped. What it does not: a container runtime's
namespaces and cgroups (chroot isolation shares the host's network, which is how it reaches kubesim on loopback).
The Dockerfile cannot be built here (no base image can be pulled); its builder's package list and its runtime stage
are checked against scripts/setup.sh and the built image instead."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import unittest

import yaml

from kubesim_fixture import BIN, ROOT, BerthManager, Kubesim, wait_until

IMAGE_SH = os.path.join(ROOT, "scripts", "image.sh")
MAX_BYTES = 40 * 1000 * 1000  # the target: 40 MB
MANAGER_IN_IMAGE = "/usr/local/bin/berth-manager"


def chart_default_image():
    with open(os.path.join(ROOT, "charts", "berth", "values.yaml")) as f:
        values = yaml.safe_load(f)
    with open(os.path.join(ROOT, "charts", "berth", "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    return f"{values['image']['repository']}:{values['image']['tag'] or chart['appVersion']}"


def build_image(out_dir):
    env = dict(os.environ, BERTH_IMAGE_BINARY=os.path.join(BIN, "berth-manager"))
    env.pop("BERTH_IMAGE", None)
    result = subprocess.run([IMAGE_SH, out_dir], capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        raise AssertionError(f"scripts/image.sh exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


class OciArchive:
    """The OCI image layout inside the archive scripts/image.sh writes."""

    def __init__(self, path):
        self.tar = tarfile.open(path)

    def blob(self, digest):
        algo, hexdigest = digest.split(":")
        return self.tar.extractfile(f"blobs/{algo}/{hexdigest}").read()

    def index(self):
        return json.loads(self.tar.extractfile("index.json").read())

    def manifest_descriptor(self):
        manifests = self.index()["manifests"]
        assert len(manifests) == 1, manifests
        return manifests[0]

    def manifest(self):
        return json.loads(self.blob(self.manifest_descriptor()["digest"]))

    def config(self):
        return json.loads(self.blob(self.manifest()["config"]["digest"]))

    def layer_members(self):
        import io
        layers = self.manifest()["layers"]
        members = []
        for layer in layers:
            with tarfile.open(fileobj=io.BytesIO(self.blob(layer["digest"]))) as t:
                members += [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
        return members


def ldd_paths(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    paths = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>" and parts[2].startswith("/"):
            paths.add(parts[2])
        elif parts and parts[0].startswith("/"):
            paths.add(parts[0])
    return paths


class ImageContentsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="berth-image-")
        cls.output = build_image(cls.dir)
        cls.archive_path = os.path.join(cls.dir, "berth-manager.oci.tar")
        cls.oci = OciArchive(cls.archive_path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_image_is_within_40_mb_packed_and_unpacked(self):
        archive = os.path.getsize(self.archive_path)
        unpacked = sum(m.size for m, _ in self.oci.layer_members() if m.isfile())
        print(f"\nimage: OCI archive {archive} bytes, unpacked files {unpacked} bytes (limit {MAX_BYTES})")
        if any("libasan" in p for p in ldd_paths(os.path.join(BIN, "berth-manager"))):
            self.skipTest("sanitizer build: the image holds the instrumented binary and runtime; the limit is for "
                          "release builds")
        self.assertLessEqual(archive, MAX_BYTES)
        self.assertLessEqual(unpacked, MAX_BYTES)
        with open(os.path.join(self.dir, "rootfs-bytes")) as f:
            self.assertGreaterEqual(int(f.read()), unpacked)  # du counts directories too

    def test_config_runs_the_manager_as_65532_from_scratch_tagged_as_the_charts_default(self):
        config = self.oci.config()["config"]
        self.assertEqual(config["User"], "65532:65532")
        self.assertEqual(config["Entrypoint"], [MANAGER_IN_IMAGE])
        self.assertNotIn("Cmd", config)
        self.assertEqual(len(self.oci.manifest()["layers"]), 1, "FROM scratch: one layer, no base image")
        self.assertEqual(self.oci.manifest_descriptor()["annotations"]["org.opencontainers.image.ref.name"],
                         chart_default_image())
        self.assertIn(f"image: {chart_default_image()}", self.output)

    def test_printed_digest_is_the_manifests_and_a_rebuild_reproduces_it(self):
        with open(os.path.join(self.dir, "digest")) as f:
            digest = f.read().strip()
        manifest_bytes = self.oci.blob(self.oci.manifest_descriptor()["digest"])
        self.assertEqual(digest, "sha256:" + hashlib.sha256(manifest_bytes).hexdigest())
        self.assertIn(f"image: digest {digest}", self.output)
        again = tempfile.mkdtemp(prefix="berth-image-again-")
        self.addCleanup(shutil.rmtree, again, True)
        build_image(again)
        with open(os.path.join(again, "digest")) as f:
            self.assertEqual(f.read().strip(), digest)

    def test_layer_holds_the_binary_exactly_its_libraries_and_the_user(self):
        members = self.oci.layer_members()
        files = {"/" + m.name.lstrip("./"): (m, data) for m, data in members if m.isfile()}
        expected = {MANAGER_IN_IMAGE, "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
                    "/etc/ssl/certs/ca-certificates.crt"} | ldd_paths(os.path.join(BIN, "berth-manager"))
        self.assertEqual(set(files), expected)
        for path, (member, _) in files.items():
            self.assertEqual((member.uid, member.gid), (0, 0), path)
            self.assertFalse(member.mode & 0o6000, f"{path} is setuid/setgid")
        self.assertTrue(files[MANAGER_IN_IMAGE][0].mode & 0o001, "the binary is executable by others")
        self.assertIn("nonroot:x:65532:65532:", files["/etc/passwd"][1].decode())
        tmp = [m for m, _ in members if m.name.strip("./") == "tmp"]
        self.assertEqual(len(tmp), 1)
        self.assertEqual(tmp[0].mode & 0o7777, 0o1777)


def manager_processes(port):
    """pids of processes running the image's berth-manager with this metrics port."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and argv[0] == MANAGER_IN_IMAGE.encode() and any(str(port).encode() in a for a in argv):
            pids.append(int(pid))
    return pids


class ImageRunTest(unittest.TestCase):
    """The image's berth-manager under `buildah run --isolation chroot` against kubesim."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="berth-image-run-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        build_image(self.dir)
        self.buildah = ["buildah", "--root", os.path.join(self.dir, "storage"), "--runroot",
                        os.path.join(self.dir, "run"), "--storage-driver", "vfs"]
        archive = os.path.join(self.dir, "berth-manager.oci.tar")
        self.container = subprocess.run(self.buildah + ["from", "--quiet", f"oci-archive:{archive}"], capture_output=True,
                                        text=True, check=True).stdout.strip()
        self.addCleanup(subprocess.run, self.buildah + ["rm", self.container], capture_output=True)
        self.sim = Kubesim(nodes=2)
        self.addCleanup(self.sim.stop)
        self.sim.install_crds()

    def test_image_manager_reaches_ready_and_places_a_reservation(self):
        # The kubeconfig must be readable by 65532 inside the container: a copy in a world-readable directory.
        shared = os.path.join(self.dir, "shared")
        os.mkdir(shared, 0o755)
        kubeconfig = os.path.join(shared, "kubeconfig")
        shutil.copy(self.sim.kubeconfig, kubeconfig)
        os.chmod(kubeconfig, 0o644)
        mgr = BerthManager(self.sim, start=False)
        mgr.args = (self.buildah + ["run", "--isolation", "chroot", "-v", f"{shared}:{shared}:ro", self.container, "--",
                                    MANAGER_IN_IMAGE, "--kubeconfig", kubeconfig] +
                    mgr.args[3:])  # the fixture's args after "BIN/berth-manager --kubeconfig PATH"
        self.assertTrue(mgr.args[mgr.args.index(MANAGER_IN_IMAGE) + 3].startswith("--metrics-bind-address"))
        mgr.start(wait_ready=False)
        self.addCleanup(self.stop_manager, mgr)
        mgr.wait_ready(timeout=60)

        pids = wait_until(lambda: manager_processes(mgr.metrics_port), timeout=10,
                          message="the image's berth-manager process")
        self.assertEqual(len(pids), 1, pids)
        pid = pids[0]
        with open(f"/proc/{pid}/status") as f:
            status = f.read()
        self.assertRegex(status, r"\nUid:\t65532\t65532\t65532\t65532\n")
        self.assertRegex(status, r"\nGid:\t65532\t65532\t65532\t65532\n")
        # The process's root is the container's (buildah's chroot isolation bind-mounts the rootfs in a mount
        # namespace of its own), and every file it mapped (binary, loader, libraries) lies in it.
        container_root = os.readlink(f"/proc/{pid}/root")
        self.assertNotEqual(container_root.rstrip("/"), "")
        self.assertTrue(os.path.samefile(f"/proc/{pid}/root{MANAGER_IN_IMAGE}", f"/proc/{pid}/exe"))
        with open(f"/proc/{pid}/maps") as f:
            mapped = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
        mapped_files = {p for p in mapped if p.startswith("/")}
        self.assertTrue(any(p.endswith("/libc.so.6") for p in mapped_files), mapped_files)
        outside = sorted(p for p in mapped_files if not p.startswith(container_root + "/"))
        self.assertEqual(outside, [], "files mapped from outside the image")

        with open(os.path.join(ROOT, "e2e", "testdata", "reservation-demo.yaml")) as f:
            self.sim.apply_text(f.read())
        placed = wait_until(lambda: (lambda r: r if r.get("status", {}).get("phase") == "Available" else None)(
            json.loads(self.sim.kubectl("get", "reservation", "reservation-demo", "-o", "json"))), timeout=30,
            message="reservation-demo Available")
        nodes = self.sim.kubectl("get", "nodes", "-o", "jsonpath={.items[*].metadata.name}").split()
        self.assertIn(placed["status"]["nodeName"], nodes)
        log = mgr.log_text()
        self.assertIn('"msg":"starting berth-manager"', log)
        # controller-runtime's start sequence, from the image's binary.
        self.assertIn('"msg":"Starting Controller","controller":"reservation"', log)
        self.assertIn('"msg":"Starting workers","controller":"reservation","worker count":"4"', log)
        self.assertIn('"msg":"Starting EventSource","source":"kind source: /api/v1/pods', log)

        # SIGTERM to the container's process, as a runtime stops a container (`buildah run` itself does not pass
        # SIGTERM on: it kills the child); the manager stops cleanly and buildah returns its exit code.
        os.kill(pid, 15)
        code = mgr.proc.wait(timeout=20)
        mgr.stop()
        with open(mgr.log_path) as f:
            log = f.read()
        self.assertEqual(code, 0, log)
        self.assertIn('"msg":"stopped cleanly"', log)
        self.assertEqual(manager_processes(mgr.metrics_port), [])

    def stop_manager(self, mgr):
        port = mgr.metrics_port
        mgr.stop(timeout=20)
        for pid in manager_processes(port):  # buildah killed before it could forward the signal
            os.kill(pid, 9)


class DockerfileTest(unittest.TestCase):
    def read(self, *parts):
        with open(os.path.join(ROOT, *parts)) as f:
            return f.read()

    def setup_sh_array(self, name):
        m = re.search(rf"^{name}=\((.*?)^\)", self.read("scripts", "setup.sh"), re.M | re.S)
        self.assertIsNotNone(m, f"{name}=( ... ) in scripts/setup.sh")
        words = []
        for line in m.group(1).splitlines():
            words += line.split("#")[0].split()
        return words

    def test_builder_installs_exactly_setup_sh_build_packages(self):
        dockerfile = self.read("Dockerfile")
        m = re.search(r"apt-get install -y --no-install-recommends((?:[^&]|&(?!&))*)&&", dockerfile)
        self.assertIsNotNone(m)
        installed = [w for w in m.group(1).replace("\\", " ").split()]
        build_debs = self.setup_sh_array("build_debs")
        self.assertEqual(sorted(installed), sorted(build_debs))
        self.assertEqual(len(installed), len(set(installed)))
        self.assertIn('"${build_debs[@]}"', self.setup_sh_array("debs"), "setup.sh installs the build packages too")
        self.assertIn("FROM debian:bookworm AS build", dockerfile)

    def test_runtime_stage_is_the_image_sh_layout(self):
        dockerfile = self.read("Dockerfile")
        runtime = dockerfile[dockerfile.index("FROM scratch"):]
        self.assertIn("scripts/image-rootfs.sh build/bin/berth-manager /rootfs", dockerfile)
        self.assertIn("image-rootfs.sh", self.read("scripts", "image.sh"))
        self.assertIn("COPY --from=build /rootfs/ /", runtime)
        self.assertIn("USER 65532:65532", runtime)
        self.assertIn(f'ENTRYPOINT ["{MANAGER_IN_IMAGE}"]', runtime)
        for ignored in (".tools", "build", "build-*"):
            self.assertIn(ignored, self.read(".dockerignore").split())


if __name__ == "__main__":
    unittest.main()
