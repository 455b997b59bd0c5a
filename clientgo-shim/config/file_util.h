// clientgo-shim/config/file_util.h
//
// Small helpers shared by the config loaders: read a whole file with an errno-worded error,
// resolve a kubeconfig-relative path, and decode standard base64 (the *-data fields).
#pragma once

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

// DirName is the directory part of `path` ("." when it has none).
std::string DirName(std::string_view path);

// DecodeBase64 decodes standard base64 with padding (Go's base64.StdEncoding, as encoding/json
// uses for []byte); CR/LF and spaces are ignored. Errors: kInvalidArgument with the offset of
// the first bad byte ("illegal base64 data at input byte 4").
Result<std::string> DecodeBase64(std::string_view text);

}  // namespace berth::shim
