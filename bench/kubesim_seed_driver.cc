// bench/kubesim_seed_driver.cc
//
// Measures: kubesim start-up with a big --seed-file. Writes N realistic Running pods (~3 KB of
// JSON each, bound to nodes) into a temporary directory in each format --seed-file reads, then
// per format starts the kubesim binary with --nodes M --seed-file F and times it to "serving"
// (its stderr line), reading peak RSS (VmHWM) and RSS (VmRSS) from /proc/<pid>/status. RSS per
// stored pod is (RSS − RSS of the same kubesim without a seed file) / N.
// Formats: json (newline-separated objects), list (kubectl get -o json: one List, "kind" after
// "items", so the items wait for the kind), podlist (a v1 PodList whose items carry no
// apiVersion/kind, as kube-apiserver returns them), yaml (multi-document).
// Run:      build/bin/kubesim_seed_driver --pods 150000 --nodes 5000 [--formats json,list,podlist,yaml]
//           [--kubesim build/bin/kubesim] [--kubelet 1] [--keep-files 1]
// Prints one JSON line per format, plus the machine (nproc, load average) and kubesim's CPU time
// to ready (wall time on a shared machine includes waiting for a core). Traffic: none (kubesim binds 127.0.0.1).
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/base/json.h"

extern char** environ;

using namespace berth;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

// A Running pod as kube-apiserver would hold it after the scheduler and kubelet: nodeName,
// status with conditions, container status, IPs. About 3 KB as compact JSON.
std::string RunningPodJson(int i, int nodes, bool with_type_meta) {
  std::string n = std::to_string(i);
  std::string app = "app-" + std::to_string(i % 100);
  std::string node = "node-" + std::to_string(i % nodes);
  std::string ip = "10.244." + std::to_string((i >> 8) & 0xFF) + "." + std::to_string(i & 0xFF);
  std::string ts = "2026-11-26T10:00:00Z";
  return std::string("{") + (with_type_meta ? R"("apiVersion":"v1","kind":"Pod",)" : "") +
         R"("metadata":{"name":"pod-)" + n + R"(","namespace":"default","generateName":")" + app +
         R"(-5d8f7c9b-","labels":{"app":")" + app + R"(","tier":"backend","pod-template-hash":"5d8f7c9b)" +
         std::to_string(i % 10) +
         R"("},"annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"9102","kubectl.kubernetes.io/restartedAt":")" +
         ts + R"("}},)"
         R"("spec":{"nodeName":")" + node +
         R"(","serviceAccountName":"default","schedulerName":"default-scheduler","priority":0,)"
         R"("containers":[{"name":"app","image":"registry.example.com/team/app:1.2.3","imagePullPolicy":"IfNotPresent",)"
         R"("ports":[{"containerPort":8080,"name":"http","protocol":"TCP"}],)"
         R"("env":[{"name":"LOG_LEVEL","value":"info"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],)"
         R"("resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"500m","memory":"256Mi"}},)"
         R"("readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":10},)"
         R"("livenessProbe":{"httpGet":{"path":"/livez","port":8080},"periodSeconds":20,"failureThreshold":3},)"
         R"("volumeMounts":[{"name":"config","mountPath":"/etc/app"}]},)"
         R"({"name":"proxy","image":"registry.example.com/mesh/proxy:1.20.1","args":["proxy","sidecar","--domain",)"
         R"("$(POD_NAMESPACE).svc.cluster.local","--log-level=warning"],)"
         R"("ports":[{"containerPort":15090,"name":"http-envoy-prom","protocol":"TCP"}],)"
         R"("resources":{"requests":{"cpu":"10m","memory":"40Mi"},"limits":{"cpu":"2","memory":"1Gi"}}}],)"
         R"("tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},)"
         R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],)"
         R"("volumes":[{"name":"config","configMap":{"name":"app-config"}}]},)"
         R"("status":{"phase":"Running","hostIP":"10.0.0.1","podIP":")" + ip + R"(","podIPs":[{"ip":")" + ip +
         R"("}],"startTime":")" + ts + R"(","qosClass":"Burstable","conditions":[)"
         R"({"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":")" + ts + R"("},)"
         R"({"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":")" + ts + R"("},)"
         R"({"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":")" + ts + R"("},)"
         R"({"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":")" + ts + R"("}],)"
         R"("containerStatuses":[{"name":"app","ready":true,"started":true,"restartCount":0,)"
         R"("image":"registry.example.com/team/app:1.2.3","imageID":"registry.example.com/team/app@sha256:)"
         R"(4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",)"
         R"("containerID":"containerd://9a3ecbe5ed12ab4d8e11ba873c2f11161202b9454f53cda18c2baa0c0354bb5f)" +
         std::to_string(i % 10) + R"(","state":{"running":{"startedAt":")" + ts + R"("}}},)"
         R"({"name":"proxy","ready":true,"started":true,"restartCount":0,"image":"registry.example.com/mesh/proxy:1.20.1",)"
         R"("imageID":"registry.example.com/mesh/proxy@sha256:0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b9454f53cda18c2baa",)"
         R"("containerID":"containerd://5ed12ab4d8e11ba873c2f11161202b9454f53cda18c2baa0c0354bb5f9a3ecbe",)"
         R"("state":{"running":{"startedAt":")" + ts + R"("}}}]}})";
}

