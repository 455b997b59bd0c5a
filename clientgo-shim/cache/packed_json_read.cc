// clientgo-shim/cache/packed_json_read.cc
//
// Reading packed values (packed_json.h): whole, through a filter, or one path; and the pool ids
// a value references.
#include <algorithm>
#include <cstring>

#include "clientgo-shim/cache/packed_json.h"
#include "clientgo-shim/cache/packed_json_internal.h"

namespace berth::shim {
namespace {

using enum packed_internal::Tag;
using packed_internal::Reader;

// SetStringValue copies `s`; an empty view may carry a null data pointer (the end of a truncated
// input, an unknown pool id), which memcpy must never see.
void SetStringValue(rapidjson::Value& out, std::string_view s, rapidjson::Document::AllocatorType& alloc) {
  out.SetString(s.empty() ? "" : s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

// Decode carries what every step of one decode shares: the pool (under its read lock) and
// whether strings are copied or referenced (UnpackStrings).
struct Decode {
  const InternPool::ReadLock& lock;
  bool reference;
  std::string_view Lookup(uint64_t id) const { return lock.Lookup(static_cast<uint32_t>(id)); }
  void SetString(rapidjson::Value& out, std::string_view s, rapidjson::Document::AllocatorType& alloc) const {
    if (!reference) return SetStringValue(out, s, alloc);
    out.SetString(rapidjson::StringRef(s.empty() ? "" : s.data(), static_cast<rapidjson::SizeType>(s.size())));
  }
};

bool Unpack(Reader& r, const Decode& d, rapidjson::Value& out, rapidjson::Document::AllocatorType& alloc,
            int depth) {
  if (depth > 200) return r.ok = false;
  uint8_t tag;
  uint64_t n;
  std::string_view s;
  if (!r.Byte(tag)) return false;
  switch (tag) {
    case kNull: out.SetNull(); return true;
    case kFalse: out.SetBool(false); return true;
    case kTrue: out.SetBool(true); return true;
    case kInt:
      if (!r.Varint(n)) return false;
      out.SetInt64(static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1)));
      return true;
    case kUint:
      if (!r.Varint(n)) return false;
      out.SetUint64(n);
      return true;
    case kDouble: {
      if (!r.Bytes(8, s)) return false;
      double d;
      std::memcpy(&d, s.data(), 8);
      out.SetDouble(d);
      return true;
    }
    case kStr:
      if (!r.Varint(n) || !r.Bytes(n, s)) return false;
      d.SetString(out, s, alloc);
      return true;
    case kRef:
      if (!r.Varint(n)) return false;
      s = d.Lookup(n);
      d.SetString(out, s, alloc);
      return true;
    case kSub: {
      if (!r.Varint(n)) return false;
      Reader sub{d.Lookup(n)};
      if (!Unpack(sub, d, out, alloc, depth + 1) || sub.pos != sub.in.size()) return r.ok = false;
      return true;
    }
    case kObject:
      if (!r.Varint(n)) return false;
      out.SetObject();
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t key;
        if (!r.Varint(key)) return false;
        std::string_view k = d.Lookup(key);
        rapidjson::Value name;
        d.SetString(name, k, alloc);
        rapidjson::Value value;
        if (!Unpack(r, d, value, alloc, depth + 1)) return false;
        out.AddMember(name, value, alloc);
      }
      return true;
    case kArray:
      if (!r.Varint(n)) return false;
      out.SetArray();
      for (uint64_t i = 0; i < n; ++i) {
        rapidjson::Value value;
        if (!Unpack(r, d, value, alloc, depth + 1)) return false;
        out.PushBack(value, alloc);
      }
      return true;
    default: return r.ok = false;
  }
}

bool Listed(const std::vector<std::string_view>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

const PackedFilter* NestedFilter(const PackedFilter& filter, std::string_view name) {
  for (const auto& [member, nested] : filter.nested) {
    if (member == name) return nested;
  }
  return nullptr;
}

// UnpackThrough is Unpack with `filter` applied to an object, or to each element of an array;
// other values (and a null filter) decode whole.
bool UnpackThrough(Reader& r, const Decode& d, const PackedFilter* filter,
                   rapidjson::Value& out, rapidjson::Document::AllocatorType& alloc, int depth) {
  if (filter == nullptr) return Unpack(r, d, out, alloc, depth);
  if (depth > 200 || r.pos >= r.in.size()) return r.ok = false;
  const uint8_t tag = static_cast<uint8_t>(r.in[r.pos]);
  uint64_t n;
  switch (tag) {
    case kSub: {
      ++r.pos;
      if (!r.Varint(n)) return false;
      Reader sub{d.Lookup(n)};
      if (!UnpackThrough(sub, d, filter, out, alloc, depth + 1) || sub.pos != sub.in.size()) return r.ok = false;
      return true;
    }
    case kArray:
      ++r.pos;
      if (!r.Varint(n)) return false;
      out.SetArray();
      for (uint64_t i = 0; i < n; ++i) {
        rapidjson::Value value;
        if (!UnpackThrough(r, d, filter, value, alloc, depth + 1)) return false;
        out.PushBack(value, alloc);
      }
      return true;
    case kObject:
      ++r.pos;
      if (!r.Varint(n)) return false;
      out.SetObject();
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t key;
        if (!r.Varint(key)) return false;
        std::string_view k = d.Lookup(key);
        if (filter->keep.empty() ? Listed(filter->drop, k) : !Listed(filter->keep, k)) {
          if (!r.Skip(nullptr)) return false;
          continue;
        }
        rapidjson::Value name;
        d.SetString(name, k, alloc);
        rapidjson::Value value;
        if (!UnpackThrough(r, d, NestedFilter(*filter, k), value, alloc, depth + 1)) return false;
        out.AddMember(name, value, alloc);
      }
      return true;
    default:
      return Unpack(r, d, out, alloc, depth);
  }
}
}  // namespace

