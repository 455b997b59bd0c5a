#include "e2e/kubesim/sim/seed_stream.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/sim/kubesim_instance.h"

namespace berth::kubesim {
namespace {

using ::testing::HasSubstr;

// Seen: what the sink received, as "kind/name @ position".
struct Seen {
  std::vector<std::string> objects;
  std::vector<SeedPosition> positions;
};

Result<Seen> Stream(const std::string& text) {
  Seen seen;
  std::istringstream in(text);
  auto s = StreamSeedObjects(in, "seed.txt", [&](rapidjson::Document obj, const SeedPosition& at) -> Status {
    seen.objects.push_back(std::string(json::GetString(obj, {"apiVersion"})) + " " +
                           std::string(json::GetString(obj, {"kind"})) + "/" +
                           std::string(json::GetString(obj, {"metadata", "name"})));
    seen.positions.push_back(at);
    return {};
  });
  if (!s) return std::unexpected(s.error());
  return seen;
}

std::string Pod(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"("},"spec":{"containers":[{"name":"c","image":"i","args":["a","]}"],"ports":[{"containerPort":80}]}]}})";
}

TEST(SeedStreamTest, ConcatenatedAndNewlineSeparatedJsonObjects) {
  auto seen = Stream(Pod("a") + Pod("b") + "\n\n" + Pod("c") + "\r\n");
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_EQ(seen->objects, (std::vector<std::string>{"v1 Pod/a", "v1 Pod/b", "v1 Pod/c"}));
  EXPECT_EQ(seen->positions[1].document, 2u);
  EXPECT_EQ(seen->positions[1].byte_offset, Pod("a").size());
  EXPECT_EQ(seen->positions[2].item, -1);
}

TEST(SeedStreamTest, JsonListOfThreeIsSplitIntoItems) {
  std::string list = R"({"kind":"List","apiVersion":"v1","metadata":{},"items":[)" + Pod("a") + ",\n " + Pod("b") +
                     "," + Pod("c") + "]}";
  auto seen = Stream(list);
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_EQ(seen->objects, (std::vector<std::string>{"v1 Pod/a", "v1 Pod/b", "v1 Pod/c"}));
  EXPECT_EQ(seen->positions[2].item, 2);
  EXPECT_EQ(seen->positions[2].document, 1u);
  EXPECT_EQ(list.substr(seen->positions[1].byte_offset, Pod("b").size()), Pod("b"));
}

TEST(SeedStreamTest, TypedListItemsGetTheListsApiVersionAndKind) {
  // kube-apiserver's PodList items carry neither; kubectl -o json puts "kind" after "items".
  auto seen = Stream(R"({"apiVersion":"v1","items":[{"metadata":{"name":"a"}},)"
                     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}}],"kind":"PodList","metadata":{}})");
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_EQ(seen->objects, (std::vector<std::string>{"v1 Pod/a", "v1 Pod/b"}));
  EXPECT_EQ(seen->positions[1].item, 1);
}

// Items are built from SAX events when the List's kind comes first and re-parsed from their text
// when it comes after them; both must give exactly what json::Parse gives.
TEST(SeedStreamTest, ListItemsAreTheSameWhicheverWayTheyAreRead) {
  const std::string item =
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","labels":{}},"data":{"k":"\u00e9\n\"q\""},)"
      R"("n":[-1,0,4294967295,4294967296,-9223372036854775808,18446744073709551615,1.5,1e3,-0.0],)"
      R"("deep":[[[]],[{}],[null,true,false,"s"]],"dup":1,"dup":2})";
  auto expected = json::Parse(item);
  ASSERT_TRUE(expected.has_value());
  for (const std::string& list : {R"({"kind":"List","apiVersion":"v1","items":[)" + item + "," + item + "]}",
                                  R"({"apiVersion":"v1","items":[)" + item + "," + item + R"(],"kind":"List"})"}) {
    std::vector<std::string> bodies;
    std::istringstream in(list);
    auto s = StreamSeedObjects(in, "seed", [&](rapidjson::Document obj, const SeedPosition&) -> Status {
      bodies.push_back(json::Serialize(obj));
      return {};
    });
    ASSERT_TRUE(s.has_value()) << s.error().message;
    ASSERT_EQ(bodies.size(), 2u) << list;
    EXPECT_EQ(bodies[0], json::Serialize(*expected));
    EXPECT_EQ(bodies[1], json::Serialize(*expected));
  }
}

TEST(SeedStreamTest, ItemsOfAnObjectThatIsNotAListStayInIt) {
  std::string text = R"({"items":[{"a":1},{"b":[2]}],"apiVersion":"example.com/v1","kind":"Bag","metadata":{"name":"x"}})";
  std::vector<std::string> bodies;
  std::istringstream in(text);
  auto s = StreamSeedObjects(in, "seed", [&](rapidjson::Document obj, const SeedPosition&) -> Status {
    bodies.push_back(json::Serialize(obj));
    return {};
  });
  ASSERT_TRUE(s.has_value()) << s.error().message;
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(bodies[0], text);
}

