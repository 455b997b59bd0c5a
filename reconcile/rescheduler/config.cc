#include "reconcile/rescheduler/config.h"

#include <cmath>
#include <set>

#include "clientgo-shim/api/duration.h"
#include "clientgo-shim/api/yaml_json.h"

namespace berth::reconcile::rescheduler {
namespace {

using rapidjson::Value;

std::unexpected<Error> Invalid(const std::string& field, const std::string& why) {
  return MakeError(ErrorCode::kInvalidArgument, std::string(kConfigKey) + ": " + field + ": " + why);
}

std::string_view KeyOf(const Value::ConstMemberIterator& m) {
  return {m->name.GetString(), m->name.GetStringLength()};
}

// CheckKeys refuses keys outside `known`, so a typo ("dryrun") is an error, not a silent default.
Status CheckKeys(const Value& object, const std::string& path, std::initializer_list<std::string_view> known) {
  for (auto m = object.MemberBegin(); m != object.MemberEnd(); ++m) {
    bool ok = false;
    for (auto k : known) ok = ok || k == KeyOf(m);
    if (!ok) return Invalid(path + std::string(KeyOf(m)), "unknown field");
  }
  return {};
}

Status ReadBool(const Value& v, const std::string& field, bool& out) {
  if (!v.IsBool()) return Invalid(field, "must be true or false");
  out = v.GetBool();
  return {};
}

Status ReadCount(const Value& v, const std::string& field, int& out) {
  if (!v.IsInt() || v.GetInt() < 0) return Invalid(field, "must be a non-negative integer");
  out = v.GetInt();
  return {};
}

Status ReadPercent(const Value& v, const std::string& field, double& out) {
  if (!v.IsNumber() || !std::isfinite(v.GetDouble()) || v.GetDouble() < 0 || v.GetDouble() > 100) {
    return Invalid(field, "must be a number from 0 to 100");
  }
  out = v.GetDouble();
  return {};
}

Status ReadDuration(const Value& v, const std::string& field, Duration& out, bool positive) {
  if (!v.IsString()) return Invalid(field, "must be a duration string such as \"1m\"");
  auto d = shim::ParseDuration({v.GetString(), v.GetStringLength()});
  if (!d) return Invalid(field, d.error().message);
  if (d->count() < 0 || (positive && d->count() == 0)) {
    return Invalid(field, positive ? "must be positive" : "must not be negative");
  }
  out = *d;
  return {};
}

Status ReadPercents(const Value& v, const std::string& field, ResourcePercents& out) {
  if (!v.IsObject()) return Invalid(field, "must be a map of resource name to percent");
  if (v.MemberCount() == 0) return Invalid(field, "must name at least one resource");
  ResourcePercents read;
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    double p = 0;
    if (auto s = ReadPercent(m->value, field + "." + std::string(KeyOf(m)), p); !s) return s;
    read[std::string(KeyOf(m))] = p;
  }
  out = std::move(read);
  return {};
}

Status ReadLimits(const Value& v, Limits& out) {
  if (!v.IsObject()) return Invalid("limits", "must be a map");
  if (auto s = CheckKeys(v, "limits.", {"maxPodsPerCycle", "maxPodsPerNode", "maxPodsPerNamespace", "maxActiveJobs"});
      !s) {
    return s;
  }
  for (auto [key, target] : {std::pair{"maxPodsPerCycle", &out.max_pods_per_cycle},
                             std::pair{"maxPodsPerNode", &out.max_pods_per_node},
                             std::pair{"maxPodsPerNamespace", &out.max_pods_per_namespace},
                             std::pair{"maxActiveJobs", &out.max_active_jobs}}) {
    if (const Value* f = v.HasMember(key) ? &v[key] : nullptr) {
      if (auto s = ReadCount(*f, std::string("limits.") + key, *target); !s) return s;
    }
  }
  return {};
}

Status ReadLowNodeUtilization(const Value& v, LowNodeUtilizationConfig& out) {
  const std::string path = "lowNodeUtilization";
  if (!v.IsObject()) return Invalid(path, "must be a map");
  if (auto s = CheckKeys(v, path + ".", {"enabled", "thresholds", "targetThresholds"}); !s) return s;
  if (v.HasMember("enabled")) {
    if (auto s = ReadBool(v["enabled"], path + ".enabled", out.enabled); !s) return s;
  }
  if (v.HasMember("thresholds")) {
    if (auto s = ReadPercents(v["thresholds"], path + ".thresholds", out.thresholds); !s) return s;
  }
  if (v.HasMember("targetThresholds")) {
    if (auto s = ReadPercents(v["targetThresholds"], path + ".targetThresholds", out.target_thresholds); !s) return s;
  }
  // The descheduler's validation: both name the same resources, each threshold <= its target.
  std::set<std::string_view> a, b;
  for (const auto& [name, _] : out.thresholds) a.insert(name);
  for (const auto& [name, _] : out.target_thresholds) b.insert(name);
  if (a != b) return Invalid(path, "thresholds and targetThresholds must name the same resources");
  for (const auto& [name, p] : out.thresholds) {
    if (p > out.target_thresholds.find(name)->second) {
      return Invalid(path + ".thresholds." + name, "must not exceed targetThresholds." + name);
    }
  }
  return {};
}

}  // namespace

Result<ReschedulerConfig> ParseReschedulerConfig(std::string_view yaml) {
  auto doc = shim::YamlToJson(yaml);
  if (!doc) return MakeError(ErrorCode::kInvalidArgument, std::string(kConfigKey) + ": " + doc.error().message);
  ReschedulerConfig config;
  if (doc->IsNull()) return config;
  if (!doc->IsObject()) return MakeError(ErrorCode::kInvalidArgument, std::string(kConfigKey) + ": not a YAML mapping");
  const Value& root = *doc;
  if (auto s = CheckKeys(root, "", {"dryRun", "interval", "cooldown", "minImprovement", "limits", "lowNodeUtilization",
                                    "preferredNodeAffinity"});
      !s) {
    return std::unexpected(s.error());
  }
  Status s;
  if (s && root.HasMember("dryRun")) s = ReadBool(root["dryRun"], "dryRun", config.dry_run);
  if (s && root.HasMember("interval")) s = ReadDuration(root["interval"], "interval", config.interval, true);
  if (s && root.HasMember("cooldown")) s = ReadDuration(root["cooldown"], "cooldown", config.cooldown, false);
  if (s && root.HasMember("minImprovement")) {
    s = ReadPercent(root["minImprovement"], "minImprovement", config.min_improvement);
  }
  if (s && root.HasMember("limits")) s = ReadLimits(root["limits"], config.limits);
  if (s && root.HasMember("lowNodeUtilization")) {
    s = ReadLowNodeUtilization(root["lowNodeUtilization"], config.low_node_utilization);
  }
  if (s && root.HasMember("preferredNodeAffinity")) {
    const Value& v = root["preferredNodeAffinity"];
    if (!v.IsObject()) {
      s = Invalid("preferredNodeAffinity", "must be a map");
    } else if (s = CheckKeys(v, "preferredNodeAffinity.", {"enabled"}); s && v.HasMember("enabled")) {
      s = ReadBool(v["enabled"], "preferredNodeAffinity.enabled", config.preferred_node_affinity.enabled);
    }
  }
  if (!s) return std::unexpected(s.error());
  return config;
}

}  // namespace berth::reconcile::rescheduler