Status UnpackJson(std::string_view packed, const InternPool& pool, rapidjson::Value& out,
                  rapidjson::Document::AllocatorType& alloc) {
  InternPool::ReadLock lock(pool);
  Reader r{packed};
  if (!Unpack(r, Decode{lock, false}, out, alloc, 0) || r.pos != packed.size()) {
    out.SetNull();
    return MakeError(ErrorCode::kDecode,
                     "packed object is malformed at byte " + std::to_string(r.pos));
  }
  return {};
}

Status UnpackFiltered(std::string_view packed, const InternPool& pool, const PackedFilter& filter,
                      rapidjson::Value& out, rapidjson::Document::AllocatorType& alloc, UnpackStrings strings) {
  InternPool::ReadLock lock(pool);
  Reader r{packed};
  if (!UnpackThrough(r, Decode{lock, strings == UnpackStrings::kReference}, &filter, out, alloc, 0) ||
      r.pos != packed.size()) {
    out.SetNull();
    return MakeError(ErrorCode::kDecode,
                     "packed object is malformed at byte " + std::to_string(r.pos));
  }
  return {};
}

void CollectInternedIds(std::string_view packed, std::vector<uint32_t>& ids) {
  Reader r{packed};
  r.Skip(&ids);
}

namespace {

// NextTag reads a value's tag, following shared-subtree references into the pool.
bool NextTag(Reader& r, const InternPool::ReadLock& lock, uint8_t& tag) {
  for (int hops = 0; hops < 64; ++hops) {
    if (!r.Byte(tag)) return false;
    if (tag != kSub) return true;
    uint64_t id;
    if (!r.Varint(id)) return false;
    r = Reader{lock.Lookup(static_cast<uint32_t>(id))};
  }
  return false;
}

// SeekPath leaves `r` at the start of the value under `path` (object keys from the root);
// false when a step is missing or not an object.
bool SeekPath(Reader& r, const InternPool::ReadLock& lock, std::initializer_list<std::string_view> path) {
  for (std::string_view step : path) {
    uint8_t tag;
    uint64_t n;
    if (!NextTag(r, lock, tag) || tag != kObject || !r.Varint(n)) return false;
    bool found = false;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t key;
      if (!r.Varint(key)) return false;
      if (lock.Lookup(static_cast<uint32_t>(key)) == step) {
        found = true;
        break;
      }
      if (!r.Skip(nullptr)) return false;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> FindPackedString(std::string_view packed, const InternPool& pool,
                                            std::initializer_list<std::string_view> path) {
  InternPool::ReadLock lock(pool);
  Reader r{packed};
  if (!SeekPath(r, lock, path)) return std::nullopt;
  uint8_t tag;
  uint64_t n;
  std::string_view s;
  if (!NextTag(r, lock, tag)) return std::nullopt;
  if (tag == kStr && r.Varint(n) && r.Bytes(n, s)) return std::string(s);
  if (tag == kRef && r.Varint(n)) return std::string(lock.Lookup(static_cast<uint32_t>(n)));
  return std::nullopt;
}

bool FindPackedValue(std::string_view packed, const InternPool& pool,
                     std::initializer_list<std::string_view> path, rapidjson::Value& out,
                     rapidjson::Document::AllocatorType& alloc) {
  InternPool::ReadLock lock(pool);
  Reader r{packed};
  if (!SeekPath(r, lock, path) || !Unpack(r, Decode{lock, false}, out, alloc, 0)) {
    out.SetNull();
    return false;
  }
  return true;
}

}  // namespace berth::shim
