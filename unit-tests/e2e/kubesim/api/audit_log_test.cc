// Tests for kubesim's audit log: RequestInfo verb derivation and the line format.
#include "e2e/kubesim/api/audit_log.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

HttpRequest Req(std::string method, std::string path, std::map<std::string, std::string> query = {}) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.target = r.path;
  r.query = std::move(query);
  return r;
}

TEST(DescribeRequest, GetOnACollectionIsList) {
  auto info = DescribeRequest(Req("GET", "/api/v1/namespaces/default/pods"));
  EXPECT_TRUE(info.is_resource_request);
  EXPECT_EQ(info.verb, "list");
  EXPECT_EQ(info.api_group, "");
  EXPECT_EQ(info.resource, "pods");
  EXPECT_EQ(info.ns, "default");
  EXPECT_EQ(info.name, "");
}

TEST(DescribeRequest, GetWithWatchTrueIsWatch) {
  EXPECT_EQ(DescribeRequest(Req("GET", "/api/v1/pods", {{"watch", "true"}})).verb, "watch");
  EXPECT_EQ(DescribeRequest(Req("GET", "/api/v1/pods", {{"watch", "1"}})).verb, "watch");
  EXPECT_EQ(DescribeRequest(Req("GET", "/api/v1/pods", {{"watch", "false"}})).verb, "list");
}

TEST(DescribeRequest, WatchPathPrefixIsWatchEvenOnANamedObject) {
  auto info = DescribeRequest(Req("GET", "/apis/coordination.k8s.io/v1/watch/namespaces/kube-system/leases/l1"));
  EXPECT_EQ(info.verb, "watch");
  EXPECT_EQ(info.api_group, "coordination.k8s.io");
  EXPECT_EQ(info.resource, "leases");
  EXPECT_EQ(info.ns, "kube-system");
  EXPECT_EQ(info.name, "l1");
  EXPECT_EQ(DescribeRequest(Req("GET", "/api/v1/watch/pods")).verb, "watch");
}

TEST(DescribeRequest, GetOnANamedObjectIsGet) {
  auto info = DescribeRequest(Req("GET", "/apis/scheduling.koordinator.sh/v1alpha1/reservations/r1"));
  EXPECT_EQ(info.verb, "get");
  EXPECT_EQ(info.api_group, "scheduling.koordinator.sh");
  EXPECT_EQ(info.resource, "reservations");
  EXPECT_EQ(info.ns, "");
  EXPECT_EQ(info.name, "r1");
}

TEST(DescribeRequest, WriteMethodsMapToCreateUpdatePatchDelete) {
  EXPECT_EQ(DescribeRequest(Req("POST", "/api/v1/namespaces/default/events")).verb, "create");
  EXPECT_EQ(DescribeRequest(Req("PUT", "/api/v1/namespaces/default/pods/p")).verb, "update");
  EXPECT_EQ(DescribeRequest(Req("PATCH", "/api/v1/namespaces/default/pods/p")).verb, "patch");
  EXPECT_EQ(DescribeRequest(Req("DELETE", "/api/v1/namespaces/default/pods/p")).verb, "delete");
}

TEST(DescribeRequest, DeleteOnACollectionIsDeleteCollection) {
  EXPECT_EQ(DescribeRequest(Req("DELETE", "/api/v1/namespaces/default/pods")).verb, "deletecollection");
}

TEST(DescribeRequest, SubresourceWritesKeepTheParentResourceAndNameTheSubresource) {
  auto binding = DescribeRequest(Req("POST", "/api/v1/namespaces/default/pods/p/binding"));
  EXPECT_EQ(binding.verb, "create");
  EXPECT_EQ(binding.resource, "pods");
  EXPECT_EQ(binding.subresource, "binding");
  EXPECT_EQ(binding.name, "p");
  auto status = DescribeRequest(Req("PUT", "/apis/scheduling.koordinator.sh/v1alpha1/reservations/r/status"));
  EXPECT_EQ(status.verb, "update");
  EXPECT_EQ(status.resource, "reservations");
  EXPECT_EQ(status.subresource, "status");
}

TEST(DescribeRequest, ListWithAMetadataNameFieldSelectorNamesTheObject) {
  auto info = DescribeRequest(Req("GET", "/api/v1/namespaces/default/pods",
                                  {{"watch", "true"}, {"fieldSelector", "spec.nodeName=n1,metadata.name==p1"}}));
  EXPECT_EQ(info.verb, "watch");
  EXPECT_EQ(info.name, "p1");
}

TEST(DescribeRequest, NamespaceObjectRequestsCarryTheNamespace) {
  auto info = DescribeRequest(Req("GET", "/api/v1/namespaces/team-a"));
  EXPECT_EQ(info.resource, "namespaces");
  EXPECT_EQ(info.name, "team-a");
  EXPECT_EQ(info.ns, "team-a");
}

