// clientgo-shim/config/file_util.h
//
// Small helpers shared by the config loaders: read a whole file with an errno-worded error,
// and resolve a kubeconfig-relative path (base64 of the *-data fields: clientgo-shim/base/encoding.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// ReadFileToString reads `path`. Errors: kInvalidArgument "cannot read <path>: <strerror>"
// (e.g. "cannot read /a/b: No such file or directory"). Files above 64 MiB are refused.
Result<std::string> ReadFileToString(const std::string& path);

// ResolvePath returns `path` unchanged when absolute (or empty), else `dir`/`path`; a leading
// "~/" is expanded with $HOME.
std::string ResolvePath(std::string_view dir, std::string_view path);

// EnvOr returns `override_value` when set (tests inject the environment this way), else the
// environment variable `name`, else "".
std::string EnvOr(const std::optional<std::string>& override_value, const char* name);

// DirName is the directory part of `path` ("." when it has none).
std::string DirName(std::string_view path);

}  // namespace berth::shim
