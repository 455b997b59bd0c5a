// unit-tests/clientgo-shim/watch/reflector_test_support.h
//
// What the reflector tests share: options for a reflector of /api/v1/pods whose retries are fast
// and whose jitter is fixed, and a store's contents as sorted "namespace/name@resourceVersion".
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "clientgo-shim/cache/store.h"
#include "clientgo-shim/watch/reflector.h"

namespace berth::shim::testing {

inline ReflectorOptions PodReflectorOptions() {
  ReflectorOptions o;
  o.list_watch.path = "/api/v1/pods";
  o.list_watch.backoff.initial = std::chrono::milliseconds(1);  // keep retries fast in tests
  o.list_watch.backoff.cap = std::chrono::milliseconds(5);
  o.rng_seed = 1;
  return o;
}

inline std::vector<std::string> KeysWithRv(const Store& store) {
  std::vector<std::string> out;
  for (auto& o : store.List()) {
    out.push_back(std::string(o->Key()) + "@" + std::string(o->ResourceVersion()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace berth::shim::testing
