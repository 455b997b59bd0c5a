// clientgo-shim/proto/protobuf_codec.h
//
// The Kubernetes protobuf wire format (application/vnd.kubernetes.protobuf), decoded into the JSON
// shape the rest of the shim consumes (see protobuf_json.h):
//  - a body is the 4-byte magic "k8s\0" then runtime.Unknown{1 typeMeta{1 apiVersion, 2 kind},
//    2 raw, 3 contentEncoding, 4 contentType}; raw is the message named by typeMeta.kind;
//  - a LIST body's raw is a PodList/NodeList {1 ListMeta metadata, 2 repeated items};
//  - a WATCH body (Content-Type "...;stream=watch") is frames of a 4-byte big-endian length and
//    a meta.v1.WatchEvent{1 type, 2 RawExtension object{1 raw}} without the envelope (upstream's
//    RawSerializer + LengthDelimitedFramer); object.raw is an enveloped body.
// Decodable kinds: Pod, Node, PodList, NodeList (core/v1) and Status. Messages are parsed on an
// arena per call, so unknown fields (managedFields, images, ...) are freed with it.
// Malformed input is a kInvalidArgument error naming what is wrong, never a crash and never an
// empty object. Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::shim::proto {

// kProtobufContentType: kube-apiserver's media type for protobuf.
inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";
// kProtobufMagic: the prefix of every enveloped protobuf body.
inline constexpr std::string_view kProtobufMagic{"k8s\0", 4};
// kMaxWatchFrame: frames beyond this are refused rather than buffered (upstream's decoder limit
// for one object is 16 MiB per etcd value; lists never come as frames).
inline constexpr uint32_t kMaxWatchFrame = 64u << 20;

// IsProtobufContentType: `content_type` (a Content-Type header, parameters allowed) names the
// Kubernetes protobuf media type.
bool IsProtobufContentType(std::string_view content_type);

// HasProtobufMagic: `body` starts with "k8s\0".
bool HasProtobufMagic(std::string_view body);

// DecodeObject decodes one enveloped object (Pod, Node or Status) into a JSON object with
// apiVersion and kind from the envelope, as a JSON body would carry.
Result<rapidjson::Document> DecodeObject(std::string_view body);

// ListMetaScan: a LIST page's kind and ListMeta, read without parsing its items.
struct ListMetaScan {
  std::string kind;
  std::string resource_version;
  std::string continue_token;
};
// ScanListMeta reads the envelope's kind and the list's metadata (field 1 of the list message)
// and skips the items (field 2) without parsing them (a walk over their tags), so the reflector can request the next page
// while workers decode this one. Errors: kInvalidArgument for a missing magic, a malformed
// envelope or ListMeta, or a body that is not a PodList/NodeList.
Result<ListMetaScan> ScanListMeta(std::string_view body);

// DecodedList: a LIST page in the JSON shape {"metadata": {...}, "items": [...]}.
struct DecodedList {
  rapidjson::Document body;
  std::string resource_version;
  std::string continue_token;
};
// DecodeList decodes an enveloped PodList or NodeList into one document (strings copied).
Result<DecodedList> DecodeList(std::string_view body);

// ListItemFn receives one list item as a JSON object (no apiVersion/kind, as in a JSON LIST). Its
// strings point into the parsed message and `alloc`'s memory is reused for the next item: both
// are valid only during the call (cache or copy the item before returning). It may edit the
// item, allocating from `alloc`. An error stops the list.
using ListItemFn = std::function<Status(rapidjson::Value& item, rapidjson::Document::AllocatorType& alloc)>;
// DecodeListItems decodes an enveloped PodList or NodeList item by item without building the
// page's document (the LIST path: each item is transformed and packed while its message lives).
// Returns the list's kind and metadata. Errors: as DecodeList, or the first error of `on_item`.
Result<ListMetaScan> DecodeListItems(std::string_view body, const ListItemFn& on_item);

// DecodedWatchEvent: a watch frame's type ("ADDED", ...) and its object as JSON.
struct DecodedWatchEvent {
  std::string type;
  rapidjson::Document object;
};
// DecodeWatchFrame decodes one frame's payload (the bytes after the length).
Result<DecodedWatchEvent> DecodeWatchFrame(std::string_view frame);

// StatusJson: an enveloped metav1.Status (the body of a protobuf error answer) as JSON text.
Result<std::string> StatusJson(std::string_view body);

// FrameReader splits a byte stream into length-delimited frames (4-byte big-endian length).
// Thread-compatible.
class FrameReader {
 public:
  explicit FrameReader(uint32_t max_frame = kMaxWatchFrame) : max_frame_(max_frame) {}
  // Feed appends `data` and calls `on_frame` for every complete frame; stops early (returning
  // false) when on_frame does. Errors: kInvalidArgument for a frame longer than max_frame.
  Result<bool> Feed(std::string_view data, const std::function<bool(std::string_view frame)>& on_frame);
  // Finish: the stream ended. Errors: kInvalidArgument when it ended inside a frame.
  Status Finish() const;

 private:
  uint32_t max_frame_;
  std::string buffer_;
  size_t start_ = 0;
};

}  // namespace berth::shim::proto
