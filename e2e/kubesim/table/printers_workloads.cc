// Printers for apps/v1, batch/v1 and policy/v1 resources, following kube-apiserver's
// pkg/printers/internalversion (v1.32). Wide (priority 1) cells are always emitted.
#include <optional>
#include <string>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/table/printer_support.h"

namespace berth::kubesim::table {
namespace {

constexpr std::string_view kContainersDescription = "Names of each container in the template.";
constexpr std::string_view kImagesDescription = "Images referenced by each container in the template.";
constexpr std::string_view kSelectorDescription =
    "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the "
    "ones affected by this deployment. It must match the pod template's labels.";

void AddContainerCells(const rapidjson::Value& obj, RowOutput& row, Allocator& alloc) {
  auto [names, images] = LayoutContainerCells(Arr(obj, {"spec", "template", "spec", "containers"}));
  AddCell(row, names, alloc);
  AddCell(row, images, alloc);
}

// --- deployments ------------------------------------------------------------------------------

constexpr ColumnDefinition kDeploymentColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Ready", "string", "", "Number of the pod with ready state", 0},
    {"Up-to-date", "string", "",
     "Total number of non-terminating pods targeted by this deployment that have the desired "
     "template spec.", 0},
    {"Available", "string", "",
     "Total number of available non-terminating pods (ready for at least minReadySeconds) "
     "targeted by this deployment.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Containers", "string", "", kContainersDescription, 1},
    {"Images", "string", "", kImagesDescription, 1},
    {"Selector", "string", "", kSelectorDescription, 1},
};

void PrintDeployment(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  std::string selector = SelectorString(json::Find(obj, {"spec", "selector"}));
  if (selector == "<error>") selector = "<invalid>";
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, std::to_string(Int(obj, {"status", "readyReplicas"})) + "/" +
                   std::to_string(Int(obj, {"spec", "replicas"})),
          alloc);
  AddCell(row, Int(obj, {"status", "updatedReplicas"}), alloc);
  AddCell(row, Int(obj, {"status", "availableReplicas"}), alloc);
  AddCell(row, Age(obj, now), alloc);
  AddContainerCells(obj, row, alloc);
  AddCell(row, selector, alloc);
}

// --- replicasets ------------------------------------------------------------------------------

constexpr ColumnDefinition kReplicaSetColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Desired", "integer", "",
     "Replicas is the number of desired pods. This is a pointer to distinguish between explicit "
     "zero and unspecified. Defaults to 1.", 0},
    {"Current", "integer", "",
     "Replicas is the most recently observed number of non-terminating pods.", 0},
    {"Ready", "integer", "",
     "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Containers", "string", "", kContainersDescription, 1},
    {"Images", "string", "", kImagesDescription, 1},
    {"Selector", "string", "",
     "Selector is a label query over pods that should match the replica count.", 1},
};

void PrintReplicaSet(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, Int(obj, {"spec", "replicas"}), alloc);
  AddCell(row, Int(obj, {"status", "replicas"}), alloc);
  AddCell(row, Int(obj, {"status", "readyReplicas"}), alloc);
  AddCell(row, Age(obj, now), alloc);
  AddContainerCells(obj, row, alloc);
  AddCell(row, FormatLabelSelector(json::Find(obj, {"spec", "selector"})), alloc);
}

// --- statefulsets -----------------------------------------------------------------------------

constexpr ColumnDefinition kStatefulSetColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Ready", "string", "", "Number of the pod with ready state", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Containers", "string", "", kContainersDescription, 1},
    {"Images", "string", "", kImagesDescription, 1},
};

void PrintStatefulSet(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, std::to_string(Int(obj, {"status", "readyReplicas"})) + "/" +
                   std::to_string(Int(obj, {"spec", "replicas"})),
          alloc);
  AddCell(row, Age(obj, now), alloc);
  AddContainerCells(obj, row, alloc);
}

// --- daemonsets -------------------------------------------------------------------------------

constexpr ColumnDefinition kDaemonSetColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Desired", "integer", "",
     "The total number of nodes that should be running the daemon pod (including nodes correctly "
     "running the daemon pod).", 0},
    {"Current", "integer", "",
     "The number of nodes that are running at least 1 daemon pod and are supposed to run the "
     "daemon pod.", 0},
    {"Ready", "integer", "",
     "numberReady is the number of nodes that should be running the daemon pod and have one or "
     "more of the daemon pod running with a Ready Condition.", 0},
    {"Up-to-date", "integer", "",
     "The total number of nodes that are running updated daemon pod", 0},
    {"Available", "integer", "",
     "The number of nodes that should be running the daemon pod and have one or more of the "
     "daemon pod running and available (ready for at least spec.minReadySeconds)", 0},
    {"Node Selector", "string", "",
     "NodeSelector is a selector which must be true for the pod to fit on a node.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Containers", "string", "", kContainersDescription, 1},
    {"Images", "string", "", kImagesDescription, 1},
    {"Selector", "string", "",
     "A label query over pods that are managed by the daemon set. Must match in order to be "
     "controlled.", 1},
};

