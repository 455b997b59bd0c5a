// unit-tests/clientgo-shim/cache/store_test_objects.h
//
// Pods as the store's tests add them (name, namespace, resourceVersion, optional nodeName) and the
// sorted keys of what a store returns, shared by store_test.cc and store_index_test.cc.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/store.h"

namespace berth::shim::testing {

inline ObjectPtr Pod(const std::string& ns, const std::string& name, const std::string& rv,
                     const std::string& node = "") {
  std::string text = R"({"metadata":{"name":")" + name + R"(","namespace":")" + ns +
                     R"(","resourceVersion":")" + rv + R"("},"spec":{)" +
                     (node.empty() ? "" : R"("nodeName":")" + node + "\"") + "}}";
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc);
  auto obj = CachedObject::FromJson(*doc);
  EXPECT_TRUE(obj);
  return *obj;
}

// The objects' namespace/name keys, sorted: index and list order is not part of the contract.
inline std::vector<std::string> Keys(const std::vector<ObjectPtr>& objs) {
  std::vector<std::string> out;
  for (const auto& o : objs) out.emplace_back(o->Key());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace berth::shim::testing
