// unit-tests/clientgo-shim-integration/informer_test_support.h
//
// Helpers for informer tests against an in-process kubesim: a client for the instance, a
// RestClient decorator that counts requests, in-process writes, and the comparison of an
// informer's cache with the server's own store (names, resourceVersions, labels, nodeName).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/store.h"
#include "clientgo-shim/transport/https_client.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace berth::shim::testing {

inline std::shared_ptr<HttpsRestClient> ClientFor(kubesim::KubesimInstance& sim) {
  HttpsRestClientOptions o;
  o.server = "https://127.0.0.1:" + std::to_string(sim.port());
  o.ca_pem = sim.ca_pem();
  const std::string token = sim.token();
  o.token_source = [token] { return token; };
  o.cancel_poll_interval = std::chrono::milliseconds(100);
  auto c = HttpsRestClient::Create(std::move(o));
  EXPECT_TRUE(c.has_value()) << c.error().message;
  return c ? *c : nullptr;
}

// CountingClient forwards to another RestClient and counts LISTs and WATCHes per path.
class CountingClient : public RestClient {
 public:
  explicit CountingClient(RestClientPtr inner) : inner_(std::move(inner)) {}
  Result<RestResponse> Do(const RestRequest& r) override {
    ++lists;
    auto response = inner_->Do(r);
    std::lock_guard lock(mu_);
    accepts.push_back(r.accept);
    if (response) content_types.push_back(response->headers["content-type"]);
    return response;
  }
  Status Stream(const RestRequest& r, const std::function<bool(std::string_view)>& on_line,
                const std::atomic<bool>* cancel) override {
    ++watches;
    return inner_->Stream(r, on_line, cancel);
  }
  Status StreamBytes(const RestRequest& r,
                     const std::function<void(const std::map<std::string, std::string>&)>& on_headers,
                     const std::function<bool(std::string_view)>& on_bytes,
                     const std::atomic<bool>* cancel) override {
    ++watches;
    {
      std::lock_guard lock(mu_);
      accepts.push_back(r.accept);
    }
    return inner_->StreamBytes(
        r,
        [&](const std::map<std::string, std::string>& headers) {
          {
            std::lock_guard lock(mu_);
            auto it = headers.find("content-type");
            content_types.push_back(it == headers.end() ? "" : it->second);
          }
          on_headers(headers);
        },
        on_bytes, cancel);
  }
  // Accepts / ContentTypes: every request's Accept header and every 2xx answer's Content-Type.
  std::vector<std::string> Accepts() const {
    std::lock_guard lock(mu_);
    return accepts;
  }
  std::vector<std::string> ContentTypes() const {
    std::lock_guard lock(mu_);
    return content_types;
  }
  std::atomic<int> lists{0};
  std::atomic<int> watches{0};

 private:
  RestClientPtr inner_;
  mutable std::mutex mu_;
  std::vector<std::string> accepts, content_types;
};

inline std::string PodBody(const std::string& ns, const std::string& name, const std::string& node,
                           const std::string& app) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","labels":{"app":")" + app + R"("}},"spec":{)" +
         (node.empty() ? "" : R"("nodeName":")" + node + R"(",)") +
         R"("containers":[{"name":"c","image":"nginx:1.27","resources":{"requests":{"cpu":"100m"}}}]}})";
}

// Writes go straight to the in-process API server (no faults apply to them).
class Writer {
 public:
  explicit Writer(kubesim::KubesimInstance& sim)
      : sim_(sim), pods_(sim.api().TypeOf("", "pods")) {}
  void Create(const std::string& ns, const std::string& name, const std::string& node = "",
              const std::string& app = "web") {
    auto doc = json::Parse(PodBody(ns, name, node, app));
    ASSERT_TRUE(doc);
    auto r = sim_.api().DoCreate(*pods_, ns, std::move(*doc), {});
    ASSERT_TRUE(r.ok()) << name;
  }
  void CreateNamespace(const std::string& name) {
    auto doc = json::Parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + name +
                           R"("}})");
    ASSERT_TRUE(doc);
    auto r = sim_.api().DoCreate(*sim_.api().TypeOf("", "namespaces"), "", std::move(*doc), {});
    ASSERT_TRUE(r.ok()) << name;
  }
  // Noise writes `n` ConfigMaps: they advance the server's (global) resourceVersion and fill
  // the watch history without any pod event, as other controllers' writes do.
  void Noise(int n) {
    for (int i = 0; i < n; ++i) {
      auto doc = json::Parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"noise-)" +
                             std::to_string(noise_++) + R"(","namespace":"default"},"data":{"k":"v"}})");
      ASSERT_TRUE(doc);
      auto r = sim_.api().DoCreate(*sim_.api().TypeOf("", "configmaps"), "default", std::move(*doc), {});
      ASSERT_TRUE(r.ok());
    }
  }
  void Relabel(const std::string& ns, const std::string& name, const std::string& app) {
    auto r = sim_.api().Mutate(*pods_, ns, name, "", [&](rapidjson::Document& d) {
      auto& labels = json::EnsureObject(json::EnsureObject(d, "metadata", d.GetAllocator()),
                                        "labels", d.GetAllocator());
      json::SetString(labels, "app", app, d.GetAllocator());
      return true;
    });
    ASSERT_TRUE(r.ok()) << name;
  }
  void Delete(const std::string& ns, const std::string& name) {
    kubesim::DeleteOptions o;
    o.grace_period_seconds = 0;
    auto r = sim_.api().DoDelete(*pods_, ns, name, o);
    ASSERT_TRUE(r.ok()) << name;
  }

 private:
  kubesim::KubesimInstance& sim_;
  kubesim::ResourceTypePtr pods_;
  int noise_ = 0;
};

