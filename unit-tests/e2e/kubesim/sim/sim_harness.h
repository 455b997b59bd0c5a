// unit-tests/e2e/kubesim/sim/sim_harness.h
//
// An in-process kubesim without HTTPS for controller tests: store, registry, ApiServer and a
// running ClusterSim, with the default namespace and helpers to create, read, bind and poll.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/sim/cluster_sim.h"

namespace berth::kubesim::testing {

class SimHarness {
 public:
  explicit SimHarness(ClusterSimOptions options = {})
      : api_(ApiServerOptions{}, store_, registry_), sim_(options, api_) {
    sim_.Start();
    Create("", "namespaces", "", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})");
  }
  ~SimHarness() { sim_.Stop(); }

  ApiServer& api() { return api_; }

  // Create stores an object; the test fails if the apiserver refuses it.
  void Create(const std::string& group, const std::string& plural, const std::string& ns, const std::string& text) {
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc.has_value()) << text;
    OpResult r = api_.DoCreate(*api_.TypeOf(group, plural), ns, std::move(*doc), WriteOptions{"Strict", false, ""});
    ASSERT_TRUE(r.ok()) << (r.error ? r.error->body : "");
  }
  // AddNode stores a Ready node, so the simulated kubelet starts pods bound to it.
  void AddNode(const std::string& name) {
    Create("", "nodes", "", R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name + R"("}})");
  }
  // Get returns the object's JSON (an empty object when absent).
  rapidjson::Document Get(const std::string& resource, const std::string& ns, const std::string& name) {
    rapidjson::Document d(rapidjson::kObjectType);
    if (ObjectPtr o = store_.Get(resource, ns, name)) d.Parse(o->json.data(), o->json.size());
    return d;
  }
  // Pods lists the pods of `ns` (all of them, deleting or not).
  std::vector<rapidjson::Document> Pods(const std::string& ns = "default") {
    std::vector<rapidjson::Document> out;
    auto page = store_.List("/pods", ns, nullptr, 0, 0, "");
    for (const auto& p : page->items) {
      rapidjson::Document d;
      d.Parse(p->json.data(), p->json.size());
      out.push_back(std::move(d));
    }
    return out;
  }
  // EventMessages lists "<reason>: <message>" of the Events about `kind` `name` in `ns`.
  std::vector<std::string> EventMessages(const std::string& kind, const std::string& name, const std::string& ns = "default") {
    std::vector<std::string> out;
    auto page = store_.List("/events", ns, nullptr, 0, 0, "");
    for (const auto& e : page->items) {
      rapidjson::Document d;
      d.Parse(e->json.data(), e->json.size());
      if (json::GetString(d, {"involvedObject", "kind"}) != kind || json::GetString(d, {"involvedObject", "name"}) != name) continue;
      out.push_back(std::string(json::GetString(d, {"reason"})) + ": " + std::string(json::GetString(d, {"message"})));
    }
    return out;
  }
  // Edit changes an object as kubesim's own controllers do (no update validation).
  bool Edit(const std::string& group, const std::string& plural, const std::string& ns, const std::string& name,
            const std::string& subresource, const std::function<void(rapidjson::Document&)>& edit) {
    return api_.Mutate(*api_.TypeOf(group, plural), ns, name, subresource, [&](rapidjson::Document& d) {
      edit(d);
      return true;
    }).ok();
  }
  // Bind sets spec.nodeName like the binding subresource.
  void Bind(const std::string& ns, const std::string& pod, const std::string& node) {
    ASSERT_TRUE(Edit("", "pods", ns, pod, "", [&](rapidjson::Document& d) {
      json::SetString(json::EnsureObject(d, "spec", d.GetAllocator()), "nodeName", node, d.GetAllocator());
    }));
  }
  // BindPending binds every unbound pod to `node` (the test acts as the scheduler); returns true.
  bool BindPending(const std::string& node) {
    for (const auto& p : Pods()) {
      if (json::GetString(p, {"spec", "nodeName"}).empty() && !json::Find(p, {"metadata", "deletionTimestamp"})) {
        Bind("default", std::string(json::GetString(p, {"metadata", "name"})), node);
      }
    }
    return true;
  }
  // WaitFor polls `done` until it holds or `timeout` passes; returns its last value.
  static bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // poll interval, not a sync
    }
    return true;
  }

 private:
  ObjectStore store_;
  Registry registry_;
  ApiServer api_;
  ClusterSim sim_;
};

}  // namespace berth::kubesim::testing
