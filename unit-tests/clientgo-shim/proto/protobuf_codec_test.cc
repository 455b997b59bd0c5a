#include "clientgo-shim/proto/protobuf_codec.h"

#include <gtest/gtest.h>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/transform.h"
#include "clientgo-shim/transport/api_error.h"
#include "clientgo-shim/watch/watch_event.h"
#include "pod_fixtures.h"
#include "proto/k8s/core_v1.pb.h"
#include "proto/k8s/runtime.pb.h"

namespace berth::shim::proto {
namespace {

using testing::Enveloped;
using testing::Frame;
using testing::WatchFrame;
using testing::Wire;

// Transformed: `doc` after the informers' DefaultTransform, serialized for readable failures.
rapidjson::Document Transformed(rapidjson::Document doc) {
  EXPECT_TRUE(DefaultTransformFn(doc, doc.GetAllocator()));
  return doc;
}

rapidjson::Document ParseJson(const std::string& text) {
  auto doc = json::Parse(text);
  EXPECT_TRUE(doc) << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : rapidjson::Document();
}

void ExpectSameJson(const rapidjson::Value& got, const rapidjson::Value& want) {
  EXPECT_TRUE(got == want) << "got:  " << json::Serialize(got) << "\nwant: " << json::Serialize(want);
}

TEST(ProtobufCodecTest, PodFromHandBuiltBytesEqualsTheApiServersJsonAfterTheDefaultTransform) {
  auto doc = DecodeObject(Enveloped("v1", "Pod", testing::PodWire()));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::GetString(*doc, {"kind"}), "Pod");
  EXPECT_EQ(json::GetString(*doc, {"apiVersion"}), "v1");
  ExpectSameJson(Transformed(std::move(*doc)), Transformed(ParseJson(testing::PodJson())));
}

TEST(ProtobufCodecTest, NodeFromHandBuiltBytesEqualsTheApiServersJson) {
  auto doc = DecodeObject(Enveloped("v1", "Node", testing::NodeWire()));
  ASSERT_TRUE(doc) << doc.error().message;
  ExpectSameJson(*doc, ParseJson(testing::NodeJson()));
}

TEST(ProtobufCodecTest, FieldsOutsideTheSchemaAreSkippedNotErrors) {
  // managedFields (ObjectMeta 17) and generateName (2) are outside the ObjectMeta subset (the
  // transform drops them from JSON too); 900 is beyond every message today (a field of a newer
  // release).
  Wire meta = Wire().Bytes(1, "p").Bytes(2, "p-").Msg(17, Wire().Bytes(1, "kubectl").Bytes(2, "Update"));
  Wire spec = Wire().Msg(2, Wire().Bytes(1, "app").Bytes(900, "future")).Varint(900, 1);
  auto doc = DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, meta).Msg(2, spec)));
  ASSERT_TRUE(doc) << doc.error().message;
  ExpectSameJson(*doc, ParseJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":null},
      "spec":{"containers":[{"name":"app"}]}})"));
}

TEST(ProtobufCodecTest, SpecFieldsBerthCopiesButDoesNotInterpretAreKept) {
  // hostNetwork (PodSpec 11), env (Container 7), a configMap volume (VolumeSource 19 inlined into
  // the Volume), images (NodeStatus 8): a migration copies the whole pod spec into its
  // Reservation's template, and the scheduler scores ImageLocality from node images.
  Wire spec = Wire()
                  .Msg(1, Wire().Bytes(1, "cfg").Msg(2, Wire().Msg(19, Wire().Msg(1, Wire().Bytes(1, "settings")))))
                  .Msg(2, Wire().Bytes(1, "app").Msg(7, Wire().Bytes(1, "A").Bytes(2, "1")))
                  .Varint(11, 1);
  auto pod = DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, Wire().Bytes(1, "p")).Msg(2, spec)));
  ASSERT_TRUE(pod) << pod.error().message;
  ExpectSameJson(*pod, ParseJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":null},
      "spec":{"volumes":[{"name":"cfg","configMap":{"name":"settings"}}],
              "containers":[{"name":"app","env":[{"name":"A","value":"1"}]}],"hostNetwork":true}})"));
  Wire status = Wire().Msg(8, Wire().Bytes(1, "registry/app:1").Bytes(1, "registry/app@sha256:0").Varint(2, 52428800));
  auto node = DecodeObject(Enveloped("v1", "Node", Wire().Msg(1, Wire().Bytes(1, "n")).Msg(3, status)));
  ASSERT_TRUE(node) << node.error().message;
  ExpectSameJson(*node, ParseJson(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n","creationTimestamp":null},
      "status":{"images":[{"names":["registry/app:1","registry/app@sha256:0"],"sizeBytes":52428800}]}})"));
}

