#include "controllers/rescheduler/rescheduler_controller.h"

#include <cstdio>

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/log.h"
#include "controllers/common/write_errors.h"
#include "controllers/migration/migration_codec.h"
#include "controllers/rescheduler/rescheduler_job.h"
#include "controllers/scheduler/scheduler_codec.h"

namespace berth::controllers {
namespace {

namespace rs = reconcile::rescheduler;
using rapidjson::Value;

constexpr char kLogger[] = "rescheduler";
constexpr char kPassKey[] = "pass";

// ConfigMapTransform keeps `data` (the default transform keeps only metadata, spec and status).
Status ConfigMapTransform(Value& object, rapidjson::Document::AllocatorType& a) {
  Value data;
  if (Value* d = json::FindMutable(object, {"data"})) data = std::move(*d);
  if (auto s = shim::DefaultTransform()(object, a); !s) return s;
  if (data.IsObject()) json::SetMember(object, "data", std::move(data), a);
  return {};
}

std::string Percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", p);
  return buf;
}

}  // namespace

ReschedulerController::ReschedulerController(shim::RestClientPtr rest, ReschedulerControllerOptions options)
    : options_(std::move(options)), client_(std::move(rest)) {}

ReschedulerController::~ReschedulerController() {
  if (recorder_) recorder_->Stop();
}

Result<std::unique_ptr<ReschedulerController>> ReschedulerController::Setup(shim::Manager& manager,
                                                                            shim::RestClientPtr rest,
                                                                            ReschedulerControllerOptions options) {
  std::unique_ptr<ReschedulerController> c(new ReschedulerController(rest, std::move(options)));
  shim::EventRecorderOptions events;
  events.rest = rest;
  events.component = "berth-rescheduler";
  c->recorder_ = std::make_unique<shim::EventRecorder>(events);

  auto& reg = manager.registry();
  auto moves = reg.AddCounter("berth_rescheduler_moves_total",
                              "Pods the rescheduler decided to move, by strategy and outcome (created: a "
                              "PodMigrationJob was created; dry_run: only reported; error: the create failed).",
                              {"strategy", "result"});
  auto valid = reg.AddGauge("berth_rescheduler_config_valid",
                            "1 while the berth-rescheduler ConfigMap in force parsed; 0 after a malformed one "
                            "(the last good configuration stays in force).");
  if (!moves || !valid) return MakeError(ErrorCode::kInternal, "registering rescheduler metrics failed");
  c->moves_total_ = *moves;
  c->config_valid_ = *valid;
  c->config_valid_->WithLabelValues({}).Set(1);

  auto& informers = manager.informers();
  c->config_maps_ = informers.InformerFor(
      shim::InformerKey{"/api/v1/namespaces/" + c->options_.config_namespace + "/configmaps", "",
                        "metadata.name=" + std::string(rs::kConfigMapName)},
      ConfigMapTransform);
  c->nodes_ = informers.InformerFor(shim::InformerKey{"/api/v1/nodes", "", ""});
  c->pods_ = informers.InformerFor(shim::InformerKey{"/api/v1/pods", "", ""});
  c->jobs_ = informers.InformerFor(shim::InformerKey{kPodMigrationJobsPath, "", ""});
  c->reservations_ =
      informers.InformerFor(shim::InformerKey{"/apis/scheduling.koordinator.sh/v1alpha1/reservations", "", ""});
  c->budgets_ = informers.InformerFor(shim::InformerKey{"/apis/policy/v1/poddisruptionbudgets", "", ""});

  ReschedulerController* self = c.get();
  auto controller = manager.AddController(shim::ControllerOptions{"rescheduler", 1, nullptr, nullptr, &reg},
                                          [self](const std::string& key) { return self->Reconcile(key); });
  if (!controller) return std::unexpected(controller.error());
  c->controller_ = *controller;
  // A configuration change runs a pass at once (its interval, thresholds or dry-run apply now);
  // the first ADDED (or the initial sync without a ConfigMap) starts the periodic passes.
  auto changed = [self] { self->controller_->queue().Add(kPassKey); };
  c->config_maps_->AddEventHandler(shim::EventHandler{[changed](const shim::ObjectPtr&, bool) { changed(); },
                                                      [changed](const shim::ObjectPtr&, const shim::ObjectPtr&) { changed(); },
                                                      [changed](const shim::DeletedObject&) { changed(); }});
  c->controller_->queue().Add(kPassKey);
  return c;
}

