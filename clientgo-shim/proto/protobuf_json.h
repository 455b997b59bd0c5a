// clientgo-shim/proto/protobuf_json.h
//
// ToJson: a parsed message of proto/k8s/ (Pod, Node, Status, ...) as the JSON object Go's
// encoding/json would have written for the same Go struct, so the informer cache and every
// codec downstream see one shape whatever the wire format was:
//  - field names are the proto names (upstream's are the JSON names);
//  - zero scalars are dropped (omitempty) unless the field is a Go pointer
//    ((berth.kubeproto.keep_zero)), absent fields are absent, empty lists and maps are absent;
//  - messages present on the wire are written even when empty (`resources: {}`, `emptyDir: {}`);
//  - Time is RFC 3339 in whole seconds, an empty Time (Go's zero time) is null; Quantity is its
//    string; IntOrString is a number or a string; map keys are sorted (as Go writes them);
//  - (berth.kubeproto.json_inline) fields are flattened into their parent (Volume.VolumeSource).
// A field number the schema declares that arrived with another wire type (libprotobuf keeps it as
// an unknown field) is an error, never a silently missing field. Other unknown fields are
// ignored: they live in the message's arena and are freed with it.
// Pure functions; safe from any thread.
#pragma once

#include <google/protobuf/message.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::shim::proto {

// ToJson writes `message`'s fields into `out` (made an object). Strings are copied into `alloc`;
// member names point at the descriptors' static names.
// Errors: kInvalidArgument for a declared field with the wrong wire type, a Quantity without its
// string, a Time outside RFC 3339's years, an IntOrString of unknown type.
Status ToJson(const google::protobuf::Message& message, rapidjson::Value& out,
              rapidjson::Document::AllocatorType& alloc);

}  // namespace berth::shim::proto