void PrintDaemonSet(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, Int(obj, {"status", "desiredNumberScheduled"}), alloc);
  AddCell(row, Int(obj, {"status", "currentNumberScheduled"}), alloc);
  AddCell(row, Int(obj, {"status", "numberReady"}), alloc);
  AddCell(row, Int(obj, {"status", "updatedNumberScheduled"}), alloc);
  AddCell(row, Int(obj, {"status", "numberAvailable"}), alloc);
  AddCell(row, FormatLabels(json::Find(obj, {"spec", "template", "spec", "nodeSelector"})), alloc);
  AddCell(row, Age(obj, now), alloc);
  AddContainerCells(obj, row, alloc);
  AddCell(row, FormatLabelSelector(json::Find(obj, {"spec", "selector"})), alloc);
}

// --- jobs -------------------------------------------------------------------------------------

constexpr ColumnDefinition kJobColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Status", "string", "", "Status of the job.", 0},
    {"Completions", "string", "", "The number of pods which reached phase Succeeded.", 0},
    {"Duration", "string", "", "Time required to complete the job.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Containers", "string", "", kContainersDescription, 1},
    {"Images", "string", "", kImagesDescription, 1},
    {"Selector", "string", "", "A label query over pods that should match the pod count.", 1},
};

// JobCondition is hasJobCondition: the first condition of the type decides.
bool JobCondition(const rapidjson::Value& job, std::string_view type) {
  if (const rapidjson::Value* conds = Arr(job, {"status", "conditions"})) {
    for (const auto& c : conds->GetArray()) {
      if (Str(c, {"type"}) == type) return Str(c, {"status"}) == "True";
    }
  }
  return false;
}

void PrintJob(const rapidjson::Value& job, TimePoint now, RowOutput& row, Allocator& alloc) {
  const int64_t succeeded = Int(job, {"status", "succeeded"});
  std::string completions;
  if (Has(job, {"spec", "completions"})) {
    completions = std::to_string(succeeded) + "/" + std::to_string(Int(job, {"spec", "completions"}));
  } else if (Int(job, {"spec", "parallelism"}) > 1) {
    completions = std::to_string(succeeded) + "/1 of " + std::to_string(Int(job, {"spec", "parallelism"}));
  } else {
    completions = std::to_string(succeeded) + "/1";
  }
  std::string duration;
  const std::optional<Timestamp> start = ParseTimestampField(json::Find(job, {"status", "startTime"}));
  const std::optional<Timestamp> done = ParseTimestampField(json::Find(job, {"status", "completionTime"}));
  if (start) {
    duration = HumanDuration(NanosBetween(*start, done ? *done : Timestamp::FromTimePoint(now)));
  }
  std::string status = "Running";
  if (JobCondition(job, "Complete")) {
    status = "Complete";
  } else if (JobCondition(job, "Failed")) {
    status = "Failed";
  } else if (Has(job, {"metadata", "deletionTimestamp"})) {
    status = "Terminating";
  } else if (JobCondition(job, "Suspended")) {
    status = "Suspended";
  } else if (JobCondition(job, "FailureTarget")) {
    status = "FailureTarget";
  }
  AddCell(row, Str(job, {"metadata", "name"}), alloc);
  AddCell(row, status, alloc);
  AddCell(row, completions, alloc);
  AddCell(row, duration, alloc);
  AddCell(row, Age(job, now), alloc);
  AddContainerCells(job, row, alloc);
  AddCell(row, FormatLabelSelector(json::Find(job, {"spec", "selector"})), alloc);
}

// --- poddisruptionbudgets ---------------------------------------------------------------------

constexpr ColumnDefinition kPodDisruptionBudgetColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Min Available", "string", "", "The minimum number of pods that must be available.", 0},
    {"Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0},
    {"Allowed Disruptions", "integer", "",
     "Calculated number of pods that may be disrupted at this time.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
};

void PrintPodDisruptionBudget(const rapidjson::Value& pdb, TimePoint now, RowOutput& row,
                              Allocator& alloc) {
  auto int_or_na = [&](std::string_view field) {
    const rapidjson::Value* v = json::Find(pdb, {"spec", field});
    return v == nullptr || v->IsNull() ? std::string("N/A") : IntOrStringText(*v);
  };
  AddCell(row, Str(pdb, {"metadata", "name"}), alloc);
  AddCell(row, int_or_na("minAvailable"), alloc);
  AddCell(row, int_or_na("maxUnavailable"), alloc);
  AddCell(row, Int(pdb, {"status", "disruptionsAllowed"}), alloc);
  AddCell(row, Age(pdb, now), alloc);
}

constexpr BuiltinPrinter kWorkloadPrinters[] = {
    {"apps", "deployments", kDeploymentColumns, PrintDeployment},
    {"apps", "replicasets", kReplicaSetColumns, PrintReplicaSet},
    {"apps", "statefulsets", kStatefulSetColumns, PrintStatefulSet},
    {"apps", "daemonsets", kDaemonSetColumns, PrintDaemonSet},
    {"batch", "jobs", kJobColumns, PrintJob},
    {"policy", "poddisruptionbudgets", kPodDisruptionBudgetColumns, PrintPodDisruptionBudget},
};

}  // namespace

std::span<const BuiltinPrinter> WorkloadPrinters() { return kWorkloadPrinters; }

}  // namespace berth::kubesim::table