// Snapshot: key → "rv|labels|nodeName" for every pod, from either side.
using Snapshot = std::map<std::string, std::string>;

inline std::string Describe(const std::string& rv, const std::map<std::string, std::string>& labels,
                            const std::string& node) {
  std::string out = rv + "|";
  for (const auto& [k, v] : labels) out += k + "=" + v + ",";
  return out + "|" + node;
}

inline Snapshot ServerPods(kubesim::KubesimInstance& sim) {
  Snapshot out;
  auto list = sim.store().List("/pods", "", [](const kubesim::StoredObject&) { return true; }, 0, 0, "");
  if (!list) return out;
  for (const auto& o : list->items) {
    std::map<std::string, std::string> labels(o->labels.begin(), o->labels.end());
    auto doc = json::Parse(o->json);
    std::string node = doc ? std::string(json::GetString(*doc, {"spec", "nodeName"})) : "";
    out[o->namespace_name + "/" + o->name] = Describe(std::to_string(o->resource_version), labels, node);
  }
  return out;
}

inline Snapshot CachedPods(const Store& store) {
  Snapshot out;
  for (const auto& o : store.List()) {
    auto doc = o->ToJson();
    std::map<std::string, std::string> labels;
    std::string node;
    if (doc) {
      if (const auto* l = json::Find(*doc, {"metadata", "labels"}); l && l->IsObject()) {
        for (const auto& m : l->GetObject()) labels[m.name.GetString()] = m.value.GetString();
      }
      node = std::string(json::GetString(*doc, {"spec", "nodeName"}));
    }
    out[std::string(o->Key())] = Describe(std::string(o->ResourceVersion()), labels, node);
  }
  return out;
}

// WaitUntil polls `pred` until it holds or `limit` passes.
inline bool WaitUntil(const std::function<bool()>& pred,
                      std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

// EventuallyEqual polls until the cache equals the server, or the deadline; then reports the
// first differences.
inline ::testing::AssertionResult EventuallyEqual(kubesim::KubesimInstance& sim, const Store& store,
                                                  std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  Snapshot server, cached;
  while (true) {
    server = ServerPods(sim);
    cached = CachedPods(store);
    if (server == cached) return ::testing::AssertionSuccess();
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto r = ::testing::AssertionFailure();
  r << "server " << server.size() << " pods, cache " << cached.size() << ";";
  int shown = 0;
  for (const auto& [k, v] : server) {
    auto it = cached.find(k);
    if (it == cached.end() || it->second != v) {
      r << " " << k << " server=" << v << " cache=" << (it == cached.end() ? "-" : it->second);
      if (++shown == 5) break;
    }
  }
  for (const auto& [k, v] : cached) {
    if (!server.count(k) && shown++ < 10) r << " extra " << k << "=" << v;
  }
  return r;
}

// CountedClusterTest: each test gets a started kubesim of three nodes (bookmarks every 500 ms) and
// a CountingClient to it (protobuf served, as kubesim does by default, unless serve_protobuf is
// false); Base is ::testing::Test or a TestWithParam.
template <class Base = ::testing::Test>
class CountedClusterTest : public Base {
 protected:
  void StartCluster(bool serve_protobuf = true) {
    kubesim::KubesimOptions o;
    o.nodes = 3;
    o.bookmark_interval = std::chrono::milliseconds(500);
    o.serve_protobuf = serve_protobuf;
    sim_ = std::make_unique<kubesim::KubesimInstance>(o);
    auto port = sim_->Start();
    ASSERT_TRUE(port) << port.error().message;
    client_ = std::make_shared<CountingClient>(ClientFor(*sim_));
  }
  void TearDown() override {
    if (sim_) sim_->Stop();
  }
  std::unique_ptr<kubesim::KubesimInstance> sim_;
  std::shared_ptr<CountingClient> client_;
};

}  // namespace berth::shim::testing
