// Issue 13: the lifecycle controller acts only on reservations of the schedulers berth serves.
#include <gtest/gtest.h>

#include "controllers/reservation/reservation_controller.h"

namespace berth::controllers {
namespace {

TEST(ManagesReservation, OnlyTheServedSchedulerNamesUnlessAllSchedulers) {
  ReservationControllerOptions options;
  EXPECT_TRUE(ManagesReservation(options, "koord-scheduler"));
  EXPECT_FALSE(ManagesReservation(options, "other-scheduler"));
  EXPECT_FALSE(ManagesReservation(options, "")) << "empty means default-scheduler, which berth does not serve";
  options.scheduler_names = {"berth-a", "default-scheduler"};
  EXPECT_TRUE(ManagesReservation(options, "berth-a"));
  EXPECT_TRUE(ManagesReservation(options, ""));
  EXPECT_FALSE(ManagesReservation(options, "koord-scheduler"));
  options.all_schedulers = true;
  EXPECT_TRUE(ManagesReservation(options, "koord-scheduler"));
  EXPECT_TRUE(ManagesReservation(options, "anything"));
}

}  // namespace
}  // namespace berth::controllers