TEST(ProtobufCodecTest, ZeroScalarsFollowGoJson) {
  // Go writes every non-pointer scalar, zero or not; JSON omits the zeros (omitempty) but keeps a
  // pointer's zero (priority, tolerationSeconds, OwnerReference.controller), and writes a zero
  // non-pointer Time (creationTimestamp) as null.
  Wire spec = Wire().Bytes(10, "").Varint(25, 0).Bytes(19, "")
                  .Msg(22, Wire().Bytes(1, "").Varint(5, 0))
                  .Msg(2, Wire().Bytes(1, "c").Msg(8, Wire()));
  Wire meta = Wire().Bytes(1, "p").Varint(7, 0)
                  .Msg(13, Wire().Bytes(1, "RS").Bytes(3, "r").Bytes(4, "u").Bytes(5, "apps/v1").Varint(6, 0));
  auto doc = DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, meta).Msg(2, spec).Msg(3, Wire())));
  ASSERT_TRUE(doc) << doc.error().message;
  ExpectSameJson(*doc, ParseJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":null,
      "ownerReferences":[{"kind":"RS","name":"r","uid":"u","apiVersion":"apps/v1","controller":false}]},
      "spec":{"containers":[{"name":"c","resources":{}}],"tolerations":[{"tolerationSeconds":0}],"priority":0},
      "status":{}})"));
}

TEST(ProtobufCodecTest, RoundTripThroughTheGeneratedClasses) {
  k8s::io::api::core::v1::Pod pod;
  pod.mutable_metadata()->set_name("gen");
  for (auto [k, v] : {std::pair{"b", "2"}, std::pair{"a", "1"}}) {
    auto* label = pod.mutable_metadata()->add_labels();
    label->set_key(k);
    label->set_value(v);
  }
  auto* c = pod.mutable_spec()->add_containers();
  c->set_name("app");
  auto* cpu = c->mutable_resources()->add_requests();
  cpu->set_key("cpu");
  cpu->mutable_value()->set_string("250m");
  pod.mutable_status()->set_nominatednodename("n9");
  k8s::io::apimachinery::pkg::runtime::Unknown envelope;
  envelope.mutable_typemeta()->set_apiversion("v1");
  envelope.mutable_typemeta()->set_kind("Pod");
  envelope.set_raw(pod.SerializeAsString());
  auto doc = DecodeObject(std::string(kProtobufMagic) + envelope.SerializeAsString());
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::Serialize(*doc),
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gen","creationTimestamp":null,"labels":{"a":"1","b":"2"}},)"
            R"("spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]},)"
            R"("status":{"nominatedNodeName":"n9"}})");
}

// Upstream's maps are declared as their entries (map_entries.proto): the bytes are a map's, so a
// map as upstream encodes it reads the same, and what a map parse does with odd entries holds:
// equal keys (the last wins), an entry without key or value (empty), keys in any order (sorted).
TEST(ProtobufCodecTest, MapFieldsReadAsAMapParseWould) {
  auto label = [](std::string_view k, std::string_view v) { return Wire().Bytes(1, k).Bytes(2, v); };
  Wire meta = Wire().Bytes(1, "p")
                  .Msg(11, label("z", "1")).Msg(11, label("a", "first")).Msg(11, label("m", "x"))
                  .Msg(11, label("a", "second"))                        // a repeated key: the last wins
                  .Msg(11, Wire().Bytes(2, "no key"))                   // key "" (a map's default)
                  .Msg(11, Wire().Bytes(1, "no value"))                 // value ""
                  .Msg(12, label("only", "annotation"));
  Wire quantity = Wire().Bytes(1, "250m");
  Wire resources = Wire().Msg(2, Wire().Bytes(1, "memory").Msg(2, Wire().Bytes(1, "1Gi")))
                       .Msg(2, Wire().Bytes(1, "cpu").Msg(2, quantity))
                       .Msg(2, Wire().Bytes(1, "memory").Msg(2, Wire().Bytes(1, "2Gi")));
  Wire spec = Wire().Msg(2, Wire().Bytes(1, "c").Msg(8, resources));
  auto doc = DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, meta).Msg(2, spec)));
  ASSERT_TRUE(doc) << doc.error().message;
  EXPECT_EQ(json::Serialize(*doc),
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":null,)"
            R"("labels":{"":"no key","a":"second","m":"x","no value":"","z":"1"},"annotations":{"only":"annotation"}},)"
            R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"250m","memory":"2Gi"}}}]}})");

  // An entry's key or value with the wrong wire type is an error naming it, not an empty string;
  // so is a Quantity entry without its string, as before.
  auto bad_key = DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, Wire().Bytes(1, "p").Msg(11, Wire().Varint(1, 5)))));
  ASSERT_FALSE(bad_key);
  EXPECT_NE(bad_key.error().message.find("StringEntry.key"), std::string::npos) << bad_key.error().message;
  Wire no_string = Wire().Msg(2, Wire().Bytes(1, "c").Msg(8, Wire().Msg(1, Wire().Bytes(1, "cpu").Msg(2, Wire()))));
  auto bad_quantity = DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, Wire().Bytes(1, "p")).Msg(2, no_string)));
  ASSERT_FALSE(bad_quantity);
  EXPECT_NE(bad_quantity.error().message.find("Quantity has no string"), std::string::npos);
}

