// clientgo-shim/proto/protobuf_json_support.h
//
// What the generated converter (protobuf_json_gen.cc, from proto/k8s/gen_protobuf_json.py) calls:
// string and key values, the special messages (Time, Quantity, IntOrString), the wrong-wire-type
// check on unknown fields, and sorted map entries. Internal to clientgo-shim/proto.
#pragma once

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <vector>

#include <google/protobuf/unknown_field_set.h>
#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/proto/protobuf_json.h"
#include "proto/k8s/intstr.pb.h"
#include "proto/k8s/map_entries.pb.h"
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

// kEntryFields: the fields of map_entries.proto's StringEntry and QuantityEntry.
inline constexpr DeclaredField kEntryFields[] = {{1, "key"}, {2, "value"}};

// SortedEntries: a map's entries (map_entries.proto: upstream's map fields are repeated entry
// messages here) by key, as Go writes map keys and as a map parse would leave them: of entries
// with equal keys the last on the wire wins. Up to kInline entries (a pod's labels, annotations,
// limits and requests) sit in the object itself: no allocation per map per object.
template <class RepeatedT>
class SortedEntries {
 public:
  using Entry = const typename RepeatedT::value_type*;
  explicit SortedEntries(const RepeatedT& entries) {
    const size_t n = static_cast<size_t>(entries.size());
    Entry* out = inline_.data();
    if (n > kInline) {
      heap_.resize(n);
      out = heap_.data();
    }
    for (const auto& e : entries) out[size_++] = &e;
    std::stable_sort(out, out + size_, [](Entry a, Entry b) { return a->key() < b->key(); });
    size_t kept = 0;
    for (size_t i = 0; i < size_; ++i) {
      if (i + 1 < size_ && out[i + 1]->key() == out[i]->key()) continue;  // a later one wins
      out[kept++] = out[i];
    }
    size_ = kept;
    begin_ = out;
  }
  SortedEntries(const SortedEntries&) = delete;
  SortedEntries& operator=(const SortedEntries&) = delete;
  const Entry* begin() const { return begin_; }
  const Entry* end() const { return begin_ + size_; }

 private:
  static constexpr size_t kInline = 16;
  std::array<Entry, kInline> inline_;
  std::vector<Entry> heap_;
  const Entry* begin_ = nullptr;
  size_t size_ = 0;
};

}  // namespace berth::shim::proto
