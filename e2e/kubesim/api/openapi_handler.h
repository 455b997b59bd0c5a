// e2e/kubesim/api/openapi_handler.h
//
// Serves /openapi/v2 and /openapi/v3[/...] from the Registry through openapi/'s builders and cache.
#pragma once

#include "e2e/kubesim/api/registry.h"
#include "e2e/kubesim/server/http_types.h"

namespace berth::kubesim {

HttpResponse ServeOpenApi(const HttpRequest& request, const Registry& registry);

}  // namespace berth::kubesim