TEST(ProtobufCodecTest, PodListPageThroughTheReflectorsDecoder) {
  // PodList{1 ListMeta{2 resourceVersion, 3 continue, 4 remainingItemCount}, 2 items}
  Wire list = Wire().Msg(1, Wire().Bytes(2, "42").Bytes(3, "tok").Varint(4, 7))
                  .Msg(2, testing::PodWire("a", "40")).Msg(2, testing::PodWire("b", "41"));
  auto page = DecodeListPageAs("application/vnd.kubernetes.protobuf", Enveloped("v1", "PodList", list));
  ASSERT_TRUE(page) << page.error().message;
  EXPECT_EQ(page->resource_version, "42");
  EXPECT_EQ(page->continue_token, "tok");
  ASSERT_EQ(page->Items().Size(), 2u);
  const rapidjson::Value* remaining = json::Find(page->body, {"metadata", "remainingItemCount"});
  ASSERT_NE(remaining, nullptr);
  EXPECT_EQ(remaining->GetInt64(), 7);
  rapidjson::Document item;
  item.CopyFrom(page->Items()[1], item.GetAllocator());
  ExpectSameJson(Transformed(std::move(item)), Transformed(ParseJson(testing::PodJson("b", "41"))));
  // The same call with a JSON Content-Type reads JSON: the fallback when a server ignores Accept.
  auto json_page = DecodeListPageAs("application/json", R"({"metadata":{"resourceVersion":"5"},"items":[]})");
  ASSERT_TRUE(json_page);
  EXPECT_EQ(json_page->resource_version, "5");
}

TEST(ProtobufCodecTest, ListMetadataScanReadsTheContinueTokenWithoutTheItems) {
  // Metadata first (as upstream writes it), after the items, or split in two (merged).
  Wire first = Wire().Msg(1, Wire().Bytes(2, "42").Bytes(3, "tok")).Msg(2, testing::PodWire("a", "40"));
  Wire last = Wire().Msg(2, testing::PodWire("a", "40")).Msg(1, Wire().Bytes(2, "42").Bytes(3, "tok"));
  Wire split = Wire().Msg(1, Wire().Bytes(2, "42")).Msg(2, testing::PodWire("a", "40")).Msg(1, Wire().Bytes(3, "tok"));
  for (const Wire& list : {first, last, split}) {
    auto scan = ScanListMeta(Enveloped("v1", "PodList", list));
    ASSERT_TRUE(scan) << scan.error().message;
    EXPECT_EQ(scan->kind, "PodList");
    EXPECT_EQ(scan->resource_version, "42");
    EXPECT_EQ(scan->continue_token, "tok");
    auto meta = ScanListMetadataAs("application/vnd.kubernetes.protobuf;stream=watch", Enveloped("v1", "PodList", list));
    ASSERT_TRUE(meta);
    EXPECT_EQ(meta->continue_token, "tok");
  }
  // The last page: no continue token.
  auto end = ScanListMeta(Enveloped("v1", "NodeList", Wire().Msg(1, Wire().Bytes(2, "7"))));
  ASSERT_TRUE(end);
  EXPECT_EQ(end->continue_token, "");
  // Malformed: an item's length beyond the end, a body without the magic, a kind that is not a list.
  std::string cut = Enveloped("v1", "PodList", first);
  auto truncated = ScanListMeta(std::string_view(cut).substr(0, cut.size() - 3));
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().code, ErrorCode::kInvalidArgument);
  auto json = ScanListMetadataAs("application/vnd.kubernetes.protobuf", R"({"metadata":{}})");
  ASSERT_FALSE(json);
  EXPECT_NE(json.error().message.find("magic"), std::string::npos) << json.error().message;
  auto pod = ScanListMeta(Enveloped("v1", "Pod", testing::PodWire()));
  ASSERT_FALSE(pod);
  EXPECT_NE(pod.error().message.find("list kind \"Pod\""), std::string::npos);
}

