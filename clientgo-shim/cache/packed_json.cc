// clientgo-shim/cache/packed_json.cc
//
// Packing a JSON value (packed_json.h): hashing it, interning its strings, sharing its subtrees.
// Reading is in packed_json_read.cc.
#include "clientgo-shim/cache/packed_json.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <span>

#include "clientgo-shim/cache/packed_json_internal.h"

namespace berth::shim {
namespace {

using enum packed_internal::Tag;
using packed_internal::Reader;

// Subtrees smaller than this are never shared: a reference (tag + id) would save too little.
constexpr size_t kMinSharedSubtree = 12;

void PutVarint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Keys whose values are (nearly) unique per object: interning them would only grow the pool.
bool IsUniqueValueKey(std::string_view key) {
  return key == "podIP" || key == "ip" || key == "containerID" || key == "resourceVersion";
}

// SamePacked: whether `packed` (one value, read from r) decodes to exactly `v`. Shared
// subtrees inside are followed. Malformed bytes compare unequal.
bool SamePacked(const rapidjson::Value& v, std::string_view packed, const InternPool::Batch& batch,
                int depth);

// Hashes: a hash of every string, key, object and array of one value, computed in one
// bottom-up pass before the pool's lock is taken. A subtree pooled once is indexed by its JSON's
// hash (its shape), so the next identical subtree (the containers of another pod of the same
// Deployment) is found before any of its strings is interned: interning dominates the cost of
// packing. The strings' hashes are the pool's own (TextHash), so interning does not hash again.
// Slots are in pre-order, the order Pack visits the value in: Pack reads them with a cursor
// (Next), and a container's slot says where its subtree ends (Skip). Values without strings or
// containers (numbers, booleans, null) have no slot. The buffer is the thread's, reused.
class Hashes {
 public:
  explicit Hashes(const rapidjson::Value& root) : slots_(Buffer()) {
    bool inline_string = false;
    Hash(root, {}, inline_string);
  }
  // Next: the hash of the next string or container in pre-order.
  uint64_t Next() { return slots_[next_++].hash; }
  // Container reads a container's slot: its shape, and where its subtree ends.
  uint64_t Container(size_t& end) {
    const Slot& slot = slots_[next_++];
    end = slot.end;
    return slot.hash;
  }
  void SkipTo(size_t end) { next_ = end; }
  // Skip passes over `v` (a value Pack leaves out).
  void Skip(const rapidjson::Value& v) {
    if (v.IsString()) {
      ++next_;
    } else if (v.IsObject() || v.IsArray()) {
      next_ = slots_[next_].end;
    }
  }

 private:
  struct Slot {
    uint64_t hash;
    size_t end;  // a container's: the slot after its subtree
  };
  static std::vector<Slot>& Buffer() {
    thread_local std::vector<Slot> buffer;
    return buffer;
  }
  static uint64_t Mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 12) + (h >> 4);
    return h * 0xff51afd7ed558ccdULL;
  }
  // Push appends a slot; the buffer only grows (kept by the thread), so this is a store.
  size_t Push(uint64_t hash) {
    if (size_ == slots_.size()) slots_.resize(slots_.size() * 2 + 256);
    slots_[size_] = {hash, 0};
    return size_++;
  }
  uint64_t Str(const rapidjson::Value& s) {
    return slots_[Push(TextHash{}(std::string_view(s.GetString(), s.GetStringLength())))].hash;
  }
  // Hash: `v`'s hash; sets `inline_string` when `v` holds a string Pack stores inline. Such a
  // subtree is never pooled (PackShared), so it gets no shape (no lookup), and an inline string
  // is never interned, so it is not hashed (its slot is read and ignored).
  uint64_t Hash(const rapidjson::Value& v, std::string_view parent_key, bool& inline_string) {
    switch (v.GetType()) {
      case rapidjson::kNullType: return 1;
      case rapidjson::kFalseType: return 2;
      case rapidjson::kTrueType: return 3;
      case rapidjson::kStringType:
        if (v.GetStringLength() > kMaxInternedLength || IsUniqueValueKey(parent_key)) {
          inline_string = true;
          Push(0);
          return 4;
        }
        return Mix(4, Str(v));
      case rapidjson::kNumberType: {
        if (v.IsInt64()) return Mix(5, static_cast<uint64_t>(v.GetInt64()));
        if (v.IsUint64()) return Mix(6, v.GetUint64());
        uint64_t bits;
        const double d = v.GetDouble();
        std::memcpy(&bits, &d, 8);
        return Mix(7, bits);
      }
      case rapidjson::kObjectType: {
        const size_t slot = Push(0);
        uint64_t h = Mix(8, v.MemberCount());
        bool inner_inline = false;
        for (const auto& m : v.GetObject()) {
          h = Mix(h, Str(m.name));  // the key's slot before its value's: sequenced, not an argument
          h = Mix(h, Hash(m.value, std::string_view(m.name.GetString(), m.name.GetStringLength()), inner_inline));
        }
        slots_[slot] = {inner_inline ? 0 : h | 1, size_};  // shape 0 means "none"
        inline_string |= inner_inline;
        return h;
      }
      case rapidjson::kArrayType: {
        const size_t slot = Push(0);
        uint64_t h = Mix(9, v.Size());
        bool inner_inline = false;
        for (const auto& e : v.GetArray()) h = Mix(h, Hash(e, parent_key, inner_inline));
        slots_[slot] = {inner_inline ? 0 : h | 1, size_};
        inline_string |= inner_inline;
        return h;
      }
    }
    return 0;
  }

