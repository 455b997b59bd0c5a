// Built-in printers, checked cell by cell on realistic objects. The whole Table is built so the
// tests also pin the column sets (names, types, priorities) kubectl will print.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/kubesim/table/table_builder.h"
#include "test_util.h"

namespace berth::kubesim::table {
namespace {

using testing::At;
using testing::Cells;
using testing::Header;
using testing::ParseJson;
using Strings = std::vector<std::string>;

const TimePoint kNow = At("2024-05-01T12:00:00Z");

rapidjson::Document Table(std::string_view group, std::string_view resource, std::string_view object) {
  rapidjson::Document obj = ParseJson(object);
  TableRequest req;
  req.group = group;
  req.resource = resource;
  return BuildTable(req, {&obj}, kNow);
}

constexpr std::string_view kRunningPod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-7d4b9", "namespace": "default", "creationTimestamp": "2024-05-01T11:58:32Z"},
  "spec": {"nodeName": "node-a", "containers": [{"name": "app", "image": "nginx"}]},
  "status": {"phase": "Running", "podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}],
    "conditions": [{"type": "Ready", "status": "True"}],
    "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                           "state": {"running": {"startedAt": "2024-05-01T11:58:40Z"}}}]}
})";

TEST(PodPrinter, HasTheApiserverColumns) {
  EXPECT_EQ(Header(Table("", "pods", kRunningPod)),
            (Strings{"Name:string:0", "Ready:string:0", "Status:string:0", "Restarts:string:0",
                     "Age:string:0", "IP:string:1", "Node:string:1", "Nominated Node:string:1",
                     "Readiness Gates:string:1"}));
}

TEST(PodPrinter, ShowsARunningReadyPod) {
  EXPECT_EQ(Cells(Table("", "pods", kRunningPod)),
            (Strings{"web-7d4b9", "1/1", "Running", "0", "88s", "10.0.0.7", "node-a", "<none>", "<none>"}));
}

TEST(PodPrinter, ShowsAPendingUnscheduledPod) {
  auto t = Table("", "pods", R"({"metadata": {"name": "p", "creationTimestamp": "2024-05-01T11:54:30Z"},
    "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
    "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}})");
  EXPECT_EQ(Cells(t), (Strings{"p", "0/2", "Pending", "0", "5m30s", "<none>", "<none>", "<none>", "<none>"}));
}

TEST(PodPrinter, ShowsTerminatingWhenADeletionTimestampIsSet) {
  auto t = Table("", "pods", R"({"metadata": {"name": "p", "creationTimestamp": "2024-05-01T09:00:00Z",
      "deletionTimestamp": "2024-05-01T12:00:30Z"},
    "spec": {"containers": [{"name": "a"}]},
    "status": {"phase": "Running", "containerStatuses": [{"name": "a", "ready": true, "state": {"running": {}}}]}})");
  EXPECT_EQ(Cells(t)[2], "Terminating");
  EXPECT_EQ(Cells(t)[4], "3h");
}

TEST(PodPrinter, ShowsUnknownForADeletedPodOnALostNode) {
  auto t = Table("", "pods", R"({"metadata": {"name": "p", "deletionTimestamp": "2024-05-01T12:00:30Z"},
    "spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Running", "reason": "NodeLost"}})");
  EXPECT_EQ(Cells(t)[2], "Unknown");
  EXPECT_EQ(Cells(t)[4], "<unknown>");  // no creationTimestamp
}

TEST(PodPrinter, ShowsWaitingReasonsAndRecentRestarts) {
  auto t = Table("", "pods", R"({"metadata": {"name": "p", "creationTimestamp": "2024-04-30T12:00:00Z"},
    "spec": {"containers": [{"name": "a"}]},
    "status": {"phase": "Running", "containerStatuses": [{"name": "a", "ready": false, "restartCount": 4,
      "state": {"waiting": {"reason": "CrashLoopBackOff"}},
      "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2024-05-01T11:59:00Z"}}}]}})");
  EXPECT_EQ(Cells(t)[1], "0/1");
  EXPECT_EQ(Cells(t)[2], "CrashLoopBackOff");
  EXPECT_EQ(Cells(t)[3], "4 (60s ago)");
  EXPECT_EQ(Cells(t)[4], "24h");
}

