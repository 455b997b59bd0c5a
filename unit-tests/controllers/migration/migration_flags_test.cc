#include "controllers/migration/migration_flags.h"

#include <gtest/gtest.h>

namespace berth::controllers {
namespace {

FlagMatch Take(std::vector<std::string> args, ArbitrationOptions& o, std::string& error) {
  size_t i = 0;
  return TakeMigrationFlag(args, i, o, error);
}

TEST(MigrationFlagsTest, DefaultsAreKoordinators) {
  ArbitrationOptions o;
  EXPECT_EQ(o.limits.max_migrating_per_node, 2);
  EXPECT_FALSE(o.limits.max_migrating_per_namespace);
  EXPECT_FALSE(o.limits.max_migrating_globally);
  EXPECT_FALSE(o.limits.max_migrating_per_workload);
  EXPECT_FALSE(o.limits.max_unavailable_per_workload);
  EXPECT_EQ(o.evict_qps, 10);
  EXPECT_EQ(o.evict_burst, 1);
  EXPECT_TRUE(o.reserve_ahead);
}

TEST(MigrationFlagsTest, ParsesEveryFlagInBothForms) {
  ArbitrationOptions o;
  std::string error;
  EXPECT_EQ(Take({"--migration-max-migrating-per-node=0"}, o, error), FlagMatch::kTaken);
  EXPECT_FALSE(o.limits.max_migrating_per_node) << "0 = no limit";
  size_t i = 0;
  std::vector<std::string> two = {"--migration-max-migrating-per-namespace", "3"};
  EXPECT_EQ(TakeMigrationFlag(two, i, o, error), FlagMatch::kTaken);
  EXPECT_EQ(i, 1u);
  EXPECT_EQ(o.limits.max_migrating_per_namespace, 3);
  EXPECT_EQ(Take({"--migration-max-migrating-globally=7"}, o, error), FlagMatch::kTaken);
  EXPECT_EQ(o.limits.max_migrating_globally, 7);
  EXPECT_EQ(Take({"--migration-max-migrating-per-workload=25%"}, o, error), FlagMatch::kTaken);
  EXPECT_EQ(o.limits.max_migrating_per_workload, (reconcile::migration::IntOrPercent{25, true}));
  EXPECT_EQ(Take({"--migration-max-unavailable-per-workload=4"}, o, error), FlagMatch::kTaken);
  EXPECT_EQ(o.limits.max_unavailable_per_workload, (reconcile::migration::IntOrPercent{4, false}));
  EXPECT_EQ(Take({"--migration-skip-check-expected-replicas=true"}, o, error), FlagMatch::kTaken);
  EXPECT_TRUE(o.limits.skip_check_expected_replicas);
  EXPECT_EQ(Take({"--migration-evict-qps=2.5"}, o, error), FlagMatch::kTaken);
  EXPECT_EQ(o.evict_qps, 2.5);
  EXPECT_EQ(Take({"--migration-evict-burst=5"}, o, error), FlagMatch::kTaken);
  EXPECT_EQ(o.evict_burst, 5);
  EXPECT_EQ(Take({"--migration-reserve-ahead=false"}, o, error), FlagMatch::kTaken);
  EXPECT_FALSE(o.reserve_ahead);
  EXPECT_EQ(Take({"--migration-reserve-ahead", "true"}, o, error), FlagMatch::kTaken);
  EXPECT_TRUE(o.reserve_ahead);
  EXPECT_EQ(Take({"--migration-default-ttl=5m"}, o, error), FlagMatch::kNotMine);
}

// Go's flag package: a boolean named alone is true, and `=` takes strconv.ParseBool's forms.
TEST(MigrationFlagsTest, BooleansNamedAloneAreTrueAsInGo) {
  ArbitrationOptions o;
  std::string error;
  o.reserve_ahead = false;
  std::vector<std::string> alone = {"--migration-reserve-ahead", "--migration-evict-qps=1"};
  size_t i = 0;
  EXPECT_EQ(TakeMigrationFlag(alone, i, o, error), FlagMatch::kTaken);
  EXPECT_EQ(i, 0u) << "the next flag is not taken as the value";
  EXPECT_TRUE(o.reserve_ahead);
  EXPECT_EQ(Take({"--migration-skip-check-expected-replicas"}, o, error), FlagMatch::kTaken);
  EXPECT_TRUE(o.limits.skip_check_expected_replicas);
  EXPECT_EQ(Take({"--migration-skip-check-expected-replicas=0"}, o, error), FlagMatch::kTaken);
  EXPECT_FALSE(o.limits.skip_check_expected_replicas);
  EXPECT_EQ(Take({"--migration-reserve-ahead=F"}, o, error), FlagMatch::kTaken);
  EXPECT_FALSE(o.reserve_ahead);
}

TEST(MigrationFlagsTest, MalformedValuesAreErrorsNamingTheFlag) {
  for (const char* bad :
       {"--migration-max-migrating-per-node=-1", "--migration-max-migrating-per-node=two",
        "--migration-max-migrating-per-node=", "--migration-max-migrating-globally=1.5",
        "--migration-max-migrating-per-workload=10 %", "--migration-max-unavailable-per-workload=-5%",
        "--migration-skip-check-expected-replicas=yes", "--migration-evict-qps=-1", "--migration-evict-qps=inf",
        "--migration-evict-qps=nan", "--migration-evict-burst=0", "--migration-evict-burst=x",
        "--migration-reserve-ahead=on", "--migration-reserve-ahead="}) {
    ArbitrationOptions o;
    std::string error;
    EXPECT_EQ(Take({bad}, o, error), FlagMatch::kInvalid) << bad;
    std::string flag(bad, std::string_view(bad).find('='));
    EXPECT_NE(error.find(flag), std::string::npos) << bad << ": " << error;
  }
  ArbitrationOptions o;
  std::string error;
  EXPECT_EQ(Take({"--migration-evict-burst"}, o, error), FlagMatch::kInvalid);
  EXPECT_EQ(error, "flag needs an argument: --migration-evict-burst");
}

}  // namespace
}  // namespace berth::controllers
