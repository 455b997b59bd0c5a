// clientgo-shim/base/go_bool.h
//
// Go's strconv.ParseBool, which Go's flag package (and pflag, so every controller-runtime and
// kube-controller-manager boolean flag) uses for `--name=value`: 1, t, T, TRUE, true, True are
// true; 0, f, F, FALSE, false, False are false; anything else is an error.
#pragma once

#include <optional>
#include <string_view>

namespace berth {

// ParseGoBool: strconv.ParseBool. Returns nullopt for anything else ("yes", "", "2", " true").
std::optional<bool> ParseGoBool(std::string_view text);

}  // namespace berth
