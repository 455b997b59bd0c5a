// clientgo-shim/proto/protobuf_json_support.h
//
// What the generated converter (protobuf_json_gen.cc, from proto/k8s/gen_protobuf_json.py) calls:
// string and key values, the special messages (Time, Quantity, IntOrString), the wrong-wire-type
// check on unknown fields, and sorted map entries. Internal to clientgo-shim/proto.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <google/protobuf/unknown_field_set.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/proto/protobuf_json.h"
#include "proto/k8s/intstr.pb.h"
#include "proto/k8s/resource.pb.h"

namespace berth::shim::proto {

struct JsonContext {
  rapidjson::Document::AllocatorType& alloc;
  bool copy;  // StringMode::kCopy
};

// DeclaredField: a field number a message declares, with its name (for errors).
struct DeclaredField {
  int number;
  const char* name;
};

inline rapidjson::Value Str(const std::string& s, JsonContext& c) {
  const auto n = static_cast<rapidjson::SizeType>(s.size());
  // std::string's bytes are NUL-terminated, as readers of GetString() expect.
  return c.copy ? rapidjson::Value(s.data(), n, c.alloc) : rapidjson::Value(rapidjson::StringRef(s.data(), n));
}

template <size_t N>
rapidjson::Value Key(const char (&name)[N]) {
  return rapidjson::Value(rapidjson::StringRef(name, N - 1));
}

// CheckUnknown: libprotobuf keeps a declared field sent with another wire type as an unknown
// field; that is an error. Fields the schema does not declare are skipped.
Status CheckUnknownSlow(const google::protobuf::UnknownFieldSet& unknown, std::span<const DeclaredField> declared,
                        const char* message);
inline Status CheckUnknown(const google::protobuf::UnknownFieldSet& unknown,
                           std::span<const DeclaredField> declared, const char* message) {
  if (unknown.empty()) return {};
  return CheckUnknownSlow(unknown, declared, message);
}

Result<rapidjson::Value> TimeValue(const k8s::io::apimachinery::pkg::apis::meta::v1::Time& time, JsonContext& c);
Result<rapidjson::Value> QuantityValue(const k8s::io::apimachinery::pkg::api::resource::Quantity& q,
                                       JsonContext& c);
Result<rapidjson::Value> IntOrStringValue(const k8s::io::apimachinery::pkg::util::intstr::IntOrString& v,
                                          JsonContext& c);

// SortedEntries: a map's entries by key (Go writes map keys sorted; so do we, and the cached form
// does not depend on hash order).
template <class MapT>
std::vector<const typename MapT::value_type*> SortedEntries(const MapT& map) {
  std::vector<const typename MapT::value_type*> entries;
  entries.reserve(map.size());
  for (const auto& e : map) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  return entries;
}

}  // namespace berth::shim::proto