TEST(SeedStreamTest, EmptyListAndEmptyInput) {
  auto seen = Stream(R"({"kind":"List","apiVersion":"v1","items":[]})");
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_TRUE(seen->objects.empty());
  auto blank = Stream(" \n\t\n");
  ASSERT_TRUE(blank.has_value());
  EXPECT_TRUE(blank->objects.empty());
}

TEST(SeedStreamTest, MalformedJsonMidStreamNamesDocumentAndOffset) {
  std::string good = Pod("a") + "\n";
  std::string bad = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b",}})";
  auto seen = Stream(good + bad + "\n" + Pod("c"));
  ASSERT_FALSE(seen.has_value());
  EXPECT_EQ(seen.error().code, ErrorCode::kInvalidArgument);
  size_t comma = good.size() + bad.find(",}");
  EXPECT_THAT(seen.error().message, HasSubstr("seed.txt: document 2, byte offset " + std::to_string(comma + 1)));
  EXPECT_THAT(seen.error().message, HasSubstr("invalid JSON"));
}

TEST(SeedStreamTest, MalformedJsonInsideAListItemNamesTheOffset) {
  std::string head = R"({"kind":"List","apiVersion":"v1","items":[)" + Pod("a") + ",";
  auto seen = Stream(head + R"({"metadata":{"name":"b"} "spec":{}}]})");
  ASSERT_FALSE(seen.has_value());
  EXPECT_THAT(seen.error().message, HasSubstr("document 1, byte offset " + std::to_string(head.size() + 25)));
}

TEST(SeedStreamTest, TruncatedJsonIsAnError) {
  auto seen = Stream(Pod("a") + R"({"kind":"List","apiVersion":"v1","items":[)" + Pod("b"));
  ASSERT_FALSE(seen.has_value());
  EXPECT_THAT(seen.error().message, HasSubstr("document 2"));
}

TEST(SeedStreamTest, NonObjectsAreRefused) {
  auto scalar = Stream(Pod("a") + " 42");
  ASSERT_FALSE(scalar.has_value());
  EXPECT_THAT(scalar.error().message, HasSubstr("document 2, byte offset"));
  EXPECT_THAT(scalar.error().message, HasSubstr("not a JSON object"));
  auto item = Stream(R"({"kind":"List","apiVersion":"v1","items":[)" + Pod("a") + R"(,"oops"]})");
  ASSERT_FALSE(item.has_value());
  EXPECT_THAT(item.error().message, HasSubstr("items[1]"));
  auto items = Stream(R"({"kind":"List","apiVersion":"v1","items":{"a":1}})");
  ASSERT_FALSE(items.has_value());
  EXPECT_THAT(items.error().message, HasSubstr("items of a List is not an array"));
}

TEST(SeedStreamTest, NumberOutOfRangeInAnItemIsRefused) {
  auto seen = Stream(R"({"kind":"List","apiVersion":"v1","items":[{"kind":"Pod","metadata":{"name":"a"},"x":5e308}]})");
  ASSERT_FALSE(seen.has_value());
  EXPECT_THAT(seen.error().message, HasSubstr("items[0]"));
  EXPECT_THAT(seen.error().message, HasSubstr("Number too big"));
  auto top = Stream(Pod("a") + R"({"kind":"Pod","metadata":{"name":"b"},"x":-1e309})");
  ASSERT_FALSE(top.has_value());
  EXPECT_THAT(top.error().message, HasSubstr("document 2, byte offset"));
  EXPECT_THAT(top.error().message, HasSubstr("Number too big"));
}

