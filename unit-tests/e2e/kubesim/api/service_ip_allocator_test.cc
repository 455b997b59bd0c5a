#include "e2e/kubesim/api/service_ip_allocator.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

rapidjson::Document Parse(const char* text) {
  auto d = json::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d ? std::move(*d) : rapidjson::Document();
}

std::string ClusterIp(const rapidjson::Value& svc) { return std::string(json::GetString(svc, {"spec", "clusterIP"})); }

TEST(ParseIpv4Test, AcceptsDottedQuadsAndRejectsEverythingElse) {
  EXPECT_EQ(ParseIpv4("10.96.0.1"), 0x0A600001u);
  EXPECT_EQ(ParseIpv4("255.255.255.255"), 0xFFFFFFFFu);
  for (const char* bad : {"", "10.96.0", "10.96.0.1.2", "10.96.0.256", "a.b.c.d", "10.96.0.01", "10..0.1", "10.96.0.1 ",
                          "None", "::1"}) {
    EXPECT_FALSE(ParseIpv4(bad).has_value()) << bad;
  }
  EXPECT_EQ(FormatIpv4(0x0A600001u), "10.96.0.1");
}

TEST(ServiceAddressAllocatorTest, AllocatesAClusterIpInTheServiceCidrAndMirrorsItIntoClusterIps) {
  ServiceAddressAllocator alloc;
  auto svc = Parse(R"({"spec":{"type":"ClusterIP","ports":[{"port":80}]}})");
  ServiceAllocation reserved;
  auto causes = alloc.Assign(svc, nullptr, svc.GetAllocator(), false, &reserved);
  ASSERT_TRUE(causes.empty());
  auto ip = ParseIpv4(ClusterIp(svc));
  ASSERT_TRUE(ip.has_value()) << ClusterIp(svc);
  EXPECT_GE(*ip, 0x0A600001u);
  EXPECT_LE(*ip, 0x0A6FFFFEu);
  ASSERT_TRUE(svc["spec"]["clusterIPs"].IsArray());
  EXPECT_EQ(std::string(svc["spec"]["clusterIPs"][0].GetString()), ClusterIp(svc));
  EXPECT_TRUE(alloc.IsIpAllocated(*ip));
  ASSERT_EQ(reserved.ips.size(), 1u);
  EXPECT_FALSE(svc["spec"]["ports"][0].HasMember("nodePort"));
}

