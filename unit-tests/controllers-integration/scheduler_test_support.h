// unit-tests/controllers-integration/scheduler_test_support.h
//
// berth's scheduler (and optionally the Reservation lifecycle controller) in a Manager against an
// in-process kubesim over HTTPS, with the Reservation CRD from crds/: object builders, direct
// in-process writes (no faults apply to them), reads of the server's store, and polling waits
// with deadlines.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/manager/manager.h"
#include "clientgo-shim/transport/https_client.h"
#include "controllers/reservation/reservation_controller.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace berth::controllers::testing {

inline std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(BERTH_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// WaitUntil polls `pred` every 10 ms until it holds or `limit` passes.
inline bool WaitUntil(const std::function<bool()>& pred, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

inline std::string ReservationJson(const std::string& name, const std::string& cpu, const std::string& app,
                                   const std::string& expiry_fields) {
  return R"({"apiVersion":"scheduling.koordinator.sh/v1alpha1","kind":"Reservation","metadata":{"name":")" + name +
         R"("},"spec":{"allocateOnce":false,"allocatePolicy":"Restricted",)" + expiry_fields +
         R"("template":{"metadata":{"namespace":"default"},"spec":{"schedulerName":"koord-scheduler",)"
         R"("containers":[{"name":"main","resources":{"requests":{"cpu":")" + cpu + R"("}}}]}},)"
         R"("owners":[{"labelSelector":{"matchLabels":{"app":")" + app + R"("}}}]}})";
}

