// clientgo-shim/cache/packed_json_internal.h
//
// What packing (packed_json.cc) and reading (packed_json_read.cc) share: the tags of the encoding
// described in packed_json.h, and a bounds-checked reader over packed bytes. Internal to cache/.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace berth::shim::packed_internal {

enum Tag : uint8_t {
  kNull = 0, kFalse, kTrue, kInt, kUint, kDouble, kStr, kRef, kObject, kArray, kSub,
};

// Reader walks packed bytes; every read is bounds-checked so malformed input fails cleanly.
struct Reader {
  std::string_view in;
  size_t pos = 0;
  bool ok = true;

  bool Byte(uint8_t& b) {
    if (pos >= in.size()) return ok = false;
    b = static_cast<uint8_t>(in[pos++]);
    return true;
  }
  bool Varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b;
      if (!Byte(b)) return false;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return ok = false;
  }
  bool Bytes(size_t n, std::string_view& s) {
    if (n > in.size() - pos) return ok = false;
    s = in.substr(pos, n);
    pos += n;
    return true;
  }
  // Skip one value; ids seen go to `ids` when given.
  bool Skip(std::vector<uint32_t>* ids, int depth = 0) {
    if (depth > 200) return ok = false;
    uint8_t tag;
    uint64_t n;
    std::string_view s;
    if (!Byte(tag)) return false;
    switch (tag) {
      case kNull: case kFalse: case kTrue: return true;
      case kInt: case kUint: return Varint(n);
      case kDouble: return Bytes(8, s);
      case kStr: return Varint(n) && Bytes(n, s);
      case kRef:
      case kSub:  // a shared subtree: the reference is ours, its content belongs to the pool
        if (!Varint(n)) return false;
        if (ids) ids->push_back(static_cast<uint32_t>(n));
        return true;
      case kObject:
        if (!Varint(n)) return false;
        for (uint64_t i = 0; i < n; ++i) {
          uint64_t key;
          if (!Varint(key)) return false;
          if (ids) ids->push_back(static_cast<uint32_t>(key));
          if (!Skip(ids, depth + 1)) return false;
        }
        return true;
      case kArray:
        if (!Varint(n)) return false;
        for (uint64_t i = 0; i < n; ++i) {
          if (!Skip(ids, depth + 1)) return false;
        }
        return true;
      default: return ok = false;
    }
  }
};

}  // namespace berth::shim::packed_internal
