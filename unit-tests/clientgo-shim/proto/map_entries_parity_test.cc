// Upstream's map fields are declared as repeated entry messages in proto/k8s (map_entries.proto:
// a reused message keeps them, where a map frees its nodes on every parse). The JSON must be what
// a real `map<>` parse of the same bytes holds: proto/k8s_node.proto (externalgrpc's Node subset)
// declares ObjectMeta.labels/annotations and NodeStatus.capacity/allocatable as maps with
// upstream's numbers, so random Node bytes are read both ways and compared, duplicates, missing
// keys or values and either field order included.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/proto/protobuf_codec.h"
#include "proto/k8s_node.pb.h"
#include "unit-tests/clientgo-shim/proto/wire_builder.h"

namespace berth::shim::proto {
namespace {

using testing::Wire;

// Entry: one map entry's bytes {1 key, 2 value}, sometimes without its key, its value (strings
// only: a Quantity entry without its value is an error on both paths' terms), or value first.
Wire Entry(std::mt19937& rng, bool quantity) {
  static const char* kKeys[] = {"a", "app", "cpu", "memory", "tier", "z", "pods", "kubernetes.io/hostname"};
  const std::string key = kKeys[rng() % 8];
  const std::string text = quantity ? std::to_string(rng() % 5000) + "m" : "v" + std::to_string(rng() % 9);
  Wire value = quantity ? Wire().Msg(2, Wire().Bytes(1, text)) : Wire().Bytes(2, text);
  const unsigned shape = rng() % 8;
  if (shape == 0) return value;                              // no key: ""
  if (shape == 1 && !quantity) return Wire().Bytes(1, key);  // no value: ""
  if (shape == 2) return Wire().Raw(value.str()).Bytes(1, key);  // value before key
  return Wire().Bytes(1, key).Raw(value.str());
}

// Expected: a map as JSON, keys sorted (std::map), absent when empty (omitempty).
template <class Map, class Text>
void AddExpected(rapidjson::Value& object, const char* name, const Map& map, Text text,
                 rapidjson::Document::AllocatorType& a) {
  if (map.empty()) return;
  std::map<std::string, std::string> sorted;
  for (const auto& [k, v] : map) sorted[k] = text(v);
  rapidjson::Value out(rapidjson::kObjectType);
  for (const auto& [k, v] : sorted) out.AddMember(rapidjson::Value(k.c_str(), a), rapidjson::Value(v.c_str(), a), a);
  object.AddMember(rapidjson::StringRef(name), out, a);
}

TEST(MapEntriesParityTest, RandomNodesReadAsARealMapParseReadsThem) {
  std::mt19937 rng(16);
  for (int round = 0; round < 500; ++round) {
    Wire meta = Wire().Bytes(1, "node-" + std::to_string(round));
    Wire status;
    for (int i = static_cast<int>(rng() % 7); i > 0; --i) meta.Msg(11, Entry(rng, false));
    for (int i = static_cast<int>(rng() % 4); i > 0; --i) meta.Msg(12, Entry(rng, false));
    for (int i = static_cast<int>(rng() % 5); i > 0; --i) status.Msg(1, Entry(rng, true));
    for (int i = static_cast<int>(rng() % 5); i > 0; --i) status.Msg(2, Entry(rng, true));
    const Wire node = Wire().Msg(1, meta).Msg(3, status);

    berth::k8s::Node with_maps;
    ASSERT_TRUE(with_maps.ParseFromString(node.str()));
    auto doc = DecodeObject(testing::Enveloped("v1", "Node", node));
    ASSERT_TRUE(doc) << doc.error().message;

    rapidjson::Document expected;
    auto& a = expected.GetAllocator();
    rapidjson::Value metadata(rapidjson::kObjectType), status_json(rapidjson::kObjectType);
    auto same = [](const std::string& s) { return s; };
    AddExpected(metadata, "labels", with_maps.metadata().labels(), same, a);
    AddExpected(metadata, "annotations", with_maps.metadata().annotations(), same, a);
    auto quantity = [](const berth::k8s::Quantity& q) { return q.string(); };
    AddExpected(status_json, "capacity", with_maps.status().capacity(), quantity, a);
    AddExpected(status_json, "allocatable", with_maps.status().allocatable(), quantity, a);
    for (auto [object, name] : {std::pair{&metadata, "metadata"}, std::pair{&status_json, "status"}}) {
      const rapidjson::Value* got = json::Find(*doc, {name});
      ASSERT_NE(got, nullptr) << name;
      for (const char* field : {"labels", "annotations", "capacity", "allocatable"}) {
        const rapidjson::Value* want = json::Find(*object, {field});
        const rapidjson::Value* have = json::Find(*got, {field});
        ASSERT_EQ(want == nullptr, have == nullptr) << name << "." << field << " round " << round;
        if (want) {
          EXPECT_EQ(json::Serialize(*have), json::Serialize(*want)) << name << "." << field << " round " << round;
        }
      }
    }
  }
}

}  // namespace
}  // namespace berth::shim::proto
