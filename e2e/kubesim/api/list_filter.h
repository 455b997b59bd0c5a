// e2e/kubesim/api/list_filter.h
//
// labelSelector and fieldSelector query parameters → an ObjectFilter over stored objects, with
// the apiserver's 400 errors for malformed selectors and unsupported field labels.
#pragma once

#include <optional>

#include "e2e/kubesim/api/registry.h"
#include "e2e/kubesim/server/http_types.h"
#include "e2e/kubesim/store/object_store.h"

namespace berth::kubesim {

struct ListFilter {
  std::optional<HttpResponse> error;
  ObjectFilter filter;  // null when nothing is filtered
  bool ok() const { return !error.has_value(); }
};

ListFilter BuildListFilter(const HttpRequest& request, const ResourceType& type);

}  // namespace berth::kubesim
