// controllers/manager/controller_registry.h
//
// berth-manager's table of controllers and kube-controller-manager's --controllers switch over it:
// a comma-separated list where "*" turns on every controller that is on by default, "name" turns
// one on and "-name" turns one off. As in kube-controller-manager the first entry that names a
// controller decides ("scheduler,-scheduler" keeps it on); a controller no entry names is on only
// when "*" is present and it is on by default. Only selected controllers are started, so a
// disabled controller creates no informer, queue or metric.
// Example:
//   std::vector<ControllerRegistration> table = {{"reservation", true, StartReservation}, ...};
//   auto enabled = SelectControllers("*,-scheduler", table);   // {"reservation", ...}
//   if (!enabled) { std::cerr << enabled.error().message; return 2; }
//   if (auto s = StartControllers(table, *enabled); !s) ...
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::controllers {

// ControllerRegistration: one row of berth-manager's controller table.
struct ControllerRegistration {
  std::string name;
  bool enabled_by_default = true;
  // start sets the controller up on the manager (informers, queue, workers). Empty: the controller
  // is known (so --controllers accepts its name) but not built into this binary yet; selecting it
  // is logged and skipped.
  std::function<Status()> start;
  // missing_api names an API the controller cannot work without that the server does not serve
  // (its CRD not installed), or returns "". Such a controller is not started, with an error line
  // saying which API: it would wait forever for an informer that cannot sync, and every other
  // controller would wait with it.
  std::function<std::string()> missing_api;
};

// kDefaultControllers is the flag's default, as in kube-controller-manager.
inline constexpr std::string_view kDefaultControllers = "*";

// SelectControllers returns the names of the enabled controllers, in table order.
// Errors (kInvalidArgument, message ready for the command line): an empty entry, a name not in
// `table` (`"foo" is not in the list of known controllers (known: a, b)`), or a selection that
// enables no controller at all (berth-manager would run idle).
Result<std::vector<std::string>> SelectControllers(std::string_view flag_value,
                                                   const std::vector<ControllerRegistration>& table);

// StartControllers calls `start` of each enabled controller in table order and stops at the first
// error, naming the controller. Controllers without a start function, or whose missing_api names
// one, are logged and skipped.
Status StartControllers(const std::vector<ControllerRegistration>& table, const std::vector<std::string>& enabled);

// ControllerNamesUsage lists the table for --help: "reservation, scheduler, provisioningrequest
// (default: all on)" or with "(off by default: x)".
std::string ControllerNamesUsage(const std::vector<ControllerRegistration>& table);

}  // namespace berth::controllers
