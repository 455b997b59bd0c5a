#include "e2e/kubesim/sim/serviceaccount_controller.h"

#include <gtest/gtest.h>

#include "sim_harness.h"

namespace berth::kubesim {
namespace {

using testing::SimHarness;

TEST(DefaultServiceAccountControllerTest, EveryNamespaceGetsADefaultServiceAccountThatComesBackWhenDeleted) {
  SimHarness h;
  h.Create("", "namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"apps"}})");
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.api().store().Get("/serviceaccounts", "apps", "default") != nullptr; }));
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.api().store().Get("/serviceaccounts", "default", "default") != nullptr; }));
  std::string uid = h.api().store().Get("/serviceaccounts", "apps", "default")->uid;
  ASSERT_TRUE(h.api().DoDelete(*h.api().TypeOf("", "serviceaccounts"), "apps", "default", DeleteOptions{}).ok());
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    ObjectPtr sa = h.api().store().Get("/serviceaccounts", "apps", "default");
    return sa && sa->uid != uid;
  }));
}

TEST(DefaultServiceAccountControllerTest, OtherServiceAccountsAreNotRecreated) {
  SimHarness h;
  h.Create("", "serviceaccounts", "default", R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"mine"}})");
  ASSERT_TRUE(h.api().DoDelete(*h.api().TypeOf("", "serviceaccounts"), "default", "mine", DeleteOptions{}).ok());
  // Deleting "default" afterwards and seeing it return proves the deletion of "mine" was processed.
  ASSERT_TRUE(SimHarness::WaitFor([&] { return h.api().store().Get("/serviceaccounts", "default", "default") != nullptr; }));
  std::string uid = h.api().store().Get("/serviceaccounts", "default", "default")->uid;
  ASSERT_TRUE(h.api().DoDelete(*h.api().TypeOf("", "serviceaccounts"), "default", "default", DeleteOptions{}).ok());
  ASSERT_TRUE(SimHarness::WaitFor([&] {
    ObjectPtr sa = h.api().store().Get("/serviceaccounts", "default", "default");
    return sa && sa->uid != uid;
  }));
  EXPECT_EQ(h.api().store().Get("/serviceaccounts", "default", "mine"), nullptr);
}

}  // namespace
}  // namespace berth::kubesim