TEST(ProtobufCodecTest, NodeListDecodes) {
  auto list = DecodeList(Enveloped("v1", "NodeList", Wire().Msg(1, Wire().Bytes(2, "3")).Msg(2, testing::NodeWire())));
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_EQ(list->resource_version, "3");
  ASSERT_EQ(list->body["items"].Size(), 1u);
  EXPECT_EQ(json::GetString(list->body["items"][0], {"status", "allocatable", "cpu"}), "3800m");
}

TEST(ProtobufCodecTest, WatchStreamOfEveryEventTypeInAnyChunking) {
  const std::string stream =
      WatchFrame("ADDED", Enveloped("v1", "Pod", testing::PodWire("a", "50"))) +
      WatchFrame("MODIFIED", Enveloped("v1", "Pod", testing::PodWire("a", "51"))) +
      WatchFrame("DELETED", Enveloped("v1", "Pod", testing::PodWire("a", "52"))) +
      // BOOKMARK: a Pod with only metadata.resourceVersion (and the initial-events annotation).
      WatchFrame("BOOKMARK", Enveloped("v1", "Pod", Wire().Msg(1, Wire().Bytes(6, "60").StringMapEntry(
                                                          12, "k8s.io/initial-events-end", "true")))) +
      // ERROR: a Status{2 status, 3 message, 4 reason, 6 code}.
      WatchFrame("ERROR", Enveloped("v1", "Status", Wire().Bytes(2, "Failure")
                                                        .Bytes(3, "too old resource version: 1 (60)")
                                                        .Bytes(4, "Expired").Varint(6, 410)));
  for (size_t chunk : {size_t{1}, size_t{3}, size_t{7}, stream.size()}) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    FrameReader reader;
    std::vector<WatchEvent> events;
    for (size_t at = 0; at < stream.size(); at += chunk) {
      auto fed = reader.Feed(std::string_view(stream).substr(at, chunk), [&](std::string_view frame) {
        auto ev = DecodeProtobufWatchEvent(frame);
        EXPECT_TRUE(ev) << (ev ? "" : ev.error().message);
        if (ev) events.push_back(std::move(*ev));
        return true;
      });
      ASSERT_TRUE(fed && *fed);
    }
    EXPECT_TRUE(reader.Finish());
    ASSERT_EQ(events.size(), 5u);
    EXPECT_EQ(events[0].type, WatchEventType::kAdded);
    EXPECT_EQ(events[0].ResourceVersion(), "50");
    EXPECT_EQ(json::GetString(events[0].object, {"spec", "nodeName"}), "n1");
    EXPECT_EQ(events[1].type, WatchEventType::kModified);
    EXPECT_EQ(events[1].ResourceVersion(), "51");
    EXPECT_EQ(events[2].type, WatchEventType::kDeleted);
    EXPECT_EQ(events[3].type, WatchEventType::kBookmark);
    EXPECT_EQ(events[3].ResourceVersion(), "60");
    EXPECT_EQ(events[4].type, WatchEventType::kError);
    Error e = ErrorFromStatusObject(events[4].object);
    EXPECT_EQ(e.code, ErrorCode::kGone);
    EXPECT_EQ(e.http_status, 410);
    EXPECT_EQ(e.message, "too old resource version: 1 (60)");
  }
}

TEST(ProtobufCodecTest, ProtobufErrorStatusBodyBecomesTheApiError) {
  // A request that accepts protobuf gets its 4xx/5xx Status in protobuf.
  const std::string body = Enveloped("v1", "Status", Wire().Bytes(2, "Failure").Bytes(3, "pods is forbidden: no")
                                                         .Bytes(4, "Forbidden").Varint(6, 403));
  Error e = DecodeApiError(403, body, "");
  EXPECT_EQ(e.code, ErrorCode::kForbidden);
  EXPECT_EQ(e.reason, "Forbidden");
  EXPECT_EQ(e.message, "pods is forbidden: no");
}

