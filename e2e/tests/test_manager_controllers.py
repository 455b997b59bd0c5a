"""berth-manager's --controllers and --provisioning-classes: kube-controller-manager's switch syntax, unknown names and
classes refused with exit code 2 before connecting, and a disabled controller never set up (no queue or reconcile
metrics of its own, and the cluster shows it does nothing)."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from kubesim_fixture import BIN, BerthManager, Kubesim, wait_until

MANAGER = os.path.join(BIN, "berth-manager")
MANAGER_AGENT_PREFIX = "berth/"  # clientgo-shim's default user agent


def run_manager(*args):
    return subprocess.run([MANAGER, *args], capture_output=True, text=True, timeout=30)


class ControllerFlagsTest(unittest.TestCase):
    def test_unknown_controller_names_exit_2_naming_the_known_ones(self):
        for value, bad in (("bogus", "bogus"), ("*,-schedular", "schedular"), ("reservation,Scheduler", "Scheduler")):
            with self.subTest(value=value):
                result = run_manager("--controllers", value, "--kubeconfig", "/nonexistent", "--help")
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stderr.strip(),
                                 f'berth-manager: --controllers: "{bad}" is not in the list of known controllers '
                                 "(known: reservation, scheduler, resourcepolicy, provisioningrequest, migration, rescheduler)")

    def test_empty_entries_and_selections_that_run_nothing_exit_2(self):
        for value, message in (("", "empty entry"), ("*,,scheduler", "empty entry"),
                               ("-reservation,-scheduler,-resourcepolicy,-provisioningrequest,-migration,-rescheduler",
                                "enables no controller")):
            with self.subTest(value=value):
                result = run_manager(f"--controllers={value}")
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)

    def test_provisioning_classes_are_validated(self):
        result = run_manager("--provisioning-classes=queued-provisioning.gke.io")
        self.assertEqual(result.returncode, 2)
        self.assertIn('berth does not implement class "queued-provisioning.gke.io"', result.stderr)
        result = run_manager("--provisioning-classes", "check-capacity.kubernetes.io")
        self.assertEqual(result.returncode, 2)
        self.assertIn('use "check-capacity.autoscaling.x-k8s.io"', result.stderr)
        self.assertEqual(run_manager("--provisioning-classes=", "--help").returncode, 2)
        ok = run_manager("--provisioning-classes=check-capacity.autoscaling.x-k8s.io", "--controllers=*,-scheduler",
                         "--help")
        self.assertEqual(ok.returncode, 0, ok.stderr)

    def test_help_lists_the_controllers(self):
        out = run_manager("--help").stdout
        self.assertIn("--controllers strings", out)
        self.assertIn("reservation, scheduler, resourcepolicy, provisioningrequest, migration, rescheduler "
                      "(all on by default)", out)
        self.assertIn("--provisioning-classes strings", out)


class DisabledControllersTest(unittest.TestCase):
    def setUp(self):
        audit_dir = tempfile.mkdtemp(prefix="berth-audit-")
        self.addCleanup(shutil.rmtree, audit_dir, True)
        self.audit_path = os.path.join(audit_dir, "audit.log")
        self.sim = Kubesim(nodes=1, audit_log=self.audit_path)
        self.addCleanup(self.sim.stop)
        self.sim.install_crds()

    def manager_requests(self):
        with open(self.audit_path) as f:
            lines = [json.loads(l) for l in f if l.strip()]
        return [l for l in lines if l["userAgent"].startswith(MANAGER_AGENT_PREFIX)]

    def test_only_the_reservation_controller_runs_without_the_scheduler(self):
        # A pod for berth's scheduler, then a reservation that expires: the reservation controller acts on it,
        # and by then the scheduler would long have bound the pod had it been running.
        self.sim.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waits", "namespace": "default"},
            "spec": {"schedulerName": "koord-scheduler", "containers": [{"name": "c", "image": "x"}]}}))
        # The reservation names no scheduler berth serves, so the lifecycle controller needs the flag to act.
        mgr = BerthManager(self.sim, extra_args=["--controllers=*,-scheduler", "--reservation-lifecycle-all-schedulers",
                                                 "true"])
        self.addCleanup(mgr.stop)
        self.sim.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": "r"},
            "spec": {"ttl": "1s", "owners": [{"object": {"name": "x"}}],
                     "template": {"spec": {"containers": [{"name": "c"}]}}}}))
        wait_until(lambda: self.sim.kubectl("get", "reservation", "r", "-o", "jsonpath={.status.phase}") == "Failed",
                   timeout=15, message="the reservation to expire")
        pod = json.loads(self.sim.kubectl("get", "pod", "waits", "-o", "json"))
        self.assertNotIn("nodeName", pod["spec"])
        # Non-resource requests (discovery) carry no resource.
        seen = {(l["verb"], l.get("resource", ""), l.get("subresource", "")) for l in self.manager_requests()}
        self.assertIn(("watch", "reservations", ""), seen)
        self.assertNotIn(("create", "pods", "binding"), seen)
        self.assertIn("controller disabled", mgr.log_text())

    def test_disabled_controllers_are_never_set_up(self):
        # Setup is what creates a controller's informers, queue and metrics (unit-tested in
        # controller_registry_test); its queue and reconcile metrics show whether it ran.
        expected = {"*": {"reservation", "pod-scheduler", "reservation-scheduler", "provisioningrequest",
                          "resourcepolicy", "rescheduler"},
                    "*,-scheduler": {"reservation", "provisioningrequest", "resourcepolicy", "rescheduler"},
                    "*,-resourcepolicy,-rescheduler": {"reservation", "pod-scheduler", "reservation-scheduler",
                                                       "provisioningrequest"},
                    "-reservation,scheduler": {"pod-scheduler", "reservation-scheduler"},
                    "provisioningrequest": {"provisioningrequest"}}
        for value, running in expected.items():
            with self.subTest(controllers=value):
                mgr = BerthManager(self.sim, extra_args=[f"--controllers={value}"])
                try:
                    self.assertEqual(self.controllers_in_metrics(mgr) & {"reservation", "pod-scheduler",
                                                                         "reservation-scheduler",
                                                                         "provisioningrequest", "resourcepolicy",
                                                                         "rescheduler"},
                                     running)
                finally:
                    mgr.stop()

    @staticmethod
    def controllers_in_metrics(mgr):
        names = set()
        for (name, labels) in mgr.metrics():
            labels = dict(labels)
            if name.startswith("controller_runtime_") and "controller" in labels:
                names.add(labels["controller"])
            if name.startswith("workqueue_") and "name" in labels:
                names.add(labels["name"])
        return names


class BooleanFlagsTest(unittest.TestCase):
    """Every boolean flag reads as Go's flag package (controller-runtime's main, pflag) reads it: named alone it is
    true, so an operator's `extraArgs: [--migration-evict-bare-pods]` starts berth-manager instead of exiting 2."""

    def boolean_flags(self):
        help_text = run_manager("--help").stdout
        typed = set(re.findall(r"(--[a-z0-9-]+) bool\b", help_text))
        untyped = {"--leader-elect", "--metrics-secure", "--zap-devel"}  # controller-runtime prints these bare
        for flag in untyped:
            self.assertRegex(help_text, rf"\n  {flag} +\S")
        return sorted(typed | untyped)

    def test_every_boolean_flag_named_alone_is_accepted(self):
        flags = self.boolean_flags()
        self.assertGreaterEqual(len(flags), 12, flags)
        for flag in flags:
            with self.subTest(flag=flag):
                # Followed by another flag, which must still be read as a flag (not as the boolean's value).
                result = run_manager(flag, "--reservation-workers=3", "--help")
                self.assertEqual(result.returncode, 0, result.stderr)

    def test_every_boolean_flag_takes_go_values_and_refuses_others(self):
        for flag in self.boolean_flags():
            with self.subTest(flag=flag):
                for value in ("true", "false", "1", "0", "T", "False"):
                    result = run_manager(f"{flag}={value}", "--help")
                    self.assertEqual(result.returncode, 0, f"{flag}={value}: {result.stderr}")
                result = run_manager(f"{flag}=yes", "--help")
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(f'invalid boolean value "yes" for {flag}', result.stderr)

    def test_the_lifecycle_switch_named_alone_takes_effect(self):
        sim = Kubesim(nodes=1)
        self.addCleanup(sim.stop)
        sim.install_crds()
        mgr = BerthManager(sim, extra_args=["--reservation-lifecycle-all-schedulers"])
        self.addCleanup(mgr.stop)
        # Another scheduler's reservation: only the switch lets berth's lifecycle controller expire it.
        sim.kubectl("create", "-f", "-", input=json.dumps({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "Reservation", "metadata": {"name": "other"},
            "spec": {"ttl": "1s", "owners": [{"object": {"name": "x"}}],
                     "template": {"spec": {"schedulerName": "other-scheduler", "containers": [{"name": "c"}]}}}}))
        wait_until(lambda: sim.get_json("/apis/scheduling.koordinator.sh/v1alpha1/reservations/other")
                   .get("status", {}).get("phase") == "Failed", timeout=30,
                   message="the other scheduler's reservation to expire")


