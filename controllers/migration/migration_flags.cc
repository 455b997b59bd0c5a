#include "controllers/migration/migration_flags.h"

#include <charconv>
#include <cmath>
#include <utility>

#include "controllers/common/bool_flag.h"

namespace berth::controllers {
namespace {

// Match: "--name=value" or "--name value".
FlagMatch Match(const std::vector<std::string>& args, size_t& i, std::string_view name, std::string& value,
                std::string& error) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) {
      error = "flag needs an argument: " + std::string(name);
      return FlagMatch::kInvalid;
    }
    value = args[++i];
    return FlagMatch::kTaken;
  }
  if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
    value = a.substr(name.size() + 1);
    return FlagMatch::kTaken;
  }
  return FlagMatch::kNotMine;
}

bool ParseCount(const std::string& text, int64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

}  // namespace

FlagMatch TakeMigrationFlag(const std::vector<std::string>& args, size_t& i, ArbitrationOptions& o,
                            std::string& error) {
  std::string value;
  auto invalid = [&](std::string_view name, std::string_view want) {
    error = "invalid " + std::string(name) + " \"" + value + "\": " + std::string(want);
    return FlagMatch::kInvalid;
  };
  struct CountFlag {
    std::string_view name;
    std::optional<int64_t>* target;
  };
  for (const CountFlag& f : {CountFlag{"--migration-max-migrating-per-node", &o.limits.max_migrating_per_node},
                             CountFlag{"--migration-max-migrating-per-namespace", &o.limits.max_migrating_per_namespace},
                             CountFlag{"--migration-max-migrating-globally", &o.limits.max_migrating_globally}}) {
    FlagMatch m = Match(args, i, f.name, value, error);
    if (m == FlagMatch::kNotMine) continue;
    if (m == FlagMatch::kInvalid) return m;
    int64_t n = 0;
    if (!ParseCount(value, n)) return invalid(f.name, "want a non-negative integer (0 = no limit)");
    *f.target = n == 0 ? std::nullopt : std::optional<int64_t>(n);
    return FlagMatch::kTaken;
  }
  struct WorkloadFlag {
    std::string_view name;
    std::optional<reconcile::migration::IntOrPercent>* target;
  };
  for (const WorkloadFlag& f :
       {WorkloadFlag{"--migration-max-migrating-per-workload", &o.limits.max_migrating_per_workload},
        WorkloadFlag{"--migration-max-unavailable-per-workload", &o.limits.max_unavailable_per_workload}}) {
    FlagMatch m = Match(args, i, f.name, value, error);
    if (m == FlagMatch::kNotMine) continue;
    if (m == FlagMatch::kInvalid) return m;
    auto parsed = reconcile::migration::ParseIntOrPercent(value);
    if (!parsed) {
      error = std::string(f.name) + ": " + parsed.error();
      return FlagMatch::kInvalid;
    }
    *f.target = *parsed;
    return FlagMatch::kTaken;
  }
  // Booleans in Go's forms: `--name` alone is true (controllers/common/bool_flag.h).
  for (const auto& [name, target] : {std::pair<std::string_view, bool*>{"--migration-skip-check-expected-replicas",
                                                                        &o.limits.skip_check_expected_replicas},
                                     std::pair<std::string_view, bool*>{"--migration-reserve-ahead", &o.reserve_ahead}}) {
    switch (TakeBoolFlag(args, i, name, *target, error)) {
      case BoolFlagMatch::kNotMine: continue;
      case BoolFlagMatch::kTaken: return FlagMatch::kTaken;
      case BoolFlagMatch::kInvalid: return FlagMatch::kInvalid;
    }
  }
  if (FlagMatch m = Match(args, i, "--migration-evict-qps", value, error); m != FlagMatch::kNotMine) {
    if (m == FlagMatch::kInvalid) return m;
    double qps = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), qps);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(qps) || qps < 0) {
      return invalid("--migration-evict-qps", "want a non-negative number (0 = no limit)");
    }
    o.evict_qps = qps;
    return FlagMatch::kTaken;
  }
  if (FlagMatch m = Match(args, i, "--migration-evict-burst", value, error); m != FlagMatch::kNotMine) {
    if (m == FlagMatch::kInvalid) return m;
    int64_t n = 0;
    if (!ParseCount(value, n) || n < 1 || n > 1000000) return invalid("--migration-evict-burst", "want an integer >= 1");
    o.evict_burst = static_cast<int>(n);
    return FlagMatch::kTaken;
  }
  return FlagMatch::kNotMine;
}

}  // namespace berth::controllers