TEST(ProtobufCodecTest, ContentTypeMatching) {
  EXPECT_TRUE(IsProtobufContentType("application/vnd.kubernetes.protobuf"));
  EXPECT_TRUE(IsProtobufContentType("application/vnd.kubernetes.protobuf;stream=watch"));
  EXPECT_TRUE(IsProtobufContentType(" Application/VND.kubernetes.protobuf ; stream=watch"));
  EXPECT_FALSE(IsProtobufContentType("application/json"));
  EXPECT_FALSE(IsProtobufContentType("application/vnd.kubernetes.protobuf.x"));
  EXPECT_FALSE(IsProtobufContentType(""));
}

// --- malformed input: an error naming the problem, never a crash or an empty object ---

void ExpectInvalid(const Result<rapidjson::Document>& doc, std::string_view needle) {
  ASSERT_FALSE(doc) << json::Serialize(*doc);
  EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(doc.error().message.find(needle), std::string::npos) << doc.error().message;
}

TEST(ProtobufCodecMalformedTest, WrongMagic) {
  std::string body = Enveloped("v1", "Pod", testing::PodWire());
  body[3] = 'x';
  ExpectInvalid(DecodeObject(body), "k8s\\0 magic");
  ExpectInvalid(DecodeObject(R"({"kind":"Pod"})"), "k8s\\0 magic");
  ExpectInvalid(DecodeObject(""), "k8s\\0 magic");
}

TEST(ProtobufCodecMalformedTest, EveryTruncationIsAnError) {
  const std::string body = Enveloped("v1", "Pod", testing::PodWire());
  for (size_t n = 0; n < body.size(); ++n) {
    auto doc = DecodeObject(std::string_view(body).substr(0, n));
    ASSERT_FALSE(doc) << "prefix of " << n << " bytes decoded: " << json::Serialize(*doc);
    EXPECT_EQ(doc.error().code, ErrorCode::kInvalidArgument);
  }
}

TEST(ProtobufCodecMalformedTest, WrongWireTypeOfADeclaredField) {
  // ObjectMeta.name (1) as a varint instead of a string.
  ExpectInvalid(DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, Wire().Varint(1, 5)))),
                "ObjectMeta.name (field 1) has the wrong wire type");
  // Pod.spec (2) as a varint: without the check the pod would silently have no spec.
  ExpectInvalid(DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, Wire().Bytes(1, "p")).Varint(2, 1))),
                "Pod.spec (field 2) has the wrong wire type");
  // PodSpec.priority (25) as a string.
  ExpectInvalid(DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, Wire().Bytes(1, "p")).Msg(2, Wire().Bytes(25, "x")))),
                "PodSpec.priority (field 25) has the wrong wire type");
}

TEST(ProtobufCodecMalformedTest, LengthBeyondTheEnd) {
  // metadata claims 100 bytes; 3 follow.
  Wire pod = Wire().Raw(std::string("\x0a\x64\x0a\x01p", 5));
  ExpectInvalid(DecodeObject(Enveloped("v1", "Pod", pod)), "Pod is malformed");
  // The envelope's raw claims more than the body holds.
  ExpectInvalid(DecodeObject(std::string("k8s\0", 4) + std::string("\x12\x7f\x0a", 3)), "envelope is malformed");
}