class LoggingFlagsTest(unittest.TestCase):
    """controller-runtime's --zap-* flags on the real binary."""

    def test_malformed_values_exit_2_naming_flag_and_value(self):
        for arg, message in (("--zap-log-level=loud", 'invalid value "loud" for flag --zap-log-level: invalid log level'),
                             ("--zap-encoder=text", 'invalid value "text" for flag --zap-encoder: invalid encoder value'),
                             ("--zap-stacktrace-level=warn", "invalid stacktrace level"),
                             ("--log-level=verbose", 'invalid value "verbose" for flag --log-level'),
                             ("--migration-workers=4x", 'invalid --migration-workers "4x": want an integer from 1 to 1024'),
                             ("--migration-workers=0", 'invalid --migration-workers "0"'),
                             ("--reservation-workers=4x",
                              'invalid --reservation-workers "4x": want an integer from 1 to 1024'),
                             ("--reservation-workers=", 'invalid --reservation-workers ""'),
                             ("--prefer-avoid-pods-max=-3", 'invalid --prefer-avoid-pods-max "-3"'),
                             ("--prefer-avoid-pods-max=99999999999", 'invalid --prefer-avoid-pods-max "99999999999"')):
            with self.subTest(arg=arg):
                result = run_manager(arg, "--help")
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)

    def test_console_encoder_and_time_encoding_reach_the_lifecycle_lines(self):
        sim = Kubesim(nodes=1)
        self.addCleanup(sim.stop)
        sim.install_crds()
        mgr = BerthManager(sim, extra_args=["--zap-encoder=console", "--zap-time-encoding=rfc3339",
                                            "--zap-log-level", "info"])
        self.addCleanup(mgr.stop)
        line = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\tINFO\treservation\tStarting workers\t'
                          r'\{"controller":"reservation","worker count":"4"\}$', re.M)
        wait_until(lambda: line.search(mgr.log_text()), timeout=20, message="a console 'Starting workers' line")
        self.assertNotIn('{"level"', mgr.log_text())


if __name__ == "__main__":
    unittest.main()
