#include "controllers/manager/controller_registry.h"

#include <algorithm>

#include "clientgo-shim/base/log.h"

namespace berth::controllers {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitEntries(std::string_view value) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t comma = value.find(',', start);
    out.push_back(Trim(value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string KnownNames(const std::vector<ControllerRegistration>& table) {
  std::string out;
  for (const auto& c : table) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

}  // namespace

Result<std::vector<std::string>> SelectControllers(std::string_view flag_value,
                                                   const std::vector<ControllerRegistration>& table) {
  const std::vector<std::string_view> entries = SplitEntries(flag_value);
  bool star = false;
  for (std::string_view entry : entries) {
    if (entry.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--controllers has an empty entry in \"" + std::string(flag_value) +
                           "\" (use \"*\", \"name\" or \"-name\", comma-separated)");
    }
    if (entry == "*") {
      star = true;
      continue;
    }
    std::string_view name = entry.front() == '-' ? entry.substr(1) : entry;
    bool known = std::any_of(table.begin(), table.end(), [&](const auto& c) { return c.name == name; });
    if (!known) {
      return MakeError(ErrorCode::kInvalidArgument, "--controllers: \"" + std::string(name) +
                                                        "\" is not in the list of known controllers (known: " +
                                                        KnownNames(table) + ")");
    }
  }
  std::vector<std::string> enabled;
  for (const auto& c : table) {
    bool on = star && c.enabled_by_default;
    for (std::string_view entry : entries) {  // the first entry naming the controller decides
      if (entry == c.name) {
        on = true;
        break;
      }
      if (entry.front() == '-' && entry.substr(1) == c.name) {
        on = false;
        break;
      }
    }
    if (on) enabled.push_back(c.name);
  }
  if (enabled.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--controllers=" + std::string(flag_value) + " enables no controller (known: " +
                         KnownNames(table) + ")");
  }
  return enabled;
}

Status StartControllers(const std::vector<ControllerRegistration>& table, const std::vector<std::string>& enabled) {
  for (const auto& c : table) {
    if (std::find(enabled.begin(), enabled.end(), c.name) == enabled.end()) {
      log::Info("setup", "controller disabled", {{"controller", c.name}});
      continue;
    }
    if (!c.start) {
      log::Warn("setup", "controller is not built into this berth-manager; skipped", {{"controller", c.name}});
      continue;
    }
    if (c.missing_api) {
      if (std::string missing = c.missing_api(); !missing.empty()) {
        log::Error("setup",
                   "controller not started: the API server does not serve an API it needs; apply the CRDs "
                   "(crds/) and restart berth-manager, or leave the controller out with --controllers",
                   {{"controller", c.name}, {"api", missing}});
        continue;
      }
    }
    if (auto s = c.start(); !s) {
      return MakeError(s.error().code, "cannot set up the " + c.name + " controller: " + s.error().message);
    }
    log::Info("setup", "controller enabled", {{"controller", c.name}});
  }
  return {};
}

std::string ControllerNamesUsage(const std::vector<ControllerRegistration>& table) {
  std::string off;
  for (const auto& c : table) {
    if (!c.enabled_by_default) off += (off.empty() ? "" : ", ") + c.name;
  }
  return KnownNames(table) + (off.empty() ? " (all on by default)" : " (off by default: " + off + ")");
}

}  // namespace berth::controllers
