// e2e/kubesim/protobuf/decoder.h
//
// Decoding of Kubernetes protobuf request bodies into the JSON the rest of kubesim works on.
// A body is the 4-byte magic "k8s\0" followed by a runtime.Unknown {1 typeMeta {1 apiVersion,
// 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}; `raw` is the object's own message, decoded
// with the field tables of message_tables.h. Zero scalars of non-pointer Go fields are dropped,
// as `omitempty` drops them in JSON; unknown fields are skipped, as the apiserver's decoder does.
#pragma once

#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::protobuf {

// The prefix of every Kubernetes protobuf encoding.
inline constexpr std::string_view kMagic{"k8s\0", 4};

// The media type of Kubernetes protobuf bodies.
inline constexpr std::string_view kProtobufMediaType = "application/vnd.kubernetes.protobuf";

// DecodeMessage decodes `bytes` as the message kMessages[message] into its JSON form (an object,
// or a string/number/null for the special messages) allocated from `alloc`.
// Errors: kInvalidArgument for malformed input (truncation, wrong wire types, bad UTF-8, nesting
// deeper than 64 messages).
Result<rapidjson::Value> DecodeMessage(int message, std::string_view bytes,
                                       rapidjson::Document::AllocatorType& alloc);

// DecodeKubernetesProtobuf decodes a whole request body into a JSON object with apiVersion and
// kind set from the envelope.
// Errors: kInvalidArgument for a malformed body (missing magic, bad envelope, bad object);
// kNotFound for a kind kubesim has no protobuf table for (the caller answers 415).
Result<rapidjson::Document> DecodeKubernetesProtobuf(std::string_view body);

}  // namespace berth::kubesim::protobuf
