#include "clientgo-shim/cache/packed_json.h"

#include <gtest/gtest.h>

#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

std::string RoundTrip(std::string_view text, InternPool& pool, std::string* packed_out = nullptr) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc.has_value());
  std::string packed;
  PackJson(*doc, pool, packed);
  rapidjson::Document out;
  auto st = UnpackJson(packed, pool, out, out.GetAllocator());
  EXPECT_TRUE(st.has_value());
  if (packed_out) *packed_out = packed;
  return json::Serialize(out);
}

TEST(PackedJsonTest, EveryJsonTypeSurvivesARoundTrip) {
  InternPool pool;
  const std::string text =
      R"({"a":null,"b":true,"c":false,"i":-42,"big":18446744073709551615,"neg":-9223372036854775808,)"
      R"("d":1.5,"s":"hello","arr":[1,"x",{"k":[]}],"o":{},"podIP":"10.0.0.1"})";
  EXPECT_EQ(RoundTrip(text, pool), text);
}

TEST(PackedJsonTest, RepeatedKeysAndValuesAreStoredOnceInThePool) {
  InternPool pool;
  std::string p1, p2;
  RoundTrip(R"({"imagePullPolicy":"IfNotPresent","name":"c"})", pool, &p1);
  const size_t after_one = pool.Size();
  RoundTrip(R"({"imagePullPolicy":"IfNotPresent","name":"c"})", pool, &p2);
  EXPECT_EQ(pool.Size(), after_one);
  EXPECT_EQ(p1, p2);
  EXPECT_LT(p1.size(), 10u);  // two interned keys, two interned values, tags and a count
}

TEST(PackedJsonTest, ReleasingEveryIdEmptiesThePool) {
  InternPool pool;
  std::string packed;
  RoundTrip(R"({"x":{"y":["a","b","a"]},"z":"long"})", pool, &packed);
  std::vector<uint32_t> ids;
  CollectInternedIds(packed, ids);
  EXPECT_EQ(ids.size(), 7u);  // x, y, a, b, a, z, long
  pool.Release(ids);
  EXPECT_EQ(pool.Size(), 0u);
}

TEST(PackedJsonTest, LongAndUniqueLookingStringsAreNotInterned) {
  InternPool pool;
  std::string long_value(200, 'q');
  RoundTrip(R"({"podIP":"10.1.2.3","v":")" + long_value + R"("})", pool);
  EXPECT_EQ(pool.Size(), 2u);  // only the keys
}

TEST(PackedJsonTest, TruncatedOrGarbageBytesAreADecodeErrorNotACrash) {
  InternPool pool;
  std::string packed;
  RoundTrip(R"({"a":[1,2,{"b":"c"}]})", pool, &packed);
  for (size_t cut = 0; cut < packed.size(); ++cut) {
    rapidjson::Document out;
    auto st = UnpackJson(std::string_view(packed).substr(0, cut), pool, out, out.GetAllocator());
    EXPECT_FALSE(st.has_value()) << "cut at " << cut;
    if (!st) {
      EXPECT_EQ(st.error().code, ErrorCode::kDecode);
    }
  }
  rapidjson::Document out;
  EXPECT_FALSE(UnpackJson("\x7f\x01", pool, out, out.GetAllocator()).has_value());
  rapidjson::Document unknown_id;  // an id the pool never issued reads as "" (no crash)
  ASSERT_TRUE(UnpackJson(std::string("\x07\xff\xff\xff\xff\x0f", 6), pool, unknown_id,
                         unknown_id.GetAllocator()));
  EXPECT_EQ(json::Serialize(unknown_id), "\"\"");
  std::vector<uint32_t> ids;
  CollectInternedIds("\x08\xff", ids);  // truncated count: stops quietly
  EXPECT_TRUE(ids.empty());
}

