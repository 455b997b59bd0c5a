// unit-tests/e2e/kubesim/disruption/test_objects.h
//
// Builders for pod and PDB JSON used by the disruption tests.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/disruption/time_format.h"

namespace berth::kubesim::disruption::testing {

inline TimePoint T0() { return *ParseRfc3339("2024-05-01T10:00:00Z"); }

struct PodSpec {
  std::string name;
  std::string labels = R"({"app":"web"})";
  bool ready = true;
  std::string phase = "Running";
  std::string owner_kind = "ReplicaSet";
  std::string owner_uid = "rs-1";  // "" = no controller
  bool deleting = false;
  std::string ns = "default";
  std::string resource_version = "42";
};

inline std::string PodJson(const PodSpec& p) {
  std::string owners = p.owner_uid.empty()
                           ? "[]"
                           : R"([{"apiVersion":"apps/v1","kind":")" + p.owner_kind +
                                 R"(","name":")" + p.owner_uid + R"(","uid":")" + p.owner_uid +
                                 R"(","controller":true}])";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + p.name +
         R"(","namespace":")" + p.ns + R"(","resourceVersion":")" + p.resource_version +
         R"(","labels":)" + p.labels + R"(,"ownerReferences":)" + owners +
         (p.deleting ? R"(,"deletionTimestamp":"2024-05-01T09:59:00Z")" : "") +
         R"(},"status":{"phase":")" + p.phase +
         R"(","conditions":[{"type":"Ready","status":")" + (p.ready ? "True" : "False") +
         R"("}]}})";
}

// Store keeps parsed documents alive and hands out pointers.
class Store {
 public:
  const rapidjson::Value* Add(const std::string& text) {
    auto doc = json::Parse(text);
    EXPECT_TRUE(doc.has_value()) << text;
    docs_.push_back(std::move(*doc));
    return &docs_.back();
  }
  const rapidjson::Value* AddPod(const PodSpec& p) { return Add(PodJson(p)); }

 private:
  std::deque<rapidjson::Document> docs_;
};

inline std::string Str(const rapidjson::Value& v) { return json::Serialize(v); }

}  // namespace berth::kubesim::disruption::testing