rs::ReschedulerConfig ReschedulerController::config() const {
  std::lock_guard lock(mu_);
  return config_;
}

void ReschedulerController::LoadConfig() {
  shim::ObjectPtr cm = config_maps_->store().Get(options_.config_namespace + "/" + std::string(rs::kConfigMapName));
  std::lock_guard lock(mu_);
  if (!cm) {
    if (!config_version_.empty()) {
      log::Info(kLogger, "ConfigMap deleted: defaults restored (every strategy off)",
                {{"configmap", options_.config_namespace + "/" + std::string(rs::kConfigMapName)}});
    }
    config_ = {};
    config_version_.clear();
    config_valid_->WithLabelValues({}).Set(1);
    return;
  }
  const std::string version(cm->ResourceVersion());
  if (version == config_version_) return;
  config_version_ = version;
  auto text = cm->FindString({"data", std::string(rs::kConfigKey)});
  auto parsed = rs::ParseReschedulerConfig(text.value_or(""));
  const std::string where = options_.config_namespace + "/" + std::string(rs::kConfigMapName);
  if (!parsed) {
    config_valid_->WithLabelValues({}).Set(0);
    log::Error(kLogger, "malformed ConfigMap: keeping the last good configuration",
               {{"configmap", where}, {"resourceVersion", version}, {"error", parsed.error().message}});
    shim::ObjectReference ref{"v1", "ConfigMap", options_.config_namespace, std::string(rs::kConfigMapName),
                              std::string(cm->Uid()), version, ""};
    recorder_->Event(ref, shim::EventType::kWarning, "InvalidConfiguration",
                     parsed.error().message + " (the last good configuration stays in force)");
    return;
  }
  config_valid_->WithLabelValues({}).Set(1);
  config_ = *parsed;
  log::Info(kLogger, "configuration loaded",
            {{"configmap", where}, {"resourceVersion", version}, {"dryRun", config_.dry_run ? "true" : "false"},
             {"lowNodeUtilization", config_.low_node_utilization.enabled ? "on" : "off"},
             {"preferredNodeAffinity", config_.preferred_node_affinity.enabled ? "on" : "off"},
             {"interval", shim::FormatDuration(config_.interval)}});
}

rs::ReschedulerInput ReschedulerController::ReadInput() const {
  rs::ReschedulerInput input;
  // The budgets by namespace, read once per pass; a pod is matched against those of its namespace.
  std::map<std::string, std::vector<std::pair<std::string, rapidjson::Document>>, std::less<>> budgets;
  for (const auto& b : budgets_->store().List()) {
    auto doc = b->ToJson();
    if (!doc) continue;
    const std::string key = std::string(b->Namespace()) + "/" + std::string(b->Name());
    input.disruptions_allowed[key] = ReadPdbFacts(*doc).disruptions_allowed;
    budgets[std::string(b->Namespace())].emplace_back(key, std::move(*doc));
  }
  for (const auto& n : nodes_->store().List()) {
    if (auto doc = n->ToJson()) input.nodes.push_back(ReadNodeView(*doc));
  }
  for (const auto& p : pods_->store().List()) {
    auto node = p->FindString({"spec", "nodeName"});
    auto phase = p->FindString({"status", "phase"});
    if (!node || node->empty() || (phase && (*phase == "Succeeded" || *phase == "Failed"))) continue;
    auto doc = p->ToJson();
    if (!doc) continue;
    rs::PodInfo info{ReadPodView(*doc), ReadPodFacts(*doc), {}};
    if (auto in_ns = budgets.find(p->Namespace()); in_ns != budgets.end()) {
      for (const auto& [key, budget] : in_ns->second) {
        if (PdbSelects(budget, *doc)) info.budgets.push_back(key);
      }
    }
    input.pods.push_back(std::move(info));
  }
  for (const auto& j : jobs_->store().List()) {
    rs::JobInfo info;
    info.pod_namespace = j->FindString({"spec", "podRef", "namespace"}).value_or("");
    info.pod_name = j->FindString({"spec", "podRef", "name"}).value_or("");
    const std::string phase = j->FindString({"status", "phase"}).value_or("");
    info.active = phase.empty() || phase == "Pending" || phase == "Running";
    info.by_rescheduler = j->FindString({"metadata", "annotations", kJobCreatedByAnnotation}) == kCreatedBy;
    if (auto ts = j->FindString({"metadata", "creationTimestamp"})) {
      if (auto t = shim::ParseTimestamp(*ts)) info.created = std::chrono::time_point_cast<reconcile::Time::duration>(*t);
    }
    input.jobs.push_back(std::move(info));
  }
  for (const auto& r : reservations_->store().List()) {
    auto doc = r->ToJson();
    if (!doc) continue;
    const reconcile::placement::ReservationView view = ReadReservationView(*doc);
    if (view.phase != reconcile::Phase::kAvailable || view.node_name.empty()) continue;
    reconcile::AddInto(input.reserved[view.node_name], view.allocatable);
  }
  return input;
}

