// controllers/common/bool_flag.h
//
// One boolean command-line flag read as Go's flag package (and pflag) reads it, so the forms
// kube-controller-manager and controller-runtime operators write work for every berth-manager
// boolean: `--name` alone is true, `--name=V` takes strconv.ParseBool's forms (ParseGoBool,
// clientgo-shim/base/go_bool.h). berth also keeps its earlier `--name true` /
// `--name false`: a following argument that is exactly "true" or "false" is the value (berth
// takes no positional arguments, so nothing else could mean it).
// Example:
//   bool on = false; std::string error;
//   switch (TakeBoolFlag(args, i, "--migration-evict-bare-pods", on, error)) { ... }
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/go_bool.h"

namespace berth::controllers {

enum class BoolFlagMatch { kNotMine, kTaken, kInvalid };

// TakeBoolFlag: whether args[i] is the boolean flag `name` (advancing i past a following
// "true"/"false"). kTaken sets `out`; kInvalid (a `=` value ParseGoBool refuses) fills `error`
// with the flag and the value, and leaves `out` alone.
BoolFlagMatch TakeBoolFlag(const std::vector<std::string>& args, size_t& i, std::string_view name, bool& out,
                           std::string& error);

}  // namespace berth::controllers
