// berth-manager's own boolean flags read as Go's flag package reads them: an operator's extraArgs
// `--migration-evict-bare-pods` (named alone) means true, as for --leader-elect and --zap-devel.
#include "controllers/manager/berth_flags.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

std::vector<ControllerRegistration> Table() { return {{"reservation", true, nullptr, nullptr}}; }

std::optional<int> Parse(std::vector<std::string> args, BerthFlags& flags) {
  return ParseBerthFlags(args, Table(), flags);
}

TEST(BerthFlagsTest, EveryBooleanNamedAloneIsTrue) {
  BerthFlags flags;
  flags.pre_allocation.enable_cluster_mode = false;
  ASSERT_EQ(Parse({"--reservation-lifecycle-all-schedulers", "--pre-allocation-cluster-mode",
                   "--pre-allocation-prefer-no-pre-allocated-pods", "--migration-evict-daemonset-pods",
                   "--migration-evict-system-critical-pods", "--migration-evict-bare-pods",
                   "--migration-evict-local-storage-pods", "--migration-skip-check-expected-replicas",
                   "--migration-reserve-ahead", "--reservation-workers=2"},
                  flags),
            std::nullopt);
  EXPECT_TRUE(flags.reservation_lifecycle_all_schedulers);
  EXPECT_TRUE(flags.pre_allocation.enable_cluster_mode);
  EXPECT_TRUE(flags.pre_allocation.prefer_no_pre_allocated_pods);
  EXPECT_TRUE(flags.migration.evictability.evict_daemonset_pods);
  EXPECT_TRUE(flags.migration.evictability.evict_system_critical_pods);
  EXPECT_TRUE(flags.migration.evictability.evict_bare_pods);
  EXPECT_TRUE(flags.migration.evictability.evict_local_storage_pods);
  EXPECT_TRUE(flags.arbitration.limits.skip_check_expected_replicas);
  EXPECT_TRUE(flags.arbitration.reserve_ahead);
  EXPECT_EQ(flags.reservation_workers, 2) << "the flag after a boolean is read as a flag";
}

TEST(BerthFlagsTest, BooleansTakeEqualsFormsAndTheEarlierSpaceForm) {
  BerthFlags flags;
  ASSERT_EQ(Parse({"--pre-allocation-cluster-mode=false", "--migration-evict-bare-pods=1",
                   "--reservation-lifecycle-all-schedulers", "true", "--migration-evict-daemonset-pods", "false"},
                  flags),
            std::nullopt);
  EXPECT_FALSE(flags.pre_allocation.enable_cluster_mode);
  EXPECT_TRUE(flags.migration.evictability.evict_bare_pods);
  EXPECT_TRUE(flags.reservation_lifecycle_all_schedulers);
  EXPECT_FALSE(flags.migration.evictability.evict_daemonset_pods);
}

TEST(BerthFlagsTest, ABadBooleanValueExits2) {
  BerthFlags flags;
  testing::internal::CaptureStderr();
  EXPECT_EQ(Parse({"--migration-evict-bare-pods=yes"}, flags), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "berth-manager: invalid boolean value \"yes\" for --migration-evict-bare-pods\n");
  EXPECT_FALSE(flags.migration.evictability.evict_bare_pods);
}

}  // namespace
}  // namespace berth::controllers
