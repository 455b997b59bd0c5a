// clientgo-shim/proto/protobuf_json.h
//
// ToJson: a parsed message of proto/k8s/ (Pod, Node, ListMeta, Status) as the JSON object Go's
// encoding/json would have written for the same Go struct, so the informer cache and every
// codec downstream see one shape whatever the wire format was:
//  - field names are the proto names (upstream's are the JSON names);
//  - zero scalars are dropped (omitempty) unless the field is a Go pointer
//    ((berth.kubeproto.keep_zero)), absent fields are absent, empty lists and maps are absent;
//    a non-pointer Go field without omitempty (ContainerStatus.restartCount) is absent when zero
//    where JSON writes 0: readers treat both alike;
//  - messages present on the wire are written even when empty (`resources: {}`, `emptyDir: {}`);
//  - Time is RFC 3339 in whole seconds, an empty Time (Go's zero time) is null; Quantity is its
//    string; IntOrString is a number or a string; map keys are sorted (as Go writes them);
//  - (berth.kubeproto.json_inline) fields are flattened into their parent (Volume.VolumeSource).
// The conversion is generated from proto/k8s/*.proto (gen_protobuf_json.py): one function per
// message reading the protoc classes through their typed accessors, no reflection.
// A field number the schema declares that arrived with another wire type (libprotobuf keeps it as
// an unknown field) is an error, never a silently missing field. Other unknown fields are
// ignored: they live in the message's arena and are freed with it.
// Pure functions; safe from any thread.
#pragma once

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "proto/k8s/core_v1.pb.h"
#include "proto/k8s/meta_v1.pb.h"

namespace berth::shim::proto {

// StringMode: kCopy copies every string into the allocator; kReference points the JSON strings at
// the message's own (NUL-terminated std::string) bytes, which is faster but leaves the JSON valid
// only while the message lives (the LIST path caches each item before its arena is freed).
enum class StringMode { kCopy, kReference };

// ToJson writes `message`'s fields into `out` (made an object). Member names point at static
// strings. Errors: kInvalidArgument for a declared field with the wrong wire type, a Quantity
// without its string, a Time outside RFC 3339's years, an IntOrString of unknown type.
Status ToJson(const k8s::io::api::core::v1::Pod& message, rapidjson::Value& out,
              rapidjson::Document::AllocatorType& alloc, StringMode mode = StringMode::kCopy);
Status ToJson(const k8s::io::api::core::v1::Node& message, rapidjson::Value& out,
              rapidjson::Document::AllocatorType& alloc, StringMode mode = StringMode::kCopy);
Status ToJson(const k8s::io::apimachinery::pkg::apis::meta::v1::ListMeta& message, rapidjson::Value& out,
              rapidjson::Document::AllocatorType& alloc, StringMode mode = StringMode::kCopy);
Status ToJson(const k8s::io::apimachinery::pkg::apis::meta::v1::Status& message, rapidjson::Value& out,
              rapidjson::Document::AllocatorType& alloc, StringMode mode = StringMode::kCopy);

}  // namespace berth::shim::proto
