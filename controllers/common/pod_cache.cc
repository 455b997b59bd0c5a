#include "controllers/common/pod_cache.h"

namespace berth::controllers {

const std::vector<std::string>& PodStatusRead() {
  static const std::vector<std::string> kRead = {"phase", "conditions", "startTime", "nominatedNodeName"};
  return kRead;
}

shim::Transform PodCacheTransform() { return shim::StatusSubsetTransform(PodStatusRead()); }

}  // namespace berth::controllers
