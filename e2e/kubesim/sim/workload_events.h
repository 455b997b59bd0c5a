// e2e/kubesim/sim/workload_events.h
//
// core/v1 Events as kube-controller-manager's event recorders write them (the ones
// `kubectl describe` lists): name "<object>.<hex nanoseconds>", involvedObject, reason, message,
// source and reportingComponent, count 1, first/last timestamps.
#pragma once

#include <string>
#include <string_view>

#include "e2e/kubesim/api/api_server.h"

namespace berth::kubesim {

// EventSubject: the object an Event is about.
struct EventSubject {
  std::string api_version, kind, ns, name, uid;
};

// RecordEvent creates one Normal (or Warning) Event; failures (e.g. a terminating namespace)
// are ignored, as a recorder drops events it cannot write.
void RecordEvent(ApiServer& api, const EventSubject& subject, std::string_view component, std::string_view type,
                 std::string_view reason, std::string_view message);

}  // namespace berth::kubesim