inline std::string PodJson(const std::string& name, const std::string& cpu, const std::string& app) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"default","labels":{"app":")" + app +
         R"("}},"spec":{"schedulerName":"koord-scheduler","containers":[{"name":"main","image":"busybox",)"
         R"("resources":{"requests":{"cpu":")" + cpu + R"("}}}]}})";
}

// ServerPod: what the server holds for one pod.
struct ServerPod {
  std::string node;
  std::string reservation_uid;  // from the reservation-allocated annotation
  std::string scheduled_reason; // PodScheduled condition reason ("" when absent or True)
  int64_t milli_cpu = 0;
};

// Cluster: kubesim + the CRD + a Manager running berth's controllers.
class Cluster {
 public:
  explicit Cluster(kubesim::KubesimOptions options) : sim_(std::move(options)) {}
  ~Cluster() { StopManager(); }

  void Start() {
    auto port = sim_.Start();
    ASSERT_TRUE(port) << port.error().message;
    auto crd = sim_.LoadObjects(ReadSourceFile("crds/scheduling.koordinator.sh_reservations.yaml"));
    ASSERT_TRUE(crd) << crd.error().message;
    reservations_ = sim_.api().TypeOf("scheduling.koordinator.sh", "reservations");
    pods_ = sim_.api().TypeOf("", "pods");
    ASSERT_TRUE(reservations_ && pods_);
  }

  // StartManager runs the scheduler, and the lifecycle controller when `lifecycle`.
  void StartManager(bool lifecycle) {
    shim::HttpsRestClientOptions o;
    o.server = "https://127.0.0.1:" + std::to_string(sim_.port());
    o.ca_pem = sim_.ca_pem();
    const std::string token = sim_.token();
    o.token_source = [token] { return token; };
    o.on_request = [this](std::string_view method, int code, std::chrono::duration<double>) {
      if (code > 0 && code < 600) (method == "POST" ? post_codes_ : other_codes_)[code]++;
    };
    auto client = shim::HttpsRestClient::Create(std::move(o));
    ASSERT_TRUE(client) << client.error().message;
    shim::RestClientPtr rest = *client;
    shim::ManagerOptions mo;
    mo.rest = rest;
    mo.metrics_bind_address = "0";
    mo.health_probe_bind_address = "0";
    auto manager = shim::Manager::Create(mo);
    ASSERT_TRUE(manager) << manager.error().message;
    manager_ = std::move(*manager);
    if (lifecycle) {
      auto lc = ReservationController::Setup(*manager_, rest, {});
      ASSERT_TRUE(lc) << lc.error().message;
      lifecycle_ = std::move(*lc);
    }
    auto scheduler = SchedulerController::Setup(*manager_, rest, {});
    ASSERT_TRUE(scheduler) << scheduler.error().message;
    scheduler_ = std::move(*scheduler);
    ASSERT_TRUE(manager_->Start());
    ASSERT_TRUE(WaitUntil([&] { return manager_->ControllersStarted(); }, std::chrono::seconds(30)));
  }

  void StopManager() {
    if (manager_) manager_->Stop();
    scheduler_.reset();
    lifecycle_.reset();
    manager_.reset();
  }

  void CreateReservation(const std::string& json) { Create(*reservations_, "", json); }
  void CreatePod(const std::string& json) { Create(*pods_, "default", json); }

  // SetReservationStatus writes status directly (as a previous leader would have).
  void SetReservationStatus(const std::string& name, const std::string& status_json) {
    auto status = json::Parse(status_json);
    ASSERT_TRUE(status);
    auto r = sim_.api().Mutate(*reservations_, "", name, "status", [&](rapidjson::Document& d) {
      rapidjson::Value copy(*status, d.GetAllocator());
      json::SetMember(d, "status", std::move(copy), d.GetAllocator());
      return true;
    });
    ASSERT_TRUE(r.ok()) << name;
  }

  std::optional<rapidjson::Document> Reservation(const std::string& name) { return Get(*reservations_, "", name); }

  void DeleteReservation(const std::string& name) {
    auto r = sim_.api().DoDelete(*reservations_, "", name, {});
    ASSERT_TRUE(r.ok()) << name;
  }

  std::map<std::string, ServerPod> Pods() {
    std::map<std::string, ServerPod> out;
    auto list = sim_.store().List("/pods", "", [](const kubesim::StoredObject&) { return true; }, 0, 0, "");
    if (!list) return out;
    for (const auto& o : list->items) {
      auto doc = json::Parse(o->json);
      if (!doc) continue;
      ServerPod p;
      p.node = std::string(json::GetString(*doc, {"spec", "nodeName"}));
      std::string_view allocated =
          json::GetString(*doc, {"metadata", "annotations", "scheduling.koordinator.sh/reservation-allocated"});
      if (auto a = json::Parse(allocated); a && a->IsObject()) p.reservation_uid = json::GetString(*a, {"uid"});
      if (const auto* cs = json::Find(*doc, {"status", "conditions"}); cs && cs->IsArray()) {
        for (const auto& c : cs->GetArray()) {
          if (json::GetString(c, {"type"}) == "PodScheduled" && json::GetString(c, {"status"}) == "False") {
            p.scheduled_reason = json::GetString(c, {"reason"});
          }
        }
      }
      std::string_view cpu = "0";
      if (const auto* cs = json::Find(*doc, {"spec", "containers"}); cs && cs->IsArray() && !cs->Empty()) {
        cpu = json::GetString((*cs)[0], {"resources", "requests", "cpu"});
      }
      p.milli_cpu = cpu.ends_with("m") ? std::stoll(std::string(cpu.substr(0, cpu.size() - 1)))
                                       : std::stoll(std::string(cpu)) * 1000;
      out[o->name] = p;
    }
    return out;
  }

  // PostAnswers: how many POST attempts (transport retries included) the server answered `code`.
  int PostAnswers(int code) const { return post_codes_[code].load(); }
  // OtherAnswers: the same for every other method.
  int OtherAnswers(int code) const { return other_codes_[code].load(); }

  kubesim::KubesimInstance& sim() { return sim_; }
  kubesim::ResourceTypePtr reservations_type() { return reservations_; }

 private:
  void Create(const kubesim::ResourceType& type, const std::string& ns, const std::string& text) {
    auto doc = json::Parse(text);
    ASSERT_TRUE(doc) << text;
    auto r = sim_.api().DoCreate(type, ns, std::move(*doc), {});
    ASSERT_TRUE(r.ok()) << text;
  }
  std::optional<rapidjson::Document> Get(const kubesim::ResourceType& type, const std::string& ns,
                                         const std::string& name) {
    auto object = sim_.store().Get(type.StorageKey(), ns, name);
    if (!object) return std::nullopt;
    auto doc = json::Parse(object->json);
    if (!doc) return std::nullopt;
    return std::move(*doc);
  }

  std::array<std::atomic<int>, 600> post_codes_{};
  std::array<std::atomic<int>, 600> other_codes_{};
  kubesim::KubesimInstance sim_;
  kubesim::ResourceTypePtr reservations_;
  kubesim::ResourceTypePtr pods_;
  std::unique_ptr<shim::Manager> manager_;
  std::unique_ptr<ReservationController> lifecycle_;
  std::unique_ptr<SchedulerController> scheduler_;
};

}  // namespace berth::controllers::testing
