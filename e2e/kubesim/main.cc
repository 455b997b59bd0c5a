// kubesim: a Kubernetes API-server emulator for berth's tests, demo and benchmarks.
// Usage: kubesim --port 0 --kubeconfig-out PATH [--nodes N --node-cpu 8 --node-memory 32Gi]
//                [--seed-file objects.yaml] [fault and timing flags; see --help]
#include <malloc.h>

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/api/quantity.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace po = boost::program_options;
using namespace berth;

namespace {

std::chrono::milliseconds ParseDurationFlag(const std::string& name, const std::string& value) {
  auto d = shim::ParseDuration(value);
  if (!d || d->count() < 0) {
    std::cerr << "kubesim: invalid --" << name << " \"" << value << "\": "
              << (d ? "must not be negative" : d.error().message) << "\n";
    std::exit(2);
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // A LIST page is encoded into a fresh buffer of ~1 MB and freed once sent. With glibc's
  // defaults each free trimmed the thread's heap (madvise) and the next page faulted every page
  // back in: ~40% of kubesim's CPU while a client listed 150,000 pods. Keep such buffers on the
  // heap and the freed top of a heap mapped. Before any thread starts.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
  kubesim::KubesimOptions options;
  std::string pod_ready_delay = "0s", pod_gc_delay = "0s", watch_drop_every = "0s", latency = "0s",
              bookmark_interval = "60s", fault_codes = "500,429,409";
  std::vector<std::string> fault_targets;
  int port = 0;
  po::options_description desc("kubesim: a Kubernetes API-server emulator");
  desc.add_options()
      ("help", "print this help")
      ("port", po::value<int>(&port)->default_value(0), "HTTPS port on the bind address (0 picks a free one)")
      ("bind-address", po::value<std::string>(&options.bind_address)->default_value("127.0.0.1"), "address to serve on")
      ("kubeconfig-out", po::value<std::string>(&options.kubeconfig_out), "write a kubeconfig here once serving")
      ("token", po::value<std::string>(&options.token), "bearer token to accept (default: random)")
      ("nodes", po::value<int>(&options.nodes)->default_value(0), "create N Ready nodes node-0 … node-(N-1)")
      ("node-cpu", po::value<std::string>(&options.node_cpu)->default_value("8"), "allocatable cpu per node")
      ("node-memory", po::value<std::string>(&options.node_memory)->default_value("32Gi"), "allocatable memory per node")
      ("node-pods", po::value<std::string>(&options.node_pods)->default_value("110"), "allocatable pods per node")
      ("seed-file", po::value<std::string>(&options.seed_file),
       "objects to create at start, read one at a time: multi-document YAML, JSON objects one after another, "
       "or JSON List/PodList (items streamed); the first bad object stops start-up with its document and byte offset")
      ("no-kubelet", po::bool_switch(), "do not simulate kubelets (bound pods stay Pending)")
      ("no-workload-controllers", po::bool_switch(), "do not run the Deployment and ReplicaSet controllers")
      ("default-scheduler", po::bool_switch(), "bind pods of schedulerName default-scheduler by resource fit, as kube-scheduler would")
      ("pod-ready-delay", po::value<std::string>(&pod_ready_delay)->default_value("0s"), "time from binding to Running+Ready")
      ("pod-gc-delay", po::value<std::string>(&pod_gc_delay)->default_value("0s"), "time from node deletion to deleting its pods")
      ("history-window", po::value<size_t>(&options.history_window)->default_value(50000), "write events kept for watch resume; older RVs get 410 Expired")
      ("bookmark-interval", po::value<std::string>(&bookmark_interval)->default_value("60s"), "BOOKMARK period on watches that allow them")
      ("fault-rate", po::value<double>(&options.faults.fault_rate)->default_value(0.0), "fraction of requests failed on purpose (0..1)")
      ("fault-codes", po::value<std::string>(&fault_codes)->default_value("500,429,409"), "HTTP error codes (400..599) used for injected faults, e.g. 500,503,429,409; 429 and 503 carry Retry-After")
      ("fault-target", po::value<std::vector<std::string>>(&fault_targets)->composing(),
       "inject faults only into requests for [METHOD:]resource[/subresource], e.g. POST:pods/binding (repeatable; default: every request)")
      ("watch-drop-every", po::value<std::string>(&watch_drop_every)->default_value("0s"), "close every watch stream after this long (0 = never)")
      ("latency", po::value<std::string>(&latency)->default_value("0s"), "added latency per request")
      ("disable-protobuf", po::bool_switch(), "answer every read in JSON, even when Accept prefers application/vnd.kubernetes.protobuf (protobuf request bodies are still read); for JSON/protobuf comparisons")
      ("audit-log", po::value<std::string>(&options.audit_log), "append one JSON line per API request (verb, apiGroup, resource, subresource, namespace, name, userAgent, code) to this file")
      ("fault-seed", po::value<uint64_t>(&options.faults.seed)->default_value(1), "seed of the fault injector");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "kubesim: " << e.what() << "\n" << desc << "\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (port < 0 || port > 65535) {
    std::cerr << "kubesim: --port must be in 0..65535\n";
    return 2;
  }
  options.port = static_cast<uint16_t>(port);
  for (const auto& [flag, value] : {std::pair{"node-cpu", options.node_cpu}, {"node-memory", options.node_memory},
                                    {"node-pods", options.node_pods}}) {
    if (auto q = shim::Quantity::Parse(value); !q) {
      std::cerr << "kubesim: invalid --" << flag << " \"" << value << "\": " << q.error().message << "\n";
      return 2;
    }
  }
  if (options.faults.fault_rate < 0 || options.faults.fault_rate > 1) {
    std::cerr << "kubesim: --fault-rate must be within 0..1\n";
    return 2;
  }
  auto codes = kubesim::ParseFaultCodes(fault_codes);
  if (!codes) {
    std::cerr << "kubesim: invalid --fault-codes: " << codes.error().message << "\n";
    return 2;
  }
  options.faults.fault_codes = std::move(*codes);
  for (const std::string& text : fault_targets) {
    auto target = kubesim::ParseFaultTarget(text);
    if (!target) {
      std::cerr << "kubesim: invalid --fault-target: " << target.error().message << "\n";
      return 2;
    }
    options.faults.targets.push_back(std::move(*target));
  }
  options.cluster.kubelet = !vm["no-kubelet"].as<bool>();
  options.serve_protobuf = !vm["disable-protobuf"].as<bool>();
  options.cluster.workload_controllers = !vm["no-workload-controllers"].as<bool>();
  options.cluster.default_scheduler = vm["default-scheduler"].as<bool>();
  options.cluster.pod_ready_delay = ParseDurationFlag("pod-ready-delay", pod_ready_delay);
  options.cluster.pod_gc_delay = ParseDurationFlag("pod-gc-delay", pod_gc_delay);
  options.bookmark_interval = ParseDurationFlag("bookmark-interval", bookmark_interval);
  options.faults.watch_drop_every =
      std::chrono::duration_cast<std::chrono::seconds>(ParseDurationFlag("watch-drop-every", watch_drop_every));
  options.faults.latency = ParseDurationFlag("latency", latency);

  // Block the stop signals before any thread starts, so sigwait sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  kubesim::KubesimInstance instance(options);
  auto started = instance.Start();
  if (!started) {
    std::cerr << "kubesim: " << started.error().message << "\n";
    return 1;
  }
  std::cerr << "kubesim: serving on https://" << options.bind_address << ":" << *started
            << (options.kubeconfig_out.empty() ? "" : ", kubeconfig " + options.kubeconfig_out) << "\n";
  int sig = 0;
  sigwait(&signals, &sig);
  std::cerr << "kubesim: signal " << sig << ", stopping\n";
  instance.Stop();
  return 0;
}
