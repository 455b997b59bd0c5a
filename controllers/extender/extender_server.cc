// controllers/extender/extender_server.cc
#include "controllers/extender/extender_server.h"

#include <chrono>

#include "clientgo-shim/base/log.h"
#include "controllers/scheduler/scheduler_codec.h"
#include "reconcile/placement/filters.h"
#include "reconcile/placement/scoring.h"
#include "reconcile/placement/reservation_affinity.h"

namespace berth::controllers::extender {
namespace {

namespace placement = reconcile::placement;

constexpr char kLogger[] = "extender";
constexpr char kJson[] = "application/json";
constexpr std::string_view kNodeNotFound = "node(s) not found in berth's node cache";

shim::HttpServerReply JsonReply(int status, std::string body) {
  shim::HttpServerReply r;
  r.status = status;
  r.content_type = kJson;
  r.body = std::move(body);
  return r;
}

shim::HttpServerReply BadRequest(const std::string& verb, const Error& error) {
  log::Warn(kLogger, "malformed extender request", {{"verb", verb}, {"error", error.message}});
  return JsonReply(400, EncodeError(error.message));
}

bool IsResourceReason(std::string_view reason) {
  return reason.starts_with("Insufficient ") || reason == placement::kReasonTooManyPods;
}

// NodeFailure: a failing node's answer. The FitError holds this node's reasons alone
// (ClusterSnapshot::EvaluateOnNodes), or an error of the pod as a whole.
struct NodeFailure {
  std::string message;
  bool resolvable = false;  // only resource shortfalls: preemption could help
};

NodeFailure Describe(const placement::FitError& error) {
  NodeFailure out;
  if (!error.error.empty()) {
    out.message = error.error;
    return out;
  }
  bool all_resource = true;
  for (const auto& [reason, count] : error.reasons) {
    if (!IsResourceReason(reason)) all_resource = false;
    if (!out.message.empty()) out.message += ", ";
    out.message += reason;
  }
  if (out.message.empty() && !error.pre_filter_message.empty()) {
    out.message = error.pre_filter_message;
    all_resource = false;
  }
  for (const auto& r : error.post_filter_reasons) {
    out.message += (out.message.empty() ? "" : ". ") + r;
  }
  if (out.message.empty()) {
    out.message = error.Message();
    all_resource = false;
  }
  out.resolvable = all_resource;
  return out;
}

}  // namespace

shim::HttpServerOptions ExtenderServerOptions(const std::string& cert_dir) {
  shim::HttpServerOptions o;
  if (!cert_dir.empty()) {
    const std::string dir = cert_dir.ends_with('/') ? cert_dir : cert_dir + "/";
    o.tls_cert_file = dir + "tls.crt";
    o.tls_key_file = dir + "tls.key";
  }
  o.allow_post = true;
  o.header_limit = 16 * 1024;
  // A NodeList of 5,000 nodes is a few MiB; a pod at most ~1.5 MiB (etcd's object limit).
  o.body_limit = 32 * 1024 * 1024;
  o.request_timeout = std::chrono::seconds(10);
  o.max_connections = 64;
  return o;
}

ExtenderService::ExtenderService(SchedulerCache& cache, Binder binder, shim::Registry* registry)
    : cache_(cache), binder_(std::move(binder)) {
  if (!registry) return;
  if (auto c = registry->AddCounter("berth_extender_requests_total",
                                    "kube-scheduler extender requests by verb and HTTP code.", {"verb", "code"})) {
    requests_ = *c;
  }
  if (auto h = registry->AddHistogram("berth_extender_request_duration_seconds",
                                      "Time to answer a kube-scheduler extender request, by verb.", {"verb"},
                                      {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5})) {
    duration_ = *h;
  }
}

void ExtenderService::Register(shim::HttpServer& server) {
  // "/" is the server's catch-all prefix: every path lands here and its last segment picks the verb.
  server.Handle("/", [this](const shim::HttpServerRequest& r) {
    const std::string_view path = r.path;
    const std::string_view verb = path.substr(path.rfind('/') + 1);
    if (verb == "filter") return Handle("filter", r, &ExtenderService::Filter);
    if (verb == "prioritize") return Handle("prioritize", r, &ExtenderService::Prioritize);
    if (verb == "bind") return Handle("bind", r, &ExtenderService::Bind);
    if (verb == "preempt") return Handle("preempt", r, &ExtenderService::Preempt);
    return JsonReply(404, EncodeError("no extender verb at " + std::string(path) +
                                      ": berth serves filter, prioritize, bind and preempt"));
  });
}

shim::HttpServerReply ExtenderService::Handle(const std::string& verb, const shim::HttpServerRequest& request,
                                              shim::HttpServerReply (ExtenderService::*handler)(const std::string&)) {
  const auto start = std::chrono::steady_clock::now();
  shim::HttpServerReply reply;
  if (request.method != "POST") {
    reply = JsonReply(405, EncodeError("kube-scheduler extender verbs are POST"));
    reply.headers.push_back({"Allow", "POST"});
  } else if (const std::string why = NotReadyReason(); !why.empty()) {
    reply = JsonReply(503, EncodeError("berth's caches have not synced yet: " + why));
  } else {
    reply = (this->*handler)(request.body);
  }
  if (requests_) requests_->WithLabelValues({verb, std::to_string(reply.status)}).Inc();
  if (duration_) {
    duration_->WithLabelValues({verb}).Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return reply;
}

std::string ExtenderService::NotReadyReason() {
  if (!ready_check_ || ready_.load(std::memory_order_acquire)) return {};
  Status status = ready_check_();
  if (status) {
    ready_.store(true, std::memory_order_release);
    log::Info(kLogger, "caches synced: answering kube-scheduler's extender calls");
    return {};
  }
  std::string why = status.error().message.empty() ? std::string("not ready") : status.error().message;
  if (!refused_logged_) {
    refused_logged_ = true;
    log::Warn(kLogger, "answering kube-scheduler's extender calls with 503 until the caches have synced",
              {{"reason", why}});
  }
  return why;
}

shim::HttpServerReply ExtenderService::Filter(const std::string& body) {
  auto args = DecodeExtenderArgs(body);
  if (!args) return BadRequest("filter", args.error());
  placement::PodSpecView pod = ReadPodView(*args->pod);
  if (pod_view_hook_) pod_view_hook_(pod);
  auto evaluations = cache_.EvaluateOnNodes(pod, args->node_names);
  ExtenderFilterResult result;
  result.passed.reserve(evaluations.size());
  for (size_t i = 0; i < evaluations.size(); ++i) {
    const std::string_view name = args->node_names[i];
    const auto& e = evaluations[i];
    if (!e.known) {
      result.failed_unresolvable[std::string(name)] = std::string(kNodeNotFound);
    } else if (e.fits) {
      result.passed.push_back(name);
    } else {
      NodeFailure failure = Describe(e.error);
      (failure.resolvable ? result.failed : result.failed_unresolvable)[std::string(name)] =
          std::move(failure.message);
    }
  }
  return JsonReply(200, EncodeFilterResult(result, &*args));
}

shim::HttpServerReply ExtenderService::Prioritize(const std::string& body) {
  auto args = DecodeExtenderArgs(body);
  if (!args) return BadRequest("prioritize", args.error());
  placement::PodSpecView pod = ReadPodView(*args->pod);
  if (pod_view_hook_) pod_view_hook_(pod);
  auto evaluations = cache_.EvaluateOnNodes(pod, args->node_names);
  // When the pod can use a reservation on some candidate, the other nodes score 0: the margin is
  // then 10 × weight × 10, enough for a weight of 10 or more to outrank every in-tree score sum,
  // as berth's own scheduler always prefers a reservation node.
  bool any_reservation = false;
  for (const auto& e : evaluations) any_reservation = any_reservation || (e.fits && e.reservation);
  std::vector<HostPriority> list;
  list.reserve(evaluations.size());
  for (size_t i = 0; i < evaluations.size(); ++i) {
    const auto& e = evaluations[i];
    int64_t score = kMinExtenderPriority;
    if (e.fits) {
      if (e.reservation) {
        score = kMaxExtenderPriority;
      } else if (!any_reservation) {
        // berth's own ranking of the node (every score plugin with kube-scheduler's default
        // weights), scaled to 0..9 so that 10 stays the reservation nodes' alone.
        score = e.max_combined_score > 0 ? e.combined_score * (kMaxExtenderPriority - 1) / e.max_combined_score : 0;
      }
    }
    list.push_back({args->node_names[i], score});
  }
  return JsonReply(200, EncodeHostPriorityList(list));
}

shim::HttpServerReply ExtenderService::Bind(const std::string& body) {
  auto args = DecodeBindingArgs(body);
  if (!args) return BadRequest("bind", args.error());
  std::string error = binder_ ? binder_(*args) : std::string("berth's scheduler is not running");
  if (!error.empty()) {
    log::Info(kLogger, "extender bind failed",
              {{"pod", args->pod_namespace + "/" + args->pod_name}, {"node", args->node}, {"error", error}});
  }
  return JsonReply(200, EncodeBindingResult(error));
}

shim::HttpServerReply ExtenderService::Preempt(const std::string& body) {
  auto args = DecodePreemptionArgs(body);
  if (!args) return BadRequest("preempt", args.error());
  placement::PodSpecView pod = ReadPodView(*args->pod);
  if (pod_view_hook_) pod_view_hook_(pod);
  std::map<std::string, MetaVictims> kept;
  for (auto& [node, victims] : args->candidates) {
    if (cache_.FitsWithoutPods(pod, node, victims.pod_uids)) {
      kept.emplace(node, std::move(victims));
    } else {
      log::Debug(kLogger, "preemption candidate dropped: the pod does not fit there without these victims",
                 {{"pod", pod.namespace_name + "/" + pod.name}, {"node", node}});
    }
  }
  return JsonReply(200, EncodePreemptionResult(kept));
}

}  // namespace berth::controllers::extender
