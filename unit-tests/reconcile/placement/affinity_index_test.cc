// AffinityIndex files members it does not own, grouped by their interned label map; LabelInterner
// shares one map per distinct label set and drops the ones nobody holds.
#include <gtest/gtest.h>

#include <algorithm>

#include "clientgo-shim/base/json.h"
#include "reconcile/placement/affinity_index.h"

namespace berth::reconcile::placement::internal {
namespace {

shim::LabelSelector Selector(const std::string& json_text) {
  auto doc = json::Parse(json_text);
  return *shim::LabelSelector::FromJson(&*doc);
}

std::vector<const AffinityMember*> Candidates(const AffinityIndex& index, const shim::LabelSelector& selector) {
  std::vector<const AffinityMember*> out;
  index.ForEachCandidate(selector, [&](const AffinityMember& m) { out.push_back(&m); });
  std::sort(out.begin(), out.end());
  return out;
}

TEST(LabelInternerTest, EqualLabelsShareOneMapAndUnusedMapsAreSwept) {
  LabelInterner interner;
  auto a = interner.Intern({{"app", "web"}, {"tier", "front"}});
  auto b = interner.Intern({{"tier", "front"}, {"app", "web"}});
  auto c = interner.Intern({{"app", "web"}});
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(*c, (LabelMap{{"app", "web"}}));
  // Thousands of label sets nobody keeps: the pool sweeps them, keeping the ones still held.
  for (int i = 0; i < 5000; ++i) interner.Intern({{"pod", std::to_string(i)}});
  EXPECT_LT(interner.size(), 2100u);
  EXPECT_EQ(interner.Intern({{"app", "web"}, {"tier", "front"}}).get(), a.get()) << "a held map stays shared";
}

TEST(AffinityIndexTest, MembersSharingLabelsAreFoundThroughOneGroupAndLeaveIt) {
  LabelInterner interner;
  AffinityIndex index;
  AffinityMember web1, web2, db;
  web1.labels = interner.Intern({{"app", "web"}});
  web1.node = 0;
  web2.labels = interner.Intern({{"app", "web"}});
  web2.node = 1;
  db.labels = interner.Intern({{"app", "db"}});
  db.node = 1;
  index.Add(&web1);
  index.Add(&web2);
  index.Add(&db);
  EXPECT_EQ(index.size(), 3u);
  const auto web = Selector(R"({"matchLabels":{"app":"web"}})");
  std::vector<const AffinityMember*> both = {&web1, &web2};
  std::sort(both.begin(), both.end());
  EXPECT_EQ(Candidates(index, web), both);
  EXPECT_EQ(index.OnNode(1).size(), 2u);
  // A selector without an In/= requirement walks every member.
  EXPECT_EQ(Candidates(index, Selector(R"({"matchExpressions":[{"key":"app","operator":"Exists"}]})")).size(), 3u);

  index.Remove(&web1);
  EXPECT_FALSE(AffinityIndex::Filed(web1));
  EXPECT_EQ(Candidates(index, web), std::vector<const AffinityMember*>{&web2});
  index.Remove(&web1);  // not filed: nothing happens
  EXPECT_EQ(index.size(), 2u);
  index.Remove(&web2);  // the group empties and its buckets go
  EXPECT_TRUE(Candidates(index, web).empty());
  EXPECT_EQ(index.OnNode(1).size(), 1u);
  // Filed again (after its node changed), it is found again, on its new node.
  web1.node = 1;
  index.Add(&web1);
  EXPECT_EQ(Candidates(index, web), std::vector<const AffinityMember*>{&web1});
  EXPECT_TRUE(index.OnNode(0).empty());
  EXPECT_EQ(index.OnNode(1).size(), 2u);
}

TEST(AffinityIndexTest, ExistingTermsAreFiledWithTheirMemberAndLeaveWithIt) {
  LabelInterner interner;
  AffinityIndex index;
  AffinityMember loner;
  loner.labels = interner.Intern({{"app", "loner"}});
  loner.node = 0;
  auto affinity = std::make_shared<PodAffinity>();
  PodAffinityTerm term;
  term.selector = Selector(R"({"matchLabels":{"app":"web"}})");
  term.topology_key = "kubernetes.io/hostname";
  affinity->required_anti_affinity = {term};
  loner.affinity = affinity;
  index.Add(&loner);
  int terms = 0;
  index.ForEachTermFor(LabelMap{{"app", "web"}}, [&](const TermRef& t) {
    EXPECT_EQ(t.member, &loner);
    EXPECT_EQ(t.kind, TermKind::kRequiredAntiAffinity);
    ++terms;
  });
  EXPECT_EQ(terms, 1);
  EXPECT_FALSE(index.HasScoringTerms()) << "required anti-affinity only filters";
  index.Remove(&loner);
  EXPECT_FALSE(index.HasTerms());
}

}  // namespace
}  // namespace berth::reconcile::placement::internal
