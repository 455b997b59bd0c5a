// RBAC printers: roles print Name and Created At, bindings Name, Role and Age (plus subjects wide).
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

rapidjson::Document Table(std::string_view resource, std::string_view object) {
  rapidjson::Document obj = ParseJson(object);
  TableRequest req;
  req.group = "rbac.authorization.k8s.io";
  req.resource = resource;
  return BuildTable(req, {&obj}, At("2024-05-01T12:00:00Z"));
}

TEST(RbacPrintersTest, RolesAndClusterRolesPrintNameAndCreatedAt) {
  for (const char* resource : {"roles", "clusterroles"}) {
    auto t = Table(resource, R"({"metadata":{"name":"r","creationTimestamp":"2024-05-01T11:00:00Z"},"rules":[]})");
    EXPECT_EQ(Header(t), (Strings{"Name:string:0", "Created At:date:0"})) << resource;
    EXPECT_EQ(Cells(t), (Strings{"r", "2024-05-01T11:00:00Z"})) << resource;
  }
}

TEST(RbacPrintersTest, BindingsPrintTheRoleRefAndTheirSubjectsWide) {
  auto t = Table("clusterrolebindings", R"({"metadata":{"name":"b","creationTimestamp":"2024-05-01T11:00:00Z"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
    "subjects":[{"kind":"User","name":"alice"},{"kind":"Group","name":"devs"},{"kind":"User","name":"bob"},
                {"kind":"ServiceAccount","name":"berth","namespace":"berth-system"}]})");
  EXPECT_EQ(Header(t), (Strings{"Name:string:0", "Role:string:0", "Age:string:0", "Users:string:1", "Groups:string:1",
                                "ServiceAccounts:string:1"}));
  EXPECT_EQ(Cells(t), (Strings{"b", "ClusterRole/view", "60m", "alice, bob", "devs", "berth-system/berth"}));
}

TEST(RbacPrintersTest, MalformedSubjectsAndRoleRefPrintEmptyCells) {
  auto t = Table("rolebindings", R"({"metadata":{"name":"b"},"roleRef":"x","subjects":{"kind":"User"}})");
  EXPECT_EQ(Cells(t), (Strings{"b", "/", "<unknown>", "", "", ""}));
}

}  // namespace
}  // namespace berth::kubesim::table