// WriteSeed writes `pods` pods in `format` to `path`; returns the file size.
uintmax_t WriteSeed(const std::string& path, const std::string& format, int pods, int nodes) {
  std::ofstream out(path, std::ios::binary);
  if (format == "list") out << R"({"apiVersion":"v1","items":[)";
  if (format == "podlist") out << R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[)";
  for (int i = 0; i < pods; ++i) {
    if (format == "yaml") {
      auto doc = json::Parse(RunningPodJson(i, nodes, true));
      out << "---\n" << shim::JsonToYaml(*doc);
    } else {
      if ((format == "list" || format == "podlist") && i > 0) out << ",\n";
      out << RunningPodJson(i, nodes, format != "podlist");
      if (format == "json") out << "\n";
    }
  }
  if (format == "list") out << R"(],"kind":"List","metadata":{"resourceVersion":""}})" << "\n";
  if (format == "podlist") out << "]}\n";
  out.close();
  return fs::file_size(path);
}

struct ProcStatus {
  long hwm_kb = 0, rss_kb = 0;
  double cpu_s = 0;  // user + system time so far: the load's cost apart from other processes
};

ProcStatus ReadProcStatus(pid_t pid) {
  ProcStatus s;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) s.hwm_kb = std::atol(line.c_str() + 6);
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kb = std::atol(line.c_str() + 6);
  }
  // /proc/<pid>/stat: utime and stime are fields 14 and 15, after the parenthesised command.
  std::ifstream stat_in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_in)), std::istreambuf_iterator<char>());
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::atol(field.c_str());
  }
  s.cpu_s = static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return s;
}

struct Run {
  bool ok = false;
  double ready_s = 0;
  ProcStatus status;
  std::string log;
};

// StartKubesim runs kubesim until it reports serving (or exits, or `timeout` passes), reads its
// /proc status there, then stops it with SIGTERM.
Run StartKubesim(const std::string& binary, std::vector<std::string> args, std::chrono::seconds timeout) {
  Run run;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return run;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> argv;
  args.insert(args.begin(), binary);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  auto t0 = Clock::now();
  int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (rc != 0) {
    run.log = "cannot start " + binary;
    close(pipe_fds[0]);
    return run;
  }
  auto deadline = t0 + timeout;
  char buf[4096];
  while (run.log.find("serving on") == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) break;
    ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n <= 0) break;  // kubesim exited
    run.log.append(buf, static_cast<size_t>(n));
  }
  run.ready_s = std::chrono::duration<double>(Clock::now() - t0).count();
  run.ok = run.log.find("serving on") != std::string::npos;
  if (run.ok) run.status = ReadProcStatus(pid);
  kill(pid, SIGTERM);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  close(pipe_fds[0]);
  return run;
}