void ReschedulerController::Act(const rs::Move& move, bool dry_run) {
  const std::string pod_key = move.pod_namespace + "/" + move.pod_name;
  std::string targets;
  for (const auto& t : move.to_nodes) targets += (targets.empty() ? "" : ",") + t;
  shim::ObjectReference pod_ref{"v1", "Pod", move.pod_namespace, move.pod_name, move.pod_uid, "", ""};
  if (dry_run) {
    log::Info(kLogger, "dry run: would reschedule pod",
              {{"pod", pod_key}, {"strategy", move.strategy}, {"from", move.from_node}, {"to", targets},
               {"improvement", Percent(move.improvement)}, {"reason", move.reason}});
    recorder_->Event(pod_ref, shim::EventType::kNormal, "WouldReschedule", "dry run, " + move.strategy + ": " + move.reason);
    moves_total_->WithLabelValues({move.strategy, "dry_run"}).Inc();
    return;
  }
  shim::ObjectPtr pod = pods_->store().Get(pod_key);
  auto pod_json = pod ? pod->ToJson() : MakeError(ErrorCode::kNotFound, "pod left the cache");
  auto job = pod_json ? BuildReschedulingJob(move, *pod_json) : Result<rapidjson::Document>(std::unexpected(pod_json.error()));
  if (!job) {
    log::Warn(kLogger, "cannot build the job of a move", {{"pod", pod_key}, {"error", job.error().message}});
    moves_total_->WithLabelValues({move.strategy, "error"}).Inc();
    return;
  }
  auto created = client_.Create({"scheduling.koordinator.sh", "v1alpha1", "podmigrationjobs", "", ""}, *job);
  if (!created) {
    // The next pass decides again from the caches (the pod may have moved meanwhile).
    LogWriteRetry(kLogger, "creating the PodMigrationJob of pod", pod_key, created.error());
    moves_total_->WithLabelValues({move.strategy, "error"}).Inc();
    return;
  }
  const std::string job_name(json::GetString(*created, {"metadata", "name"}));
  log::Info(kLogger, "created PodMigrationJob",
            {{"job", job_name}, {"pod", pod_key}, {"strategy", move.strategy}, {"from", move.from_node},
             {"to", targets}, {"improvement", Percent(move.improvement)}, {"reason", move.reason}});
  recorder_->Event(pod_ref, shim::EventType::kNormal, "Rescheduling",
                   move.strategy + ": " + move.reason + " (PodMigrationJob " + job_name + ")");
  moves_total_->WithLabelValues({move.strategy, "created"}).Inc();
}

shim::ReconcileResult ReschedulerController::Reconcile(const std::string&) {
  LoadConfig();
  const rs::ReschedulerConfig config = this->config();
  if (!config.low_node_utilization.enabled && !config.preferred_node_affinity.enabled) {
    return shim::ReconcileResult::RequeueAfter(config.interval);
  }
  const rs::Plan plan = rs::PlanRescheduling(ReadInput(), config, options_.plan, std::chrono::system_clock::now());
  for (const auto& note : plan.notes) log::Debug(kLogger, note);
  for (const auto& move : plan.moves) Act(move, config.dry_run);
  log::Debug(kLogger, "rescheduling pass planned",
             {{"moves", std::to_string(plan.moves.size())}, {"dryRun", config.dry_run ? "true" : "false"}});
  return shim::ReconcileResult::RequeueAfter(config.interval);
}

}  // namespace berth::controllers
