// controllers/common/api_discovery.h
//
// Whether the API server serves a resource (a CRD installed), from discovery: GET
// /apis/<group>/<version> answers an APIResourceList. A controller whose CRD is missing would
// otherwise wait forever for an informer that cannot sync, and hold up the others with it.
// Example:
//   if (ResourceServed(rest, "scheduling.koordinator.sh/v1alpha1", "podmigrationjobs") == false) ...
#pragma once

#include <optional>
#include <string_view>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/transport/rest_client.h"

namespace berth::controllers {

// ListsResource: whether an APIResourceList body names `plural`. Errors (kInvalidArgument): a body
// that is not an APIResourceList.
Result<bool> ListsResource(std::string_view body, std::string_view plural);

// ResourceServed: true or false as discovery says (a 404 for the group version is false); nullopt
// when discovery could not answer (any other failure, an unreadable body): the caller goes on as
// if served, and its informer retries like every other.
std::optional<bool> ResourceServed(shim::RestClient& rest, std::string_view group_version, std::string_view plural);

}  // namespace berth::controllers