TEST(PodPrinter, ShowsCompletedAndMarksTheRowCompleted) {
  auto t = Table("", "pods", R"({"metadata": {"name": "job-x"}, "spec": {"containers": [{"name": "a"}]},
    "status": {"phase": "Succeeded", "containerStatuses": [{"name": "a", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}]}})");
  EXPECT_EQ(Cells(t)[2], "Completed");
  const auto& cond = t["rows"][0]["conditions"][0];
  EXPECT_STREQ(cond["type"].GetString(), "Completed");
  EXPECT_STREQ(cond["reason"].GetString(), "Succeeded");
}

TEST(PodPrinter, ShowsExitCodeAndSignalWithoutAReason) {
  auto t = Table("", "pods", R"({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
    "status": {"phase": "Failed", "containerStatuses": [
      {"name": "a", "state": {"terminated": {"exitCode": 137, "signal": 9}}},
      {"name": "b", "state": {"terminated": {"exitCode": 2}}}]}})");
  // Statuses are walked last to first, so the first container's text wins.
  EXPECT_EQ(Cells(t)[2], "Signal:9");
}

TEST(PodPrinter, ShowsInitContainerProgress) {
  auto waiting = Table("", "pods", R"({"metadata": {"name": "p"},
    "spec": {"initContainers": [{"name": "i1"}, {"name": "i2"}], "containers": [{"name": "a"}]},
    "status": {"phase": "Pending", "initContainerStatuses": [
      {"name": "i1", "state": {"terminated": {"exitCode": 0}}},
      {"name": "i2", "state": {"running": {}}}]}})");
  EXPECT_EQ(Cells(waiting)[2], "Init:1/2");
  auto failing = Table("", "pods", R"({"metadata": {"name": "p"},
    "spec": {"initContainers": [{"name": "i1"}], "containers": [{"name": "a"}]},
    "status": {"phase": "Pending", "initContainerStatuses": [
      {"name": "i1", "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}})");
  EXPECT_EQ(Cells(failing)[2], "Init:ImagePullBackOff");
}

TEST(PodPrinter, CountsStartedSidecarsAsContainers) {
  auto t = Table("", "pods", R"({"metadata": {"name": "p"},
    "spec": {"initContainers": [{"name": "proxy", "restartPolicy": "Always"}], "containers": [{"name": "a"}]},
    "status": {"phase": "Running", "conditions": [{"type": "Initialized", "status": "True"}],
      "initContainerStatuses": [{"name": "proxy", "started": true, "ready": true, "state": {"running": {}}}],
      "containerStatuses": [{"name": "a", "ready": true, "state": {"running": {}}}]}})");
  EXPECT_EQ(Cells(t)[1], "2/2");
  EXPECT_EQ(Cells(t)[2], "Running");
}

TEST(PodPrinter, ShowsSchedulingGatesAndReadinessGates) {
  auto t = Table("", "pods", R"({"metadata": {"name": "p"},
    "spec": {"containers": [{"name": "a"}], "readinessGates": [{"conditionType": "example.com/lb"}, {"conditionType": "x"}]},
    "status": {"phase": "Pending", "nominatedNodeName": "node-b",
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"},
                     {"type": "example.com/lb", "status": "True"}]}})");
  EXPECT_EQ(Cells(t)[2], "SchedulingGated");
  EXPECT_EQ(Cells(t)[7], "node-b");
  EXPECT_EQ(Cells(t)[8], "1/2");
}