TEST(SeedStreamTest, YamlDocumentsWithEmptyOnesSkipped) {
  auto seen = Stream(
      "# comment\n---\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\n# only a comment\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata:\n  k: |\n    --- not a separator\n...\n"
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: c\n");
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_EQ(seen->objects, (std::vector<std::string>{"v1 Pod/a", "v1 ConfigMap/b", "v1 Pod/c"}));
  EXPECT_EQ(seen->positions[1].document, 2u);
  EXPECT_EQ(seen->positions[1].line, 10u);
}

TEST(SeedStreamTest, YamlListDocumentIsExpanded) {
  auto seen = Stream("apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n");
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_EQ(seen->objects, (std::vector<std::string>{"v1 Pod/a", "v1 Pod/b"}));
  EXPECT_EQ(seen->positions[1].item, 1);
}

TEST(SeedStreamTest, MixedYamlAndJsonDocuments) {
  // YAML first, so the stream is YAML; a document that starts with '{' takes the JSON path.
  auto seen = Stream("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\n" + Pod("b") + "\n---\n" +
                     R"({"kind":"List","apiVersion":"v1","items":[)" + Pod("c") + "," + Pod("d") + "]}\n---\n" +
                     "apiVersion: v1\nkind: Pod\nmetadata:\n  name: e\n");
  ASSERT_TRUE(seen.has_value()) << seen.error().message;
  EXPECT_EQ(seen->objects, (std::vector<std::string>{"v1 Pod/a", "v1 Pod/b", "v1 Pod/c", "v1 Pod/d", "v1 Pod/e"}));
  EXPECT_EQ(seen->positions[3].document, 3u);
  EXPECT_EQ(seen->positions[3].item, 1);
  // A JSON stream may mix Lists and plain objects.
  auto json = Stream(Pod("a") + R"({"kind":"List","apiVersion":"v1","items":[)" + Pod("b") + "]}" + Pod("c"));
  ASSERT_TRUE(json.has_value()) << json.error().message;
  EXPECT_EQ(json->objects, (std::vector<std::string>{"v1 Pod/a", "v1 Pod/b", "v1 Pod/c"}));
}

TEST(SeedStreamTest, MalformedYamlDocumentNamesIt) {
  std::string first = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n";
  auto seen = Stream(first + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: [b\n---\n" + first);
  ASSERT_FALSE(seen.has_value());
  EXPECT_THAT(seen.error().message, HasSubstr("seed.txt: document 2 (line 5), byte offset " + std::to_string(first.size())));
  EXPECT_THAT(seen.error().message, HasSubstr("yaml: line"));
  auto scalar = Stream("just text\n");
  ASSERT_FALSE(scalar.has_value());
  EXPECT_THAT(scalar.error().message, HasSubstr("not a YAML mapping"));
}

TEST(SeedStreamTest, SinkErrorStopsTheStreamWithThePosition) {
  int calls = 0;
  std::istringstream in(Pod("a") + Pod("b") + Pod("c"));
  auto s = StreamSeedObjects(in, "seed", [&](rapidjson::Document, const SeedPosition&) -> Status {
    if (++calls == 2) return MakeError(ErrorCode::kInvalid, "refused");
    return {};
  });
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(calls, 2);
  EXPECT_THAT(s.error().message, HasSubstr("document 2"));
  EXPECT_THAT(s.error().message, HasSubstr("refused"));
}

// The YAML path reads the repository's CRD manifests exactly as the whole-text converter does
// (what --seed-file did before it streamed).
TEST(SeedStreamTest, CrdManifestsMatchTheWholeTextConverter) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(BERTH_SOURCE_DIR) + "/crds")) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto whole = shim::YamlToJsonDocuments(text.str());
    ASSERT_TRUE(whole.has_value()) << entry.path();
    std::vector<std::string> streamed;
    std::istringstream again(text.str());
    auto s = StreamSeedObjects(again, entry.path().string(), [&](rapidjson::Document obj, const SeedPosition&) -> Status {
      streamed.push_back(json::Serialize(obj));
      return {};
    });
    ASSERT_TRUE(s.has_value()) << s.error().message;
    ASSERT_EQ(streamed.size(), whole->size()) << entry.path();
    for (size_t i = 0; i < streamed.size(); ++i) EXPECT_EQ(streamed[i], json::Serialize((*whole)[i])) << entry.path();
  }
  EXPECT_GT(files, 0);
}

// Through KubesimInstance: objects get the create path's validation and land in the store; an
// invalid object stops the load with its position.
TEST(SeedStreamTest, SeedFileCreatesObjectsThroughTheApiServer) {
  std::string path = ::testing::TempDir() + "/seed_stream_test.json";
  {
    std::ofstream out(path);
    out << R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}})" << "\n"
        << R"({"apiVersion":"v1","kind":"PodList","items":[)" << Pod("a") << "," << Pod("b") << "]}\n";
  }
  KubesimInstance sim(KubesimOptions{});
  auto s = sim.LoadSeedFile(path);
  ASSERT_TRUE(s.has_value()) << s.error().message;
  EXPECT_NE(sim.store().Get("/pods", "default", "b"), nullptr);

  {
    std::ofstream out(path);
    out << Pod("c") << "\n" << R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"d"},"spec":{}})" << "\n";
  }
  auto bad = sim.LoadSeedFile(path);
  ASSERT_FALSE(bad.has_value());
  EXPECT_THAT(bad.error().message, HasSubstr("--seed-file " + path + ": document 2"));
  EXPECT_THAT(bad.error().message, HasSubstr("seed Pod d"));
  EXPECT_FALSE(sim.LoadSeedFile(path + ".missing").has_value());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace berth::kubesim