TEST(PackedJsonTest, FindPackedStringReadsOneFieldWithoutDecoding) {
  InternPool pool;
  std::string packed;
  RoundTrip(R"({"spec":{"containers":[{"name":"a"}],"nodeName":"n1"},"status":{"phase":"Running"}})",
            pool, &packed);
  EXPECT_EQ(FindPackedString(packed, pool, {"spec", "nodeName"}), "n1");
  EXPECT_EQ(FindPackedString(packed, pool, {"status", "phase"}), "Running");
  EXPECT_EQ(FindPackedString(packed, pool, {"spec", "missing"}), std::nullopt);
  EXPECT_EQ(FindPackedString(packed, pool, {"spec", "containers"}), std::nullopt);
  EXPECT_EQ(FindPackedString(packed, pool, {"spec", "nodeName", "deeper"}), std::nullopt);
  EXPECT_EQ(FindPackedString("", pool, {"spec"}), std::nullopt);
}

TEST(PackedJsonTest, SkippedMetadataFieldsAreLeftOut) {
  InternPool pool;
  auto doc = json::Parse(R"({"metadata":{"name":"p","uid":"u","labels":{"a":"b"}},"spec":{}})");
  ASSERT_TRUE(doc);
  std::string packed;
  PackJson(*doc, pool, packed, {"name", "uid"});
  rapidjson::Document out;
  ASSERT_TRUE(UnpackJson(packed, pool, out, out.GetAllocator()));
  EXPECT_EQ(json::Serialize(out), R"({"metadata":{"labels":{"a":"b"}},"spec":{}})");
}

TEST(PackedJsonTest, ASubtreeSeenTwiceIsSharedAndStillRoundTrips) {
  InternPool pool;
  const std::string text =
      R"({"spec":{"node":"n1","tolerations":[{"key":"a","operator":"Exists","effect":"NoExecute"}]}})";
  std::string p1, p2, p3;
  EXPECT_EQ(RoundTrip(text, pool, &p1), text);
  EXPECT_EQ(RoundTrip(text, pool, &p2), text);  // second sighting: pooled
  const size_t pooled = pool.Size();
  EXPECT_EQ(RoundTrip(text, pool, &p3), text);
  EXPECT_EQ(pool.Size(), pooled);
  EXPECT_LT(p3.size(), p1.size());  // a reference instead of the array
  EXPECT_EQ(p2, p3);
  EXPECT_EQ(FindPackedString(p3, pool, {"spec", "node"}), "n1");
  // Everything goes once every holder releases, shared subtrees included.
  for (const std::string* p : {&p1, &p2, &p3}) {
    std::vector<uint32_t> ids;
    CollectInternedIds(*p, ids);
    pool.Release(ids);
  }
  EXPECT_EQ(pool.Size(), 0u);
}

TEST(PackedJsonTest, FindPackedStringFollowsSharedSubtrees) {
  InternPool pool;
  const std::string text = R"({"a":{"b":{"c":"deep-value","d":"x"}}})";
  std::string packed;
  RoundTrip(text, pool);
  RoundTrip(text, pool, &packed);
  EXPECT_EQ(FindPackedString(packed, pool, {"a", "b", "c"}), "deep-value");
  EXPECT_EQ(FindPackedString(packed, pool, {"a", "b", "zz"}), std::nullopt);
}

TEST(PackedJsonTest, SubtreesWithUniqueLookingStringsAreNeverShared) {
  InternPool pool;
  const std::string text = R"({"status":{"podIP":"10.0.0.1","phase":"Running","qos":"Burstable"}})";
  std::string p1, p2;
  RoundTrip(text, pool, &p1);
  RoundTrip(text, pool, &p2);
  EXPECT_EQ(p1, p2);  // both inline
  EXPECT_NE(p2.find("10.0.0.1"), std::string::npos);
}

// kReference decodes the same value as kCopy, its strings pointing at the packed bytes (inline
// strings) or the pool's entries (interned keys and values, shared subtrees) instead of copies.
}  // namespace
}  // namespace berth::shim

