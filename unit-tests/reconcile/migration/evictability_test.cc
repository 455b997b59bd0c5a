#include "reconcile/migration/evictability.h"

#include <gtest/gtest.h>

namespace berth::reconcile::migration {
namespace {

PodFacts Deployed() {
  PodFacts p;
  p.namespace_name = "default";
  p.name = "web-1";
  p.has_controller = true;
  p.controller_kind = "ReplicaSet";
  return p;
}

TEST(EvictabilityTest, AControlledPodWithoutSpecialTraitsIsEvictable) {
  EXPECT_EQ(NotEvictableReason(Deployed(), {}), std::nullopt);
}

TEST(EvictabilityTest, MirrorAndStaticPodsAreNeverEvictedEvenWithEveryFlagAndTheAnnotation) {
  EvictabilityOptions all{true, true, true, true};
  PodFacts mirror = Deployed();
  mirror.mirror = true;
  mirror.evict_annotation = true;
  EXPECT_EQ(NotEvictableReason(mirror, all), "pod default/web-1 is a mirror pod (the kubelet owns it)");
  PodFacts stat = Deployed();
  stat.static_pod = true;
  stat.evict_annotation = true;
  EXPECT_EQ(NotEvictableReason(stat, all), "pod default/web-1 is a static pod (the kubelet owns it)");
}

TEST(EvictabilityTest, EachProtectedClassIsRefusedUnlessItsFlagAllowsIt) {
  PodFacts ds = Deployed();
  ds.controller_kind = "DaemonSet";
  EXPECT_EQ(NotEvictableReason(ds, {}),
            "pod default/web-1 is a DaemonSet pod (its replacement would come back to the same node)");
  EXPECT_EQ(NotEvictableReason(ds, {.evict_daemonset_pods = true}), std::nullopt);

  PodFacts critical = Deployed();
  critical.priority = 2000000000;
  EXPECT_EQ(NotEvictableReason(critical, {}),
            "pod default/web-1 is system-critical (priority 2000000000 >= 2000000000)");
  EXPECT_EQ(NotEvictableReason(critical, {.evict_system_critical_pods = true}), std::nullopt);
  critical.priority = 1999999999;
  EXPECT_EQ(NotEvictableReason(critical, {}), std::nullopt);

  PodFacts bare = Deployed();
  bare.has_controller = false;
  bare.controller_kind = "";
  EXPECT_EQ(NotEvictableReason(bare, {}), "pod default/web-1 has no controller (nothing would recreate it)");
  EXPECT_EQ(NotEvictableReason(bare, {.evict_bare_pods = true}), std::nullopt);

  PodFacts local = Deployed();
  local.local_storage = true;
  EXPECT_EQ(NotEvictableReason(local, {}),
            "pod default/web-1 uses local storage (emptyDir or hostPath; its data would be lost)");
  EXPECT_EQ(NotEvictableReason(local, {.evict_local_storage_pods = true}), std::nullopt);
}

TEST(EvictabilityTest, TheDeschedulerEvictAnnotationPassesTheClassChecks) {
  PodFacts p = Deployed();
  p.controller_kind = "DaemonSet";
  p.local_storage = true;
  p.priority = 2000001000;
  p.evict_annotation = true;
  EXPECT_EQ(NotEvictableReason(p, {}), std::nullopt);
}

}  // namespace
}  // namespace berth::reconcile::migration
