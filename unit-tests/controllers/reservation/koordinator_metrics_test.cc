// KoordinatorReservationMetrics: koord-scheduler's per-reservation phase and resource series.
#include "controllers/reservation/koordinator_metrics.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

constexpr int64_t kGiMilli = int64_t{1024} * 1024 * 1024 * 1000;

TEST(KoordinatorMetricsTest, ResourceSamplesUseKoordinatorsUnits) {
  auto samples = ReservationResourceSamples({{"cpu", 500}, {"memory", 2 * kGiMilli}, {"nvidia.com/gpu", 2000}},
                                            {{"cpu", 200}, {"memory", kGiMilli / 2}});
  std::vector<ReservationResourceSample> want = {
      {"allocatable", "cpu", "core", 0.5},        {"allocatable", "memory", "Gi", 2},
      {"allocatable", "nvidia.com/gpu", "raw", 2}, {"allocated", "cpu", "core", 0.2},
      {"allocated", "memory", "Gi", 0.5},          {"utilization", "cpu", "ratio", 0.4},
      {"utilization", "memory", "ratio", 0.25},    {"utilization", "nvidia.com/gpu", "ratio", 0}};
  EXPECT_EQ(samples, want);
  // No utilization where nothing is allocatable.
  EXPECT_EQ(ReservationResourceSamples({{"cpu", 0}}, {}),
            (std::vector<ReservationResourceSample>{{"allocatable", "cpu", "core", 0}}));
}

TEST(KoordinatorMetricsTest, PhaseIsOneForTheCurrentPhaseAndSeriesGoWithTheReservation) {
  shim::Registry registry;
  KoordinatorReservationMetrics m;
  ASSERT_TRUE(m.Register(registry).has_value());
  m.Observe("r1", "", {{"cpu", 1000}}, {});
  std::string text = registry.Render();
  EXPECT_NE(text.find(R"(scheduler_reservation_status_phase{name="r1",phase="Pending"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(scheduler_reservation_status_phase{name="r1",phase="Available"} 0)"), std::string::npos);
  EXPECT_NE(text.find(R"(scheduler_reservation_resource{name="r1",resource="cpu",type="allocatable",unit="core"} 1)"),
            std::string::npos)
      << text;

  m.Observe("r1", "Available", {{"cpu", 1000}}, {{"cpu", 250}});
  text = registry.Render();
  EXPECT_NE(text.find(R"(scheduler_reservation_status_phase{name="r1",phase="Pending"} 0)"), std::string::npos);
  EXPECT_NE(text.find(R"(scheduler_reservation_status_phase{name="r1",phase="Available"} 1)"), std::string::npos);
  EXPECT_NE(text.find(R"(scheduler_reservation_resource{name="r1",resource="cpu",type="utilization",unit="ratio"} 0.25)"),
            std::string::npos)
      << text;
  // Waiting is not one of koordinator's phases: all four read 0.
  m.Observe("r1", "Waiting", {{"cpu", 1000}}, {});
  text = registry.Render();
  EXPECT_EQ(text.find(R"(name="r1",phase="Available"} 1)"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(type="allocated")"), std::string::npos) << "the old allocated series is gone: " << text;

  m.Forget("r1");
  text = registry.Render();
  EXPECT_EQ(text.find(R"(name="r1")"), std::string::npos) << text;
}

}  // namespace
}  // namespace berth::controllers
