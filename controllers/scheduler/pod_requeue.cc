#include "controllers/scheduler/pod_requeue.h"

#include <initializer_list>
#include <string_view>

namespace berth::controllers {

bool PodChangedBeyondStatus(const shim::CachedObject& before, const shim::CachedObject& after) {
  for (std::initializer_list<std::string_view> path :
       {std::initializer_list<std::string_view>{"spec"}, {"metadata", "labels"}, {"metadata", "annotations"}}) {
    auto a = before.FindJson(path);
    auto b = after.FindJson(path);
    if (a.has_value() != b.has_value()) return true;
    if (a && *a != *b) return true;  // rapidjson compares objects by member, in any order
  }
  return false;
}

bool LabelsEqual(const shim::CachedObject& a, const shim::CachedObject& b) {
  auto la = a.FindJson({"metadata", "labels"});
  auto lb = b.FindJson({"metadata", "labels"});
  if (!la || !lb) return la.has_value() == lb.has_value();
  return *la == *lb;
}

}  // namespace berth::controllers
