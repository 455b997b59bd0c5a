// e2e/kubesim/protobuf/encoder.h
//
// Encoding of the JSON objects kubesim stores into Kubernetes protobuf, the table-driven
// counterpart of decoder.h (same message_tables.h, same special messages), for responses to
// clients that ask for `application/vnd.kubernetes.protobuf`. Bytes are written with wire_writer.h.
//
// Wire layout (kube-apiserver's, apimachinery runtime/serializer/protobuf):
//
//   object body  = "k8s\0" Unknown
//   Unknown      = {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding "", 4 contentType ""}
//                  (3 and 4 are written empty, as gogo marshals non-pointer strings)
//   raw          = the object's own message (k8s.io.api.core.v1.Pod, ...), no TypeMeta inside;
//                  List kinds: {1 metadata ListMeta {1 selfLink, 2 resourceVersion, 3 continue,
//                  4 remainingItemCount}, 2 repeated items (the item message, no TypeMeta)}
//
//   watch stream (Content-Type "application/vnd.kubernetes.protobuf;stream=watch"), per event:
//     frame      = uint32 big-endian length of `event` | event
//     event      = meta.v1.WatchEvent {1 type "ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK"|"ERROR",
//                                      2 object RawExtension {1 raw = object body ("k8s\0" Unknown)}}
//     The event itself carries NO magic and NO Unknown envelope: upstream's StreamSerializer for
//     protobuf is the raw serializer; only the embedded object goes through the enveloping one.
//     ERROR events embed a meta.v1.Status (apiVersion "v1", kind "Status").
//
// Fields are written in field-number order, only when the JSON has them (a JSON null is absent).
// Repeated scalars are unpacked (proto2, as k8s.io/api's generated.proto); map entries
// {1 key, 2 value} are written in sorted key order, as gogo does. Special messages:
//   Time / MicroTime  RFC 3339 string -> {1 seconds int64, 2 nanos int32} (both always written)
//   Quantity          string (or JSON number, formatted) -> {1 string}
//   IntOrString       number -> {1 type 0, 2 intVal, 3 ""}; string -> {1 type 1, 2 0, 3 strVal}
//   FieldsV1 / RawExtension  any JSON value -> {1 raw = its JSON text}
// JSON members with no field in the table are skipped (the Go struct would drop them too).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "e2e/kubesim/protobuf/wire_writer.h"

namespace berth::kubesim::protobuf {

// The Content-Type of a protobuf watch stream.
inline constexpr std::string_view kProtobufWatchMediaType = "application/vnd.kubernetes.protobuf;stream=watch";

// EncodeMessage appends the encoding of `value` as kMessages[message] to `out`.
// Errors: kInvalidArgument when a JSON value does not fit its field (a string where a number is
// due, an int32 out of range, a bad timestamp or base64, nesting deeper than 64 messages); the
// message names the field path.
Status EncodeMessage(int message, const rapidjson::Value& value, std::string& out);

// WrapUnknown returns "k8s\0" + runtime.Unknown carrying `raw` as `api_version`/`kind`.
std::string WrapUnknown(std::string_view api_version, std::string_view kind, std::string_view raw);

// EncodeKubernetesProtobuf encodes a whole object (its apiVersion and kind members pick the
// message) into a response body: magic + Unknown.
// Errors: kNotFound for a kind with no protobuf table; kInvalidArgument as EncodeMessage.
Result<std::string> EncodeKubernetesProtobuf(const rapidjson::Value& object);

// ListEncoder builds a List kind's body item by item, so a page of stored objects is encoded
// without first assembling the list's JSON.
class ListEncoder {
 public:
  // Errors: kNotFound when `list_kind` or its items have no protobuf table.
  static Result<ListEncoder> Create(std::string_view api_version, std::string_view list_kind);
  // SetMetadata writes the ListMeta (call once, before the items).
  void SetMetadata(std::string_view resource_version, std::string_view continue_token,
                   std::int64_t remaining_item_count);
  // AddItem encodes one item's JSON. Errors: as EncodeMessage.
  Status AddItem(const rapidjson::Value& item);
  // AddRaw adds an item already encoded as its message (EncodeMessage's output).
  void AddRaw(std::string_view message);
  // Finish returns the whole body: magic + Unknown.
  std::string Finish() const;

 private:
  ListEncoder(std::string api_version, std::string list_kind, int item_message)
      : api_version_(std::move(api_version)), list_kind_(std::move(list_kind)), item_message_(item_message) {}
  std::string api_version_, list_kind_;
  int item_message_;
  WireWriter raw_;
};

// WatchEventFrame returns one framed protobuf watch event: the 4-byte big-endian length and the
// WatchEvent {1 type, 2 object {1 raw = object_body}}; `object_body` is an EncodeKubernetesProtobuf
// result.
std::string WatchEventFrame(std::string_view event_type, std::string_view object_body);

}  // namespace berth::kubesim::protobuf