TEST(ServiceAddressAllocatorTest, ARequestedIpInUseIsRefusedWithTheApiserverWording) {
  ServiceAddressAllocator alloc;
  auto first = Parse(R"({"spec":{"clusterIP":"10.96.0.10"}})");
  ASSERT_TRUE(alloc.Assign(first, nullptr, first.GetAllocator(), false, nullptr).empty());
  auto second = Parse(R"({"spec":{"clusterIPs":["10.96.0.10"]}})");
  auto causes = alloc.Assign(second, nullptr, second.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.clusterIPs");
  EXPECT_EQ(FieldErrorMessage(causes[0]),
            "spec.clusterIPs: Invalid value: []string{\"10.96.0.10\"}: failed to allocate IP 10.96.0.10: "
            "provided IP is already allocated");
}

TEST(ServiceAddressAllocatorTest, AnIpOutsideTheRangeOrMalformedIsRefused) {
  ServiceAddressAllocator alloc;
  auto outside = Parse(R"({"spec":{"clusterIP":"10.0.0.5"}})");
  auto causes = alloc.Assign(outside, nullptr, outside.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_NE(causes[0].message.find("the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is "
                                   "10.96.0.0/12"),
            std::string::npos);
  auto bad = Parse(R"({"spec":{"clusterIP":"10.96.x.1"}})");
  causes = alloc.Assign(bad, nullptr, bad.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "spec.clusterIPs[0]");
  EXPECT_NE(causes[0].message.find("must be a valid IP address"), std::string::npos);
}

TEST(ServiceAddressAllocatorTest, HeadlessAndExternalNameServicesGetNoAddress) {
  ServiceAddressAllocator alloc;
  auto headless = Parse(R"({"spec":{"clusterIP":"None"}})");
  ASSERT_TRUE(alloc.Assign(headless, nullptr, headless.GetAllocator(), false, nullptr).empty());
  EXPECT_EQ(ClusterIp(headless), "None");
  EXPECT_EQ(std::string(headless["spec"]["clusterIPs"][0].GetString()), "None");
  auto external = Parse(R"({"spec":{"type":"ExternalName","externalName":"example.com"}})");
  ASSERT_TRUE(alloc.Assign(external, nullptr, external.GetAllocator(), false, nullptr).empty());
  EXPECT_FALSE(external["spec"].HasMember("clusterIP"));
}

TEST(ServiceAddressAllocatorTest, DeleteReleasesTheAddressForReuse) {
  ServiceAddressAllocator alloc;
  auto svc = Parse(R"({"spec":{"clusterIP":"10.96.0.10","type":"NodePort","ports":[{"port":80,"nodePort":30080}]}})");
  ASSERT_TRUE(alloc.Assign(svc, nullptr, svc.GetAllocator(), false, nullptr).empty());
  EXPECT_TRUE(alloc.IsNodePortAllocated(30080));
  alloc.ReleaseDropped(svc, nullptr);
  EXPECT_FALSE(alloc.IsIpAllocated(*ParseIpv4("10.96.0.10")));
  EXPECT_FALSE(alloc.IsNodePortAllocated(30080));
  auto again = Parse(R"({"spec":{"clusterIP":"10.96.0.10"}})");
  EXPECT_TRUE(alloc.Assign(again, nullptr, again.GetAllocator(), false, nullptr).empty());
}

TEST(ServiceAddressAllocatorTest, NodePortServicesGetAPortInRangeAndConflictsAreRefused) {
  ServiceAddressAllocator alloc;
  auto svc = Parse(R"({"spec":{"type":"NodePort","ports":[{"name":"a","port":80},{"name":"b","port":81,"nodePort":30081}]}})");
  ASSERT_TRUE(alloc.Assign(svc, nullptr, svc.GetAllocator(), false, nullptr).empty());
  int64_t np = svc["spec"]["ports"][0]["nodePort"].GetInt64();
  EXPECT_GE(np, 30000);
  EXPECT_LE(np, 32767);
  EXPECT_NE(np, 30081);
  auto clash = Parse(R"({"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30081}]}})");
  auto causes = alloc.Assign(clash, nullptr, clash.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(FieldErrorMessage(causes[0]), "spec.ports[0].nodePort: Invalid value: 30081: provided port is already allocated");
  auto outside = Parse(R"({"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":80}]}})");
  causes = alloc.Assign(outside, nullptr, outside.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_NE(causes[0].message.find("The range of valid ports is 30000-32767"), std::string::npos);
}

TEST(ServiceAddressAllocatorTest, AFailedAssignReservesNothing) {
  ServiceAddressAllocator alloc;
  auto taken = Parse(R"({"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30081}]}})");
  ASSERT_TRUE(alloc.Assign(taken, nullptr, taken.GetAllocator(), false, nullptr).empty());
  auto svc = Parse(R"({"spec":{"type":"NodePort","clusterIP":"10.96.0.20","ports":[{"port":80,"nodePort":30081}]}})");
  EXPECT_FALSE(alloc.Assign(svc, nullptr, svc.GetAllocator(), false, nullptr).empty());
  EXPECT_FALSE(alloc.IsIpAllocated(*ParseIpv4("10.96.0.20")));
}

TEST(ServiceAddressAllocatorTest, DryRunReservesNothing) {
  ServiceAddressAllocator alloc;
  auto svc = Parse(R"({"spec":{"clusterIP":"10.96.0.30"}})");
  ASSERT_TRUE(alloc.Assign(svc, nullptr, svc.GetAllocator(), true, nullptr).empty());
  EXPECT_FALSE(alloc.IsIpAllocated(*ParseIpv4("10.96.0.30")));
}

