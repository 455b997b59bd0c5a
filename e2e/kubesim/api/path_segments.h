// e2e/kubesim/api/path_segments.h
//
// Splits a request path into its non-empty segments, the first step of routing a Kubernetes API
// path (/api/v1/namespaces/ns/pods/name/status) for both the router and the audit log.
#pragma once

#include <string_view>
#include <vector>

namespace berth::kubesim {

// SplitPath returns the segments between slashes, skipping empty ones ("//a/b/" → {"a", "b"}).
// The views point into `path`.
std::vector<std::string_view> SplitPath(std::string_view path);

}  // namespace berth::kubesim