TEST(NodePrinter, ShowsACordonedReadyNodeWithRoles) {
  auto t = Table("", "nodes", R"json({"metadata": {"name": "node-a", "creationTimestamp": "2024-04-20T12:00:00Z",
      "labels": {"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "infra"}},
    "spec": {"unschedulable": true},
    "status": {"conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": "True"}],
      "addresses": [{"type": "Hostname", "address": "node-a"}, {"type": "InternalIP", "address": "192.168.1.10"}],
      "nodeInfo": {"kubeletVersion": "v1.32.4", "osImage": "Debian GNU/Linux 12 (bookworm)",
                   "kernelVersion": "6.1.0-18-amd64", "containerRuntimeVersion": "containerd://1.7.13"}}})json");
  EXPECT_EQ(Header(t), (Strings{"Name:string:0", "Status:string:0", "Roles:string:0", "Age:string:0",
                                "Version:string:0", "Internal-IP:string:1", "External-IP:string:1",
                                "OS-Image:string:1", "Kernel-Version:string:1", "Container-Runtime:string:1"}));
  EXPECT_EQ(Cells(t), (Strings{"node-a", "Ready,SchedulingDisabled", "control-plane,infra,worker", "11d", "v1.32.4",
                               "192.168.1.10", "<none>", "Debian GNU/Linux 12 (bookworm)", "6.1.0-18-amd64",
                               "containerd://1.7.13"}));
}

TEST(NodePrinter, ShowsNotReadyAndUnknownWithPlaceholders) {
  auto not_ready = Table("", "nodes", R"({"metadata": {"name": "n"},
    "status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}})");
  EXPECT_EQ(Cells(not_ready), (Strings{"n", "NotReady", "<none>", "<unknown>", "", "<none>", "<none>",
                                       "<unknown>", "<unknown>", "<unknown>"}));
  auto no_condition = Table("", "nodes", R"({"metadata": {"name": "n"}})");
  EXPECT_EQ(Cells(no_condition)[1], "Unknown");
}

TEST(PodDisruptionBudgetPrinter, ShowsBoundsOrNotApplicable) {
  auto t = Table("policy", "poddisruptionbudgets", R"({"metadata": {"name": "web-pdb", "creationTimestamp": "2024-05-01T11:00:00Z"},
    "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}},
    "status": {"disruptionsAllowed": 1}})");
  EXPECT_EQ(Header(t), (Strings{"Name:string:0", "Min Available:string:0", "Max Unavailable:string:0",
                                "Allowed Disruptions:integer:0", "Age:string:0"}));
  EXPECT_EQ(Cells(t), (Strings{"web-pdb", "2", "N/A", "1", "60m"}));
  auto pct = Table("policy", "poddisruptionbudgets", R"({"metadata": {"name": "p"}, "spec": {"maxUnavailable": "25%"}})");
  EXPECT_EQ(Cells(pct), (Strings{"p", "N/A", "25%", "0", "<unknown>"}));
}

TEST(ServicePrinter, ShowsPortsIpsAndSelector) {
  auto t = Table("", "services", R"({"metadata": {"name": "web", "creationTimestamp": "2024-05-01T11:59:00Z"},
    "spec": {"type": "NodePort", "clusterIP": "10.96.0.12", "clusterIPs": ["10.96.0.12"],
      "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
      "selector": {"tier": "front", "app": "web"}}})");
  EXPECT_EQ(Cells(t), (Strings{"web", "NodePort", "10.96.0.12", "<none>", "80:30080/TCP,53/UDP", "60s", "app=web,tier=front"}));
  auto lb = Table("", "services", R"({"metadata": {"name": "lb"}, "spec": {"type": "LoadBalancer", "clusterIPs": ["None"]}})");
  EXPECT_EQ(Cells(lb), (Strings{"lb", "LoadBalancer", "None", "<pending>", "<none>", "<unknown>", "<none>"}));
}