TEST(ProtobufCodecMalformedTest, WhatCannotBeDecodedIsNamed) {
  ExpectInvalid(DecodeObject(Enveloped("v1", "ConfigMap", Wire().Msg(1, Wire().Bytes(1, "c")))),
                "kind \"ConfigMap\" is not decodable");
  ExpectInvalid(DecodeObject(Enveloped("v1", "Pod", Wire())), "the envelope carries no object");
  ExpectInvalid(DecodeObject(Enveloped("v1", "Pod", Wire().Msg(2, Wire().Bytes(10, "n")))), "Pod has no metadata");
  ExpectInvalid(DecodeObject(std::string("k8s\0", 4) +
                             Wire().Msg(1, Wire().Bytes(1, "v1").Bytes(2, "Pod")).Bytes(2, testing::PodWire().str())
                                 .Bytes(3, "gzip").str()),
                "content encoding \"gzip\" is not supported");
  // A Quantity without its string is not zero.
  ExpectInvalid(DecodeObject(Enveloped("v1", "Node", Wire().Msg(1, Wire().Bytes(1, "n"))
                                                         .Msg(3, Wire().Msg(2, Wire().Bytes(1, "cpu").Msg(2, Wire()))))),
                "Quantity has no string");
  // A Time beyond year 9999.
  ExpectInvalid(DecodeObject(Enveloped("v1", "Pod", Wire().Msg(1, Wire().Bytes(1, "p").Msg(8, Wire().Varint(1, 253402300800))))),
                "outside years 0000-9999");
  auto list = DecodeList(Enveloped("v1", "PodList", Wire().Msg(2, Wire().Msg(2, Wire()))));
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().message.find("PodList item 0 has no metadata"), std::string::npos) << list.error().message;
  auto not_list = DecodeList(Enveloped("v1", "Pod", testing::PodWire()));
  ASSERT_FALSE(not_list);
  EXPECT_NE(not_list.error().message.find("list kind \"Pod\""), std::string::npos);
}

TEST(ProtobufCodecMalformedTest, BadWatchFrames) {
  auto unknown_type = DecodeWatchFrame(Wire().Bytes(1, "EXPLODED").Msg(2, Wire().Bytes(1, Enveloped("v1", "Pod", testing::PodWire()))).str());
  ASSERT_FALSE(unknown_type);
  EXPECT_NE(unknown_type.error().message.find("unknown type \"EXPLODED\""), std::string::npos);
  auto no_object = DecodeWatchFrame(Wire().Bytes(1, "ADDED").str());
  ASSERT_FALSE(no_object);
  EXPECT_NE(no_object.error().message.find("carries no object"), std::string::npos);
  auto bad_object = DecodeWatchFrame(Wire().Bytes(1, "ADDED").Msg(2, Wire().Bytes(1, "{\"json\":1}")).str());
  ASSERT_FALSE(bad_object);
  EXPECT_NE(bad_object.error().message.find("(watch event ADDED)"), std::string::npos) << bad_object.error().message;
  auto truncated = DecodeWatchFrame(std::string("\x0a\x05" "ADD", 5));
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().code, ErrorCode::kInvalidArgument);
}

TEST(ProtobufCodecMalformedTest, FrameReaderLimitsAndTruncation) {
  FrameReader small(16);
  auto too_big = small.Feed(Frame(std::string(17, 'x')), [](std::string_view) { return true; });
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message.find("exceeds the limit of 16"), std::string::npos);
  FrameReader reader;
  int frames = 0;
  const std::string two = Frame("ab") + Frame("cde");
  ASSERT_TRUE(reader.Feed(std::string_view(two).substr(0, two.size() - 1), [&](std::string_view f) {
    EXPECT_EQ(f, "ab");
    ++frames;
    return true;
  }));
  EXPECT_EQ(frames, 1);
  Status end = reader.Finish();
  ASSERT_FALSE(end);
  EXPECT_NE(end.error().message.find("ended inside a frame (6 bytes left)"), std::string::npos) << end.error().message;
  // A sink that stops: Feed says so and keeps the rest.
  FrameReader stopping;
  auto stopped = stopping.Feed(two, [](std::string_view) { return false; });
  ASSERT_TRUE(stopped);
  EXPECT_FALSE(*stopped);
}

}  // namespace
}  // namespace berth::shim::proto

namespace berth::shim::proto {
namespace {

// Time's JSON form over the whole RFC 3339 range, checked against the shim's own formatter.
TEST(ProtobufCodecTest, TimesFormatAsRfc3339SecondsAcrossTheRange) {
  for (int64_t s : {int64_t{-62167219200}, int64_t{-62135596800}, int64_t{-1}, int64_t{0}, int64_t{951782400},
                    int64_t{1714564800}, int64_t{4102444799}, int64_t{253402300799}}) {
    auto doc = DecodeObject(testing::Enveloped("v1", "Pod", testing::Wire().Msg(1, testing::Wire().Bytes(1, "p").Msg(8, testing::Wire().Varint(1, static_cast<uint64_t>(s))))));
    ASSERT_TRUE(doc) << s << ": " << doc.error().message;
    EXPECT_EQ(json::GetString(*doc, {"metadata", "creationTimestamp"}), FormatUnixTime({s, 0})) << s;
  }
}

}  // namespace
}  // namespace berth::shim::proto