TEST(DescribeRequest, NonResourcePathsUseTheLowerCaseMethod) {
  for (const char* path : {"/version", "/api", "/apis", "/apis/apps", "/healthz", "/", ""}) {
    auto info = DescribeRequest(Req("GET", path));
    EXPECT_FALSE(info.is_resource_request) << path;
    EXPECT_EQ(info.verb, "get") << path;
  }
}

TEST(DescribeRequest, MalformedPathsAreNonResourceRequestsWithoutCrashing) {
  for (const char* path : {"/api/v1/namespaces/default/pods/p/status/extra", "//api//", "/apis/g",
                           "/api/v1/watch", "/apis/g/v1/watch/"}) {
    auto info = DescribeRequest(Req("GET", path));
    EXPECT_FALSE(info.is_resource_request) << path;
  }
  EXPECT_EQ(DescribeRequest(Req("OPTIONS", "/api/v1/pods")).verb, "options");
}

TEST(AuditLogLine, ResourceLineHasEveryField) {
  auto info = DescribeRequest(Req("POST", "/api/v1/namespaces/default/pods/p/binding"));
  auto doc = json::Parse(AuditLogLine(info, "berth/0.1", 201));
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::GetString(*doc, {"verb"}), "create");
  EXPECT_EQ(json::GetString(*doc, {"apiGroup"}), "");
  EXPECT_EQ(json::GetString(*doc, {"resource"}), "pods");
  EXPECT_EQ(json::GetString(*doc, {"subresource"}), "binding");
  EXPECT_EQ(json::GetString(*doc, {"namespace"}), "default");
  EXPECT_EQ(json::GetString(*doc, {"name"}), "p");
  EXPECT_EQ(json::GetString(*doc, {"userAgent"}), "berth/0.1");
  ASSERT_NE(json::Find(*doc, {"code"}), nullptr);
  EXPECT_EQ(json::Find(*doc, {"code"})->GetInt(), 201);
}

TEST(AuditLogLine, StatusWritesCarryThePhaseAndEveryLineATimestamp) {
  auto info = DescribeRequest(Req("PUT", "/apis/scheduling.koordinator.sh/v1alpha1/reservations/r/status"));
  const double before = static_cast<double>(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count()) / 1000.0;
  auto doc = json::Parse(AuditLogLine(info, "berth/0.1", 200, "Failed", "node-1"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::GetString(*doc, {"subresource"}), "status");
  EXPECT_EQ(json::GetString(*doc, {"phase"}), "Failed");
  EXPECT_EQ(json::GetString(*doc, {"nodeName"}), "node-1");
  const json::Value* ts = json::Find(*doc, {"ts"});
  ASSERT_NE(ts, nullptr);
  EXPECT_GE(ts->GetDouble(), before - 0.001);
  EXPECT_LT(ts->GetDouble(), before + 60);
  auto without = json::Parse(AuditLogLine(info, "berth/0.1", 409));
  ASSERT_TRUE(without);
  EXPECT_EQ(json::Find(*without, {"phase"}), nullptr);
  EXPECT_EQ(json::Find(*without, {"nodeName"}), nullptr);
}

TEST(AuditLogLine, AcceptAndResponseContentTypeAreRecordedWhenKnown) {
  auto info = DescribeRequest(Req("GET", "/api/v1/pods"));
  auto doc = json::Parse(AuditLogLine(info, "kubectl", 200, "", "", "application/vnd.kubernetes.protobuf,application/json",
                                      "application/vnd.kubernetes.protobuf"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(json::GetString(*doc, {"accept"}), "application/vnd.kubernetes.protobuf,application/json");
  EXPECT_EQ(json::GetString(*doc, {"contentType"}), "application/vnd.kubernetes.protobuf");
  auto without = json::Parse(AuditLogLine(info, "kubectl", 200));
  ASSERT_TRUE(without);
  EXPECT_EQ(json::Find(*without, {"accept"}), nullptr);
  EXPECT_EQ(json::Find(*without, {"contentType"}), nullptr);
}

TEST(AuditLog, ConcurrentWritesProduceWholeLines) {
  auto path = std::filesystem::temp_directory_path() / ("kubesim-audit-" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(path);
  {
    auto log = AuditLog::Open(path.string());
    ASSERT_TRUE(log);
    auto info = DescribeRequest(Req("GET", "/api/v1/pods"));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 200; ++i) (*log)->Write(info, "ua \"quoted\"", 200);
      });
    }
    for (auto& t : threads) t.join();
  }
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    auto doc = json::Parse(line);
    ASSERT_TRUE(doc) << line;
    EXPECT_EQ(json::GetString(*doc, {"userAgent"}), "ua \"quoted\"");
    ++lines;
  }
  EXPECT_EQ(lines, 800);
  std::filesystem::remove(path);
}

TEST(AuditLog, OpenFailsForAnUnwritablePath) {
  auto log = AuditLog::Open("/nonexistent-dir/x/audit.log");
  ASSERT_FALSE(log);
  EXPECT_NE(log.error().message.find("/nonexistent-dir/x/audit.log"), std::string::npos);
}

}  // namespace
}  // namespace berth::kubesim
