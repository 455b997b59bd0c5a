// controllers/common/write_errors.h
//
// What berth's controllers do when an API write fails (issue 9). One policy for every write:
//   - 404 NotFound: the object is gone; its delete event tells the rest. Nothing to retry.
//   - anything else (409 Conflict from a stale cache or a concurrent writer, 429, 5xx, timeouts,
//     connection errors, and even 4xx answers a fixed RBAC or webhook may turn around): the key
//     is requeued with the controller's per-item exponential backoff and decided again from the
//     cache, which by then holds the newer object. The transport has already retried what it may
//     (429/5xx with Retry-After); what reaches a controller is logged at warn with the reason.
// Exceptions are per write and documented there (a Binding of a pod already bound ends the
// attempt: scheduler_controller.cc).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::controllers {

// IsGone: the write failed because the object no longer exists.
inline bool IsGone(const Error& error) { return error.code == ErrorCode::kNotFound; }

// LogWriteRetry logs a failed write that will be retried: `what` names the write ("binding",
// "status update"), `object` the key; the fields carry the HTTP code, the Status reason and the
// message.
void LogWriteRetry(std::string_view logger, std::string_view what, std::string_view object, const Error& error);

// AlreadyAssignedNode: for the apiserver's answer to a Binding of a pod that already has a node
// (409 Conflict, "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned
// to node \"n\"", from the pod registry's binding storage), the node; nullopt for any other error.
std::optional<std::string> AlreadyAssignedNode(const Error& error);

}  // namespace berth::controllers