TEST(DeploymentPrinter, ShowsReadyOverDesiredAndWideCells) {
  auto t = Table("apps", "deployments", R"({"metadata": {"name": "web", "creationTimestamp": "2024-05-01T07:15:00Z"},
    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "canary"]}]},
      "template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.25"}, {"name": "log", "image": "fluentbit"}]}}},
    "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}})");
  EXPECT_EQ(Header(t)[1], "Ready:string:0");
  EXPECT_EQ(Cells(t), (Strings{"web", "2/3", "3", "2", "4h45m", "app,log", "nginx:1.25,fluentbit",
                               "app=web,env in (canary,prod)"}));
}

TEST(WorkloadPrinters, ShowReplicaSetsStatefulSetsAndJobs) {
  auto rs = Table("apps", "replicasets", R"({"metadata": {"name": "web-abc"}, "spec": {"replicas": 3,
      "selector": {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}, "template": {"spec": {"containers": [{"name": "a", "image": "i"}]}}},
    "status": {"replicas": 3, "readyReplicas": 1}})");
  EXPECT_EQ(Cells(rs), (Strings{"web-abc", "3", "3", "1", "<unknown>", "a", "i", "gpu"}));
  auto sts = Table("apps", "statefulsets", R"({"metadata": {"name": "db"}, "spec": {"replicas": 2}, "status": {"readyReplicas": 2}})");
  EXPECT_EQ(Cells(sts), (Strings{"db", "2/2", "<unknown>", "", ""}));
  auto job = Table("batch", "jobs", R"({"metadata": {"name": "pi"}, "spec": {"completions": 1},
    "status": {"succeeded": 1, "startTime": "2024-05-01T11:00:00Z", "completionTime": "2024-05-01T11:00:42Z",
      "conditions": [{"type": "Complete", "status": "True"}]}})");
  EXPECT_EQ(Cells(job), (Strings{"pi", "Complete", "1/1", "42s", "<unknown>", "", "", "<none>"}));
}

TEST(CorePrinters, ShowNamespacesConfigMapsLeasesAndEvents) {
  EXPECT_EQ(Cells(Table("", "namespaces", R"({"metadata": {"name": "kube-system"}, "status": {"phase": "Active"}})")),
            (Strings{"kube-system", "Active", "<unknown>"}));
  EXPECT_EQ(Cells(Table("", "configmaps", R"({"metadata": {"name": "cfg"}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}})")),
            (Strings{"cfg", "3", "<unknown>"}));
  EXPECT_EQ(Cells(Table("coordination.k8s.io", "leases", R"({"metadata": {"name": "berth-leader"}, "spec": {"holderIdentity": "berth-0_1a2b"}})")),
            (Strings{"berth-leader", "berth-0_1a2b", "<unknown>"}));
  auto ev = Table("", "events", R"({"metadata": {"name": "web.17c"}, "type": "Warning", "reason": "FailedScheduling",
    "message": "  0/3 nodes are available.\n", "involvedObject": {"kind": "Pod", "name": "web"},
    "source": {"component": "default-scheduler"}, "firstTimestamp": "2024-05-01T11:50:00Z",
    "lastTimestamp": "2024-05-01T11:59:30Z", "count": 4})");
  EXPECT_EQ(Header(ev)[0], "Last Seen:string:0");
  EXPECT_EQ(Cells(ev), (Strings{"30s", "Warning", "FailedScheduling", "pod/web", "", "default-scheduler",
                                "0/3 nodes are available.", "10m", "4", "web.17c"}));
}

TEST(EventPrinter, UsesEventTimeAndSeriesForNewStyleEvents) {
  auto ev = Table("", "events", R"({"metadata": {"name": "e"}, "type": "Normal", "reason": "Scheduled",
    "involvedObject": {"kind": "Pod"}, "reportingComponent": "berth-scheduler", "reportingInstance": "berth-0",
    "eventTime": "2024-05-01T11:58:00.000000Z", "series": {"count": 7, "lastObservedTime": "2024-05-01T11:59:50.500000Z"}})");
  EXPECT_EQ(Cells(ev), (Strings{"9s", "Normal", "Scheduled", "pod", "", "berth-scheduler, berth-0", "", "2m", "7", "e"}));
}

}  // namespace
}  // namespace berth::kubesim::table