// LoadAverage: the 1-minute load average, to tell a slow load from a busy machine.
double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double avg = 0;
  in >> avg;
  return avg;
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int pods = bench::FlagInt(argc, argv, "--pods", 150000);
  const int nodes = bench::FlagInt(argc, argv, "--nodes", 5000);
  const bool kubelet = bench::FlagInt(argc, argv, "--kubelet", 0) != 0;
  const int timeout_s = bench::FlagInt(argc, argv, "--timeout-seconds", 600);
  const auto formats = Split(bench::FlagString(argc, argv, "--formats", "json,list,podlist,yaml"));
  const std::string binary =
      bench::FlagString(argc, argv, "--kubesim", (fs::path(argv[0]).parent_path() / "kubesim").string());
  const bool keep_files = bench::FlagInt(argc, argv, "--keep-files", 0) != 0;  // for inspection
  const long nproc = sysconf(_SC_NPROCESSORS_ONLN);

  char dir_template[] = "/tmp/kubesim-seed-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = dir_template;
  std::vector<std::string> base_args = {"--port", "0", "--nodes", std::to_string(nodes), "--history-window", "50000"};
  if (!kubelet) base_args.push_back("--no-kubelet");

  // The same kubesim without a seed file: what the pods add is measured against it.
  Run baseline = StartKubesim(binary, base_args, std::chrono::seconds(timeout_s));
  if (!baseline.ok) {
    std::cerr << "baseline kubesim did not start:\n" << baseline.log << "\n";
    return 1;
  }
  int failures = 0;
  for (const std::string& format : formats) {
    std::string path = dir + "/seed-" + format + (format == "yaml" ? ".yaml" : ".json");
    uintmax_t bytes = WriteSeed(path, format, pods, nodes);
    auto args = base_args;
    args.insert(args.end(), {"--seed-file", path});
    Run run = StartKubesim(binary, args, std::chrono::seconds(timeout_s));
    if (!keep_files) fs::remove(path);
    if (!run.ok) {
      std::cerr << format << ": kubesim did not become ready:\n" << run.log << "\n";
      ++failures;
      continue;
    }
    double load_s = run.ready_s - baseline.ready_s;
    std::printf(
        "{\"bench\":\"kubesim_seed\",\"nproc\":%ld,\"format\":\"%s\",\"pods\":%d,\"nodes\":%d,\"kubelet\":%s,"
        "\"seed_mb\":%.1f,\"ready_s\":%.2f,\"baseline_ready_s\":%.2f,\"load_s\":%.2f,\"pods_per_s\":%.0f,"
        "\"kubesim_cpu_s\":%.2f,\"load_avg_1m\":%.1f,"
        "\"peak_rss_mb\":%.1f,\"rss_mb\":%.1f,\"baseline_rss_mb\":%.1f,\"rss_per_pod_bytes\":%.0f}\n",
        nproc, format.c_str(), pods, nodes, kubelet ? "true" : "false", bytes / 1048576.0, run.ready_s,
        baseline.ready_s, load_s, pods / (load_s > 0 ? load_s : 1e-9), run.status.cpu_s, LoadAverage(), run.status.hwm_kb / 1024.0,
        run.status.rss_kb / 1024.0, baseline.status.rss_kb / 1024.0,
        (run.status.rss_kb - baseline.status.rss_kb) * 1024.0 / pods);
    std::fflush(stdout);
  }
  if (keep_files) {
    std::cerr << "seed files kept in " << dir << "\n";
  } else {
    fs::remove_all(dir);
  }
  return failures == 0 ? 0 : 1;
}
