// clientgo-shim/manager/manager_flags.h
//
// The standard controller-manager flags (kubebuilder's main.go names), parsed into
// ManagerOptions. Accepted forms: "--flag=value" and "--flag value"; booleans also bare
// ("--leader-elect") or "=true|false".
//   --metrics-bind-address        default ":8080"  ("0" disables)
//   --health-probe-bind-address   default ":8081"  ("0" disables)
//   --leader-elect                default false
//   --leader-election-namespace   default: the service-account namespace, else "default"
//   --leader-election-id          default ""       (required with --leader-elect)
//   --leader-elect-lease-duration default 15s      (Go durations; component-base's names)
//   --leader-elect-renew-deadline default 10s
//   --leader-elect-retry-period   default 2s
//   --kube-api-content-type       default "application/json" (or
//                                 "application/vnd.kubernetes.protobuf"; kube-controller-manager's flag)
// Arguments that are not these flags are returned untouched, in order, for the caller's own
// parsing (e.g. --kubeconfig).
#pragma once

#include <string>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/manager/manager.h"

namespace berth::shim {

// ApplyManagerFlags sets the flags' fields of `options` from `args` (argv without argv[0]).
// Returns the arguments it did not consume.
// Errors: kInvalidArgument for a flag missing its value or a bad boolean
// ("invalid boolean value \"x\" for --leader-elect"), a --kube-api-content-type other than the two, a duration that does not parse or is not
// positive ("invalid duration \"x\" for --leader-elect-lease-duration: ...").
Result<std::vector<std::string>> ApplyManagerFlags(const std::vector<std::string>& args,
                                                   ManagerOptions& options);

// ManagerFlagsUsage: one line per flag with its default, for --help.
std::string ManagerFlagsUsage();

}  // namespace berth::shim