TEST(ServiceAddressAllocatorTest, AnUpdateWithoutAddressesKeepsTheOldOnesAndMayNotChangeThem) {
  ServiceAddressAllocator alloc;
  auto old_svc = Parse(R"({"spec":{"type":"NodePort","ports":[{"name":"web","port":80}]}})");
  ASSERT_TRUE(alloc.Assign(old_svc, nullptr, old_svc.GetAllocator(), false, nullptr).empty());
  auto update = Parse(R"({"spec":{"type":"NodePort","ports":[{"name":"web","port":80}]}})");
  ServiceAllocation reserved;
  ASSERT_TRUE(alloc.Assign(update, &old_svc, update.GetAllocator(), false, &reserved).empty());
  EXPECT_EQ(ClusterIp(update), ClusterIp(old_svc));
  EXPECT_EQ(update["spec"]["ports"][0]["nodePort"].GetInt64(), old_svc["spec"]["ports"][0]["nodePort"].GetInt64());
  EXPECT_TRUE(reserved.ips.empty());
  EXPECT_TRUE(reserved.node_ports.empty());

  auto changed = Parse(R"({"spec":{"clusterIP":"10.96.0.99"}})");
  auto causes = alloc.Assign(changed, &old_svc, changed.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(FieldErrorMessage(causes[0]), "spec.clusterIPs[0]: Invalid value: \"10.96.0.99\": may not change once set");
}

TEST(ServiceAddressAllocatorTest, ChangingToClusterIpTypeReleasesTheNodePort) {
  ServiceAddressAllocator alloc;
  auto old_svc = Parse(R"({"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30090}]}})");
  ASSERT_TRUE(alloc.Assign(old_svc, nullptr, old_svc.GetAllocator(), false, nullptr).empty());
  auto update = Parse(R"({"spec":{"type":"ClusterIP","ports":[{"port":80}]}})");
  ASSERT_TRUE(alloc.Assign(update, &old_svc, update.GetAllocator(), false, nullptr).empty());
  alloc.ReleaseDropped(old_svc, &update);
  EXPECT_FALSE(alloc.IsNodePortAllocated(30090));
  EXPECT_TRUE(alloc.IsIpAllocated(*ParseIpv4(ClusterIp(update))));
}

TEST(ServiceAddressAllocatorTest, PatchingOnlyTheSingularClusterIpIsAChangeOfTheAddress) {
  ServiceAddressAllocator alloc;
  auto old_svc = Parse(R"({"spec":{"clusterIP":"10.96.0.40"}})");
  ASSERT_TRUE(alloc.Assign(old_svc, nullptr, old_svc.GetAllocator(), false, nullptr).empty());
  auto patched = Parse(R"({"spec":{"clusterIP":"10.96.0.41","clusterIPs":["10.96.0.40"]}})");
  auto causes = alloc.Assign(patched, &old_svc, patched.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(FieldErrorMessage(causes[0]), "spec.clusterIPs[0]: Invalid value: \"10.96.0.41\": may not change once set");
}

TEST(ServiceAddressAllocatorTest, ATypeChangeToClusterIpDropsTheUnchangedNodePorts) {
  ServiceAddressAllocator alloc;
  auto old_svc = Parse(R"({"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30091}]}})");
  ASSERT_TRUE(alloc.Assign(old_svc, nullptr, old_svc.GetAllocator(), false, nullptr).empty());
  auto update = Parse(R"({"spec":{"type":"ClusterIP","ports":[{"port":80,"nodePort":30091}]}})");
  ASSERT_TRUE(alloc.Assign(update, &old_svc, update.GetAllocator(), false, nullptr).empty());
  EXPECT_FALSE(update["spec"]["ports"][0].HasMember("nodePort"));
  auto other = Parse(R"({"spec":{"type":"ClusterIP","ports":[{"port":80,"nodePort":30092}]}})");
  auto causes = alloc.Assign(other, &old_svc, other.GetAllocator(), false, nullptr);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].reason, "FieldValueForbidden");
}

TEST(ServiceAddressAllocatorTest, MalformedServicesDoNotCrash) {
  ServiceAddressAllocator alloc;
  for (const char* text : {R"([])", R"({"spec":[]})", R"({"spec":{"clusterIPs":[1,2]}})",
                           R"({"spec":{"type":"NodePort","ports":[1,{"nodePort":"x"}]}})", R"({"spec":{"clusterIP":7}})"}) {
    auto svc = Parse(text);
    alloc.Assign(svc, nullptr, svc.GetAllocator(), false, nullptr);
    alloc.ReleaseDropped(svc, nullptr);
  }
  SUCCEED();
}

}  // namespace
}  // namespace berth::kubesim