namespace berth::shim {
namespace {

std::string FoundValue(std::string_view packed, const InternPool& pool,
                       std::initializer_list<std::string_view> path) {
  rapidjson::Document out;
  if (!FindPackedValue(packed, pool, path, out, out.GetAllocator())) {
    return out.IsNull() ? "<absent>" : "<absent but not null>";
  }
  return json::Serialize(out);
}

TEST(PackedJsonTest, FindPackedValueDecodesOnlyTheValueUnderThePathOfAnyType) {
  InternPool pool;
  std::string packed;
  RoundTrip(R"({"metadata":{"generation":7,"labels":{"app":"a","tier":"web"}},)"
            R"("status":{"allocatable":{"cpu":"2","memory":"4Gi"},"currentOwners":[],"ok":true}})",
            pool, &packed);
  EXPECT_EQ(FoundValue(packed, pool, {"metadata", "generation"}), "7");
  EXPECT_EQ(FoundValue(packed, pool, {"metadata", "labels"}), R"({"app":"a","tier":"web"})");
  EXPECT_EQ(FoundValue(packed, pool, {"status", "allocatable"}), R"({"cpu":"2","memory":"4Gi"})");
  EXPECT_EQ(FoundValue(packed, pool, {"status", "currentOwners"}), "[]");
  EXPECT_EQ(FoundValue(packed, pool, {"status", "ok"}), "true");
  EXPECT_EQ(FoundValue(packed, pool, {"status", "missing"}), "<absent>");
  EXPECT_EQ(FoundValue(packed, pool, {"status", "ok", "deeper"}), "<absent>");
}

TEST(PackedJsonTest, FindPackedValueFollowsSharedSubtreesAtAndAboveThePath) {
  InternPool pool;
  const std::string text = R"({"spec":{"template":{"containers":[{"name":"c","image":"busybox"}]}}})";
  std::string packed;
  RoundTrip(text, pool);
  RoundTrip(text, pool, &packed);  // second sighting: subtrees are pool references now
  EXPECT_EQ(FoundValue(packed, pool, {"spec", "template", "containers"}), R"([{"name":"c","image":"busybox"}])");
  EXPECT_EQ(FoundValue(packed, pool, {"spec", "template"}), R"({"containers":[{"name":"c","image":"busybox"}]})");
  EXPECT_EQ(FoundValue(packed, pool, {}), text);
}

TEST(PackedJsonTest, FindPackedValueOnTruncatedOrGarbageBytesIsAbsentNotACrash) {
  InternPool pool;
  std::string packed;
  RoundTrip(R"({"status":{"allocatable":{"cpu":"2","memory":"4Gi"}}})", pool, &packed);
  for (size_t len = 0; len < packed.size(); ++len) {
    EXPECT_EQ(FoundValue(packed.substr(0, len), pool, {"status", "allocatable"}), "<absent>") << len;
  }
  EXPECT_EQ(FoundValue("\xff\xff\xff", pool, {"status"}), "<absent>");
  EXPECT_EQ(FoundValue(std::string(1, '\x08') + "\x01\x7f", pool, {"status"}), "<absent>");
}

TEST(PackedJsonTest, SubtreesFoundByTheirShapeMatchExactlyAndLeaveWithTheirHolders) {
  // Once a subtree is pooled, the next identical one is found by the hash of its JSON and
  // verified byte for byte; values that differ only in a number's type, a key's order or one
  // string must not be taken for it.
  InternPool pool;
  const std::string base =
      R"({"spec":{"n":"x","c":[{"name":"app","ports":[{"p":8080,"proto":"TCP"}],"ratio":1.5}]}})";
  const std::string variants[] = {
      base,
      R"({"spec":{"n":"x","c":[{"name":"app","ports":[{"p":8080.0,"proto":"TCP"}],"ratio":1.5}]}})",
      R"({"spec":{"n":"x","c":[{"name":"app","ports":[{"proto":"TCP","p":8080}],"ratio":1.5}]}})",
      R"({"spec":{"n":"x","c":[{"name":"app","ports":[{"p":8080,"proto":"UDP"}],"ratio":1.5}]}})",
      R"({"spec":{"n":"x","c":[{"name":"app","ports":[{"p":18446744073709551615,"proto":"TCP"}],"ratio":1.5}]}})",
      R"({"spec":{"n":"x","c":[{"name":"app","ports":[{"p":8080,"proto":"TCP"}],"ratio":1.5},null]}})",
  };
  // Sharing grows one level per sighting (a parent's bytes change when a child becomes a
  // reference), so after as many rounds as the nesting is deep, every round packs alike.
  constexpr int kRounds = 8;
  const size_t n = std::size(variants);
  std::vector<std::string> held;
  for (int round = 0; round < kRounds; ++round) {
    for (const std::string& text : variants) {
      std::string packed;
      EXPECT_EQ(RoundTrip(text, pool, &packed), text) << "round " << round;
      held.push_back(packed);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string& last = held[(kRounds - 1) * n + i];
    EXPECT_EQ(last, held[(kRounds - 2) * n + i]) << variants[i];
    std::vector<uint32_t> ids;
    CollectInternedIds(last, ids);
    // spec packs too small to share: keys spec, n, c, the value x and one reference for c.
    EXPECT_EQ(ids.size(), 5u) << variants[i];
  }
  for (const std::string& p : held) {
    std::vector<uint32_t> ids;
    CollectInternedIds(p, ids);
    pool.Release(ids);
  }
  EXPECT_EQ(pool.Size(), 0u);
  // Pooled again from scratch after everything left: no stale shape points at a freed id.
  std::string again;
  for (int i = 0; i < kRounds; ++i) EXPECT_EQ(RoundTrip(base, pool, &again), base);
  std::vector<uint32_t> ids;
  CollectInternedIds(again, ids);
  EXPECT_EQ(ids.size(), 5u);
}

// Filtered decodes a packed value through `filter` into JSON text ("" on an error).
std::string Filtered(std::string_view packed, const InternPool& pool, const PackedFilter& filter) {
  rapidjson::Document out;
  if (!UnpackFiltered(packed, pool, filter, out, out.GetAllocator())) return "";
  return json::Serialize(out);
}

TEST(PackedJsonTest, UnpackFilteredKeepsOrDropsMembersAndFiltersNestedObjectsAndArrayElements) {
  InternPool pool;
  std::string packed;
  RoundTrip(R"({"kind":"Pod","spec":{"volumes":[{"name":"v"}],"nodeName":"n1",)"
            R"("containers":[{"name":"a","env":[{"name":"X"}],"image":"i"},"scalar",{"args":["x"]}]},)"
            R"("status":{"phase":"Running","conditions":[{"type":"Ready"}]}})",
            pool, &packed);
  const PackedFilter container{.keep = {"name", "image"}};
  const PackedFilter spec{.drop = {"volumes"}, .nested = {{"containers", &container}}};
  const PackedFilter status{.keep = {"phase"}};
  const PackedFilter root{.keep = {"spec", "status"}, .nested = {{"spec", &spec}, {"status", &status}}};
  // A scalar among filtered elements is kept whole (a reader reports its wrong shape); an element
  // left with no kept member is an empty object, still counted.
  EXPECT_EQ(Filtered(packed, pool, root),
            R"({"spec":{"nodeName":"n1","containers":[{"name":"a","image":"i"},"scalar",{}]},)"
            R"("status":{"phase":"Running"}})");
  rapidjson::Document whole;  // an empty filter keeps everything
  ASSERT_TRUE(UnpackJson(packed, pool, whole, whole.GetAllocator()));
  EXPECT_EQ(Filtered(packed, pool, PackedFilter{}), json::Serialize(whole));
  // A filter given a value that is neither an object nor an array decodes it whole.
  std::string scalar;
  RoundTrip(R"({"spec":"not an object"})", pool, &scalar);
  EXPECT_EQ(Filtered(scalar, pool, root), R"({"spec":"not an object"})");
}

TEST(PackedJsonTest, UnpackFilteredFollowsSharedSubtrees) {
  InternPool pool;
  const std::string text = R"({"spec":{"containers":[{"name":"a","env":[{"name":"LONG_ENOUGH"}],"image":"i"}]}})";
  std::string p1, p2, p3;
  RoundTrip(text, pool, &p1);
  RoundTrip(text, pool, &p2);
  RoundTrip(text, pool, &p3);
  ASSERT_LT(p3.size(), p1.size());  // p3 refers to pooled subtrees
  const PackedFilter container{.keep = {"name"}};
  const PackedFilter spec{.nested = {{"containers", &container}}};
  const PackedFilter root{.nested = {{"spec", &spec}}};
  EXPECT_EQ(Filtered(p3, pool, root), R"({"spec":{"containers":[{"name":"a"}]}})");
  EXPECT_EQ(Filtered(p1, pool, root), Filtered(p3, pool, root));
}

TEST(PackedJsonTest, UnpackFilteredOnTruncatedOrGarbageBytesIsADecodeErrorNotACrash) {
  InternPool pool;
  std::string packed;
  RoundTrip(R"({"a":[1,2,{"b":"c","d":[true]}],"e":{"f":1}})", pool, &packed);
  const PackedFilter inner{.drop = {"d"}};
  const PackedFilter root{.drop = {"e"}, .nested = {{"a", &inner}}};
  ASSERT_EQ(Filtered(packed, pool, root), R"({"a":[1,2,{"b":"c"}]})");
  for (size_t cut = 0; cut < packed.size(); ++cut) {
    rapidjson::Document out;
    auto st = UnpackFiltered(std::string_view(packed).substr(0, cut), pool, root, out, out.GetAllocator());
    EXPECT_FALSE(st.has_value()) << "cut at " << cut;
    if (!st) {
      EXPECT_EQ(st.error().code, ErrorCode::kDecode);
    }
  }
  rapidjson::Document out;
  EXPECT_FALSE(UnpackFiltered("\x7f\x01", pool, root, out, out.GetAllocator()).has_value());
  EXPECT_FALSE(UnpackFiltered("", pool, root, out, out.GetAllocator()).has_value());
}

// kReference decodes the same value as kCopy, its strings pointing at the packed bytes (inline
// strings) or the pool's entries (interned keys and values, shared subtrees) instead of copies.
TEST(PackedJsonTest, UnpackFilteredWithReferencedStringsDecodesTheSameValueWithoutCopies) {
  InternPool pool;
  const std::string long_value(kMaxInternedLength + 4, 'x');  // stored inline in the packed bytes
  const std::string text = R"({"spec":{"containers":[{"name":"a","env":[{"name":"LONG_ENOUGH"}],"image":"i"}],)"
                           R"("note":")" + long_value + R"("},"status":{"phase":"Running","podIP":"10.0.0.1"}})";
  std::string first, shared;
  RoundTrip(text, pool, &first);
  RoundTrip(text, pool, &shared);
  RoundTrip(text, pool, &shared);  // the third refers to pooled subtrees
  const PackedFilter container{.keep = {"name", "image"}};
  const PackedFilter spec{.nested = {{"containers", &container}}};
  const PackedFilter root{.nested = {{"spec", &spec}}};
  for (const std::string* packed : {&first, &shared}) {
    rapidjson::Document copied, referenced;
    ASSERT_TRUE(UnpackFiltered(*packed, pool, root, copied, copied.GetAllocator()));
    ASSERT_TRUE(UnpackFiltered(*packed, pool, root, referenced, referenced.GetAllocator(), UnpackStrings::kReference));
    EXPECT_EQ(json::Serialize(referenced), json::Serialize(copied));
    const rapidjson::Value& note = referenced["spec"]["note"];
    const char* at = note.GetString();
    EXPECT_TRUE(at >= packed->data() && at + note.GetStringLength() <= packed->data() + packed->size())
        << "the inline string is read in place";
    EXPECT_NE(copied["spec"]["note"].GetString(), at);
    // An interned value reads the pool's own bytes: the same address in every decode.
    rapidjson::Document again;
    ASSERT_TRUE(UnpackFiltered(*packed, pool, root, again, again.GetAllocator(), UnpackStrings::kReference));
    EXPECT_EQ(again["status"]["phase"].GetString(), referenced["status"]["phase"].GetString());
    EXPECT_EQ(again["spec"]["containers"][0]["image"].GetString(),
              referenced["spec"]["containers"][0]["image"].GetString());
  }
  // Malformed bytes are refused the same way in either mode.
  rapidjson::Document out;
  EXPECT_FALSE(UnpackFiltered(std::string_view(first).substr(0, first.size() - 1), pool, root, out,
                              out.GetAllocator(), UnpackStrings::kReference));
}

}  // namespace
}  // namespace berth::shim
