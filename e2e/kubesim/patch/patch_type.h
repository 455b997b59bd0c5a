// e2e/kubesim/patch/patch_type.h
//
// Which patch flavour a PATCH request carries, read from its Content-Type header. The API layer
// uses this to pick ApplyMergePatch, ApplyJsonPatch or ApplyStrategicMergePatch.
#pragma once

#include <optional>
#include <string_view>

namespace berth::kubesim::patch {

// PatchType: the four patch content types kube-apiserver accepts.
enum class PatchType {
  kMerge,      // application/merge-patch+json (RFC 7386)
  kJson,       // application/json-patch+json (RFC 6902)
  kStrategic,  // application/strategic-merge-patch+json (built-in kinds only)
  // application/apply-patch+yaml: server-side apply. kubesim has no managed-fields machinery, so
  // callers may treat an apply body (after YAML->JSON) as a merge patch that creates the object
  // when absent; conflicts between field managers are not detected.
  kApply,
};

// PatchTypeFromContentType maps a Content-Type value (parameters such as "; charset=utf-8" and
// letter case are ignored) to its PatchType. Returns nullopt for any other media type; the
// server answers those with 415 Unsupported Media Type.
std::optional<PatchType> PatchTypeFromContentType(std::string_view content_type);

// PatchTypeName is the media type for a PatchType, for logs and error messages.
std::string_view PatchTypeName(PatchType type);

}  // namespace berth::kubesim::patch
