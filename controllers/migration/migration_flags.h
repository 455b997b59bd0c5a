// controllers/migration/migration_flags.h
//
// berth-manager's flags for the migration controller's arbitration, eviction rate and drain,
// parsed here so main.cc keeps one call. A value that does not parse is an error naming the flag
// (berth-manager exits 2), never a default.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "controllers/migration/migration_arbiter.h"

namespace berth::controllers {

inline constexpr char kMigrationFlagsUsage[] =
    "  --migration-max-migrating-per-node int\n"
    "                                       Pods migrating at once per node (koordinator's\n"
    "                                       maxMigratingPerNode; default 2, 0 = no limit)\n"
    "  --migration-max-migrating-per-namespace int, --migration-max-migrating-globally int\n"
    "                                       Per namespace / in the cluster (default 0 = no limit)\n"
    "  --migration-max-migrating-per-workload int|percent,\n"
    "  --migration-max-unavailable-per-workload int|percent\n"
    "                                       Per controller (default by expected replicas: > 10: 10%,\n"
    "                                       4-10: 2, < 4: 1)\n"
    "  --migration-skip-check-expected-replicas bool\n"
    "                                       Migrate workloads of 1 replica, or whose replicas equal a\n"
    "                                       workload limit (default false)\n"
    "  --migration-evict-qps float, --migration-evict-burst int\n"
    "                                       Global eviction rate (default 10 and 1; qps 0 = no limit)\n"
    "  --migration-reserve-ahead bool       Held ReservationFirst jobs next in line create their\n"
    "                                       Reservation while a wave of their workload is under way, at\n"
    "                                       most as many as that wave (default true)\n";

enum class FlagMatch { kNotMine, kTaken, kInvalid };

// TakeMigrationFlag: whether args[i] (and, for "--flag value", args[i+1], advancing i) is one of
// the flags above; kInvalid fills `error`.
FlagMatch TakeMigrationFlag(const std::vector<std::string>& args, size_t& i, ArbitrationOptions& arbitration,
                            std::string& error);

}  // namespace berth::controllers
