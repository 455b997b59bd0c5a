// clientgo-shim/base/log_flags.h
//
// controller-runtime's zap flags (zap.Options.BindFlags), parsed into log::Options:
//   --zap-devel                  development defaults: console encoder, debug level, stack traces
//                                from warn (default false: JSON, info, from error)
//   --zap-encoder json|console
//   --zap-log-level              debug, info, warn, error, or an integer > 0 (a logr V-level: berth
//                                has one debug verbosity, so every integer means debug)
//   --zap-stacktrace-level       info, error or panic (panic: no stack traces)
//   --zap-time-encoding          epoch, millis, nanos, iso8601, rfc3339, rfc3339nano (default epoch;
//                                with --zap-devel iso8601, the console encoder's default)
//   --log-level                  berth's older name for --zap-log-level
// Explicit flags win over --zap-devel's defaults whatever their order. "--flag=value" and
// "--flag value"; --zap-devel also bare or =true|false.
#pragma once

#include <string>
#include <vector>

#include "clientgo-shim/base/log.h"
#include "clientgo-shim/base/result.h"

namespace berth::log {

// ApplyLogFlags reads the flags above from `args` (argv without argv[0]) into `options` and returns
// the arguments it did not consume, in order.
// Errors: kInvalidArgument naming the flag and upstream's reason, e.g.
// `invalid value "loud" for flag --zap-log-level: invalid log level "loud"`.
Result<std::vector<std::string>> ApplyLogFlags(const std::vector<std::string>& args, Options& options);

// LogFlagsUsage: the flags' --help lines.
std::string LogFlagsUsage();

}  // namespace berth::log