  std::vector<Slot>& slots_;
  size_t size_ = 0;
  size_t next_ = 0;
};

// Packer: one PackJson call. `ids_` collects the pool ids the bytes packed so far reference, in
// order, so a subtree handed to the pool knows its inner references without reading its bytes
// again.
class Packer {
 public:
  Packer(const rapidjson::Value& root, InternPool& pool, std::string& out)
      : hashes_(root), batch_(pool), out_(out), ids_(IdBuffer()) {
    ids_.clear();
  }
  Hashes& hashes() { return hashes_; }

  uint32_t InternKey(const rapidjson::Value& name) {
    const uint32_t id = batch_.Intern(std::string_view(name.GetString(), name.GetStringLength()), hashes_.Next());
    ids_.push_back(id);
    return id;
  }
  void Key(const rapidjson::Value& name) { PutVarint(InternKey(name), out_); }
  void Put(uint8_t tag) { out_.push_back(static_cast<char>(tag)); }
  void PutCount(uint64_t n) { PutVarint(n, out_); }

  // Pack appends the encoding of v; returns whether it stored a string inline (a sign the
  // subtree is unique to this object, so not worth sharing).
  bool Pack(const rapidjson::Value& v, std::string_view parent_key, int depth) {
    switch (v.GetType()) {
      case rapidjson::kNullType: out_.push_back(kNull); return false;
      case rapidjson::kFalseType: out_.push_back(kFalse); return false;
      case rapidjson::kTrueType: out_.push_back(kTrue); return false;
      case rapidjson::kNumberType:
        if (v.IsInt64()) {
          int64_t i = v.GetInt64();
          out_.push_back(kInt);
          PutVarint((static_cast<uint64_t>(i) << 1) ^ static_cast<uint64_t>(i >> 63), out_);
        } else if (v.IsUint64()) {
          out_.push_back(kUint);
          PutVarint(v.GetUint64(), out_);
        } else {
          double d = v.GetDouble();
          char raw[8];
          std::memcpy(raw, &d, 8);
          out_.push_back(kDouble);
          out_.append(raw, 8);
        }
        return false;
      case rapidjson::kStringType: {
        std::string_view s(v.GetString(), v.GetStringLength());
        const uint64_t hash = hashes_.Next();
        if (s.size() > kMaxInternedLength || IsUniqueValueKey(parent_key)) {
          out_.push_back(kStr);
          PutVarint(s.size(), out_);
          out_.append(s);
          return true;
        }
        const uint32_t id = batch_.Intern(s, hash);
        ids_.push_back(id);
        out_.push_back(kRef);
        PutVarint(id, out_);
        return false;
      }
      case rapidjson::kObjectType:
      case rapidjson::kArrayType:
        return PackShared(v, parent_key, depth);
    }
    return false;
  }

 private:
  static std::vector<uint32_t>& IdBuffer() {
    thread_local std::vector<uint32_t> buffer;
    return buffer;
  }
  void PutSub(uint32_t id, size_t ids_start) {
    ids_.resize(ids_start);
    ids_.push_back(id);
    out_.push_back(kSub);
    PutVarint(id, out_);
  }

  // PackShared packs an object or array and, when it holds no inline string and is big enough,
  // replaces it with a reference to a pooled copy (see InternSubtree). It packs straight into
  // `out` and cuts the bytes back when they are shared: no buffer per subtree.
  bool PackShared(const rapidjson::Value& v, std::string_view parent_key, int depth) {
    size_t end = 0;
    const uint64_t container_shape = hashes_.Container(end);
    const uint64_t shape = depth > 0 ? container_shape : 0;
    const size_t ids_start = ids_.size();
    if (shape != 0) {
      if (auto id = batch_.FindShape(shape); id && SamePacked(v, batch_.Text(*id), batch_, 0)) {
        batch_.AddRef(*id);
        hashes_.SkipTo(end);
        PutSub(*id, ids_start);
        return false;
      }
    }
    const size_t start = out_.size();
    bool has_inline = false;
    if (v.IsObject()) {
      out_.push_back(kObject);
      PutVarint(v.MemberCount(), out_);
      for (const auto& m : v.GetObject()) {
        Key(m.name);
        has_inline |= Pack(m.value, std::string_view(m.name.GetString(), m.name.GetStringLength()), depth + 1);
      }
    } else {
      out_.push_back(kArray);
      PutVarint(v.Size(), out_);
      for (const auto& e : v.GetArray()) has_inline |= Pack(e, parent_key, depth + 1);
    }
    if (!has_inline && depth > 0 && out_.size() - start >= kMinSharedSubtree) {
      const std::string_view sub(out_.data() + start, out_.size() - start);
      const std::span<const uint32_t> inner(ids_.data() + ids_start, ids_.size() - ids_start);
      if (auto id = batch_.InternSubtree(sub, inner)) {  // copies `sub` before it is cut
        if (shape != 0) batch_.IndexShape(*id, shape);
        out_.resize(start);
        PutSub(*id, ids_start);
        return false;
      }
    }
    return has_inline;
  }

