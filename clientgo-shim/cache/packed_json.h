// clientgo-shim/cache/packed_json.h
//
// A compact binary form of a JSON value for the informer cache. Object keys and most strings
// become varint ids into an InternPool; numbers are varints; structure costs one tag byte plus
// a varint count. A typical Running pod packs to a fraction of its compact JSON size.
// Encoding (one tag byte, then):
//   kNull/kFalse/kTrue: nothing     kInt: zigzag varint        kUint: varint (> INT64_MAX)
//   kDouble: 8 raw bytes            kStr: varint length+bytes  kRef: varint pool id
//   kObject: varint n, n×(varint key id, value)                kArray: varint n, n×value
//   kSub: varint pool id of a shared subtree (an object or array, itself packed)
// Strings are interned unless they look unique (longer than kMaxInternedLength, or under a key
// such as "podIP" or "containerID" whose values rarely repeat), which keeps the pool from
// growing with per-object data. Whole objects and arrays are shared too (the containers of a
// Deployment's pods, their tolerations, the conditions of pods started in the same second)
// once the same bytes have been seen twice, unless they hold an inline (unique-looking) string.
// Pure functions; the pool's own locking makes them safe from any thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/cache/intern_pool.h"

namespace berth::shim {

// Strings longer than this are stored inline: long values are almost never shared.
inline constexpr size_t kMaxInternedLength = 96;

// PackJson encodes `value` into `out` (appended), interning through `pool`. When `value` is an
// object, members of its "metadata" object named in `skip_metadata` are left out (the cache
// keeps those fields unpacked).
void PackJson(const rapidjson::Value& value, InternPool& pool, std::string& out,
              std::initializer_list<std::string_view> skip_metadata = {});

// UnpackJson decodes bytes produced by PackJson into `out` (using out's allocator).
// Errors: kDecode when the bytes are truncated or carry an unknown tag.
Status UnpackJson(std::string_view packed, const InternPool& pool, rapidjson::Value& out,
                  rapidjson::Document::AllocatorType& alloc);

// CollectInternedIds appends every pool id referenced by `packed` (keys and values), so the
// owner can Release them. Malformed bytes stop the walk (no crash).
void CollectInternedIds(std::string_view packed, std::vector<uint32_t>& ids);

// FindPackedString follows object keys from the root and returns the string found there;
// nullopt when a step is missing, not an object, or the leaf is not a string. No decoding of
// the rest of the value.
std::optional<std::string> FindPackedString(std::string_view packed, const InternPool& pool,
                                            std::initializer_list<std::string_view> path);

// PackedFilter says which members of an object to decode (UnpackFiltered): with `keep` set, only
// those; otherwise all but `drop`. A member named in `nested` is decoded through that filter; a
// filter given an array applies to each element, and to nothing else (a string stays whole). For a
// reader that needs a few fields of a large object, leaving out whole subtrees (a pod's volumes,
// its containers' env and probes) instead of decoding and then ignoring them.
struct PackedFilter {
  std::vector<std::string_view> keep = {};
  std::vector<std::string_view> drop = {};
  std::vector<std::pair<std::string_view, const PackedFilter*>> nested = {};
};

// UnpackStrings: kCopy copies every key and string into the allocator; kReference points them at
// the packed bytes and the pool's entries, which stay put while the object holding them lives:
// no copy, but the value is valid only while that object is held (a DOM read and dropped in one
// scope, as the scheduler reads 150,000 pods at a cold start).
enum class UnpackStrings { kCopy, kReference };

// UnpackFiltered is UnpackJson through `filter`. Errors: kDecode as UnpackJson.
Status UnpackFiltered(std::string_view packed, const InternPool& pool, const PackedFilter& filter,
                      rapidjson::Value& out, rapidjson::Document::AllocatorType& alloc,
                      UnpackStrings strings = UnpackStrings::kCopy);

// FindPackedValue decodes only the value under `path` (any type) into `out`, using `alloc`.
// Returns false (and leaves `out` null) when a step is missing or the bytes are malformed.
bool FindPackedValue(std::string_view packed, const InternPool& pool,
                     std::initializer_list<std::string_view> path, rapidjson::Value& out,
                     rapidjson::Document::AllocatorType& alloc);

}  // namespace berth::shim