  Hashes hashes_;  // before the lock (batch_): this part runs in parallel
  InternPool::Batch batch_;
  std::string& out_;
  std::vector<uint32_t>& ids_;
};

bool SameValue(const rapidjson::Value& v, Reader& r, const InternPool::Batch& batch, int depth) {
  if (depth > 200) return false;
  uint8_t tag;
  uint64_t n;
  std::string_view s;
  if (!r.Byte(tag)) return false;
  switch (tag) {
    case kNull: return v.IsNull();
    case kFalse: return v.IsFalse();
    case kTrue: return v.IsTrue();
    // Pack's number choice: Int64 first, then Uint64, else double.
    case kInt:
      return r.Varint(n) && v.IsInt64() &&
             v.GetInt64() == static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
    case kUint: return r.Varint(n) && !v.IsInt64() && v.IsUint64() && v.GetUint64() == n;
    case kDouble: {
      if (!r.Bytes(8, s) || !v.IsNumber() || v.IsInt64() || v.IsUint64()) return false;
      const double d = v.GetDouble();
      return std::memcmp(&d, s.data(), 8) == 0;
    }
    case kStr:
      return r.Varint(n) && r.Bytes(n, s) && v.IsString() &&
             s == std::string_view(v.GetString(), v.GetStringLength());
    case kRef:
      return r.Varint(n) && v.IsString() &&
             SameText(batch.Text(static_cast<uint32_t>(n)), std::string_view(v.GetString(), v.GetStringLength()));
    case kSub:
      return r.Varint(n) && SamePacked(v, batch.Text(static_cast<uint32_t>(n)), batch, depth + 1);
    case kObject: {
      if (!r.Varint(n) || !v.IsObject() || v.MemberCount() != n) return false;
      for (const auto& m : v.GetObject()) {
        uint64_t key;
        if (!r.Varint(key) ||
            !SameText(batch.Text(static_cast<uint32_t>(key)), std::string_view(m.name.GetString(), m.name.GetStringLength()))) {
          return false;
        }
        if (!SameValue(m.value, r, batch, depth + 1)) return false;
      }
      return true;
    }
    case kArray: {
      if (!r.Varint(n) || !v.IsArray() || v.Size() != n) return false;
      for (const auto& e : v.GetArray()) {
        if (!SameValue(e, r, batch, depth + 1)) return false;
      }
      return true;
    }
    default: return false;
  }
}

bool SamePacked(const rapidjson::Value& v, std::string_view packed, const InternPool::Batch& batch,
                int depth) {
  Reader r{packed};
  return SameValue(v, r, batch, depth) && r.pos == packed.size();
}
}  // namespace

void PackJson(const rapidjson::Value& value, InternPool& pool, std::string& out,
              std::initializer_list<std::string_view> skip_metadata) {
  Packer packer(value, pool, out);
  if (skip_metadata.size() == 0 || !value.IsObject()) {
    packer.Pack(value, {}, 0);
    return;
  }
  auto skipped = [&](const rapidjson::Value& name) {
    std::string_view k(name.GetString(), name.GetStringLength());
    for (auto s : skip_metadata) {
      if (k == s) return true;
    }
    return false;
  };
  Hashes& hashes = packer.hashes();
  size_t end = 0;
  hashes.Container(end);  // the root's
  packer.Put(kObject);
  packer.PutCount(value.MemberCount());
  for (const auto& m : value.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    packer.Key(m.name);
    if (key != "metadata" || !m.value.IsObject()) {
      packer.Pack(m.value, key, 1);
      continue;
    }
    hashes.Container(end);  // metadata's
    size_t kept = 0;
    for (const auto& mm : m.value.GetObject()) kept += skipped(mm.name) ? 0 : 1;
    packer.Put(kObject);
    packer.PutCount(kept);
    for (const auto& mm : m.value.GetObject()) {
      if (skipped(mm.name)) {
        hashes.Next();  // its key
        hashes.Skip(mm.value);
        continue;
      }
      packer.Key(mm.name);
      packer.Pack(mm.value, std::string_view(mm.name.GetString(), mm.name.GetStringLength()), 2);
    }
  }
}
}  // namespace berth::shim
