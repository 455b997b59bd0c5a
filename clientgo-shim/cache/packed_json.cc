#include "clientgo-shim/cache/packed_json.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace berth::shim {
namespace {

enum Tag : uint8_t {
  kNull = 0, kFalse, kTrue, kInt, kUint, kDouble, kStr, kRef, kObject, kArray, kSub,
};

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

void CollectIds(std::string_view packed, std::vector<uint32_t>& ids);

// Shapes: a hash of every object and array of one value, computed in one bottom-up pass before
// the pool's lock is taken. A subtree pooled once is indexed by its JSON's hash, so the next
// identical subtree (the containers of another pod of the same Deployment) is found before
// any of its strings is interned: interning dominates the cost of packing.
class Shapes {
 public:
  explicit Shapes(const rapidjson::Value& root) {
    Hash(root);
    std::sort(shapes_.begin(), shapes_.end());
  }
  // Of returns the hash of `v` (an object or array inside the root), or 0.
  uint64_t Of(const rapidjson::Value& v) const {
    auto it = std::lower_bound(shapes_.begin(), shapes_.end(), std::make_pair(&v, uint64_t{0}));
    return it != shapes_.end() && it->first == &v ? it->second : 0;
  }

 private:
  static uint64_t Mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 12) + (h >> 4);
    return h * 0xff51afd7ed558ccdULL;
  }
  static uint64_t Str(const rapidjson::Value& s) {
    return std::hash<std::string_view>{}(std::string_view(s.GetString(), s.GetStringLength()));
  }
  uint64_t Hash(const rapidjson::Value& v) {
    switch (v.GetType()) {
      case rapidjson::kNullType: return 1;
      case rapidjson::kFalseType: return 2;
      case rapidjson::kTrueType: return 3;
      case rapidjson::kStringType: return Mix(4, Str(v));
      case rapidjson::kNumberType: {
        if (v.IsInt64()) return Mix(5, static_cast<uint64_t>(v.GetInt64()));
        if (v.IsUint64()) return Mix(6, v.GetUint64());
        uint64_t bits;
        const double d = v.GetDouble();
        std::memcpy(&bits, &d, 8);
        return Mix(7, bits);
      }
      case rapidjson::kObjectType: {
        uint64_t h = Mix(8, v.MemberCount());
        for (const auto& m : v.GetObject()) h = Mix(Mix(h, Str(m.name)), Hash(m.value));
        shapes_.emplace_back(&v, h | 1);  // 0 means "no shape"
        return h;
      }
      case rapidjson::kArrayType: {
        uint64_t h = Mix(9, v.Size());
        for (const auto& e : v.GetArray()) h = Mix(h, Hash(e));
        shapes_.emplace_back(&v, h | 1);
        return h;
      }
    }
    return 0;
  }

  std::vector<std::pair<const rapidjson::Value*, uint64_t>> shapes_;
};

// SamePacked: whether `packed` (one value, read from r) decodes to exactly `v`. Shared
// subtrees inside are followed. Malformed bytes compare unequal.
bool SamePacked(const rapidjson::Value& v, std::string_view packed, const InternPool::Batch& batch,
                int depth);

// Pack appends the encoding of v; returns whether it stored a string inline (a sign the subtree
// is unique to this object, so not worth sharing).
bool Pack(const rapidjson::Value& v, std::string_view parent_key, InternPool::Batch& batch,
          const Shapes& shapes, std::string& out, int depth);

// PackShared packs an object or array and, when it holds no inline string and is big enough,
// replaces it with a reference to a pooled copy (see InternSubtree). It packs straight into
// `out` and cuts the bytes back when they are shared: no buffer per subtree.
bool PackShared(const rapidjson::Value& v, std::string_view parent_key, InternPool::Batch& batch,
                const Shapes& shapes, std::string& out, int depth) {
  const uint64_t shape = depth > 0 ? shapes.Of(v) : 0;
  if (shape != 0) {
    if (auto id = batch.FindShape(shape); id && SamePacked(v, batch.Text(*id), batch, 0)) {
      batch.AddRef(*id);
      out.push_back(kSub);
      PutVarint(*id, out);
      return false;
    }
  }
  const size_t start = out.size();
  bool has_inline = false;
  if (v.IsObject()) {
    out.push_back(kObject);
    PutVarint(v.MemberCount(), out);
    for (const auto& m : v.GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      PutVarint(batch.Intern(key), out);
      has_inline |= Pack(m.value, key, batch, shapes, out, depth + 1);
    }
  } else {
    out.push_back(kArray);
    PutVarint(v.Size(), out);
    for (const auto& e : v.GetArray()) has_inline |= Pack(e, parent_key, batch, shapes, out, depth + 1);
  }
  if (!has_inline && depth > 0 && out.size() - start >= kMinSharedSubtree) {
    const std::string_view sub(out.data() + start, out.size() - start);
    thread_local std::vector<uint32_t> inner;
    inner.clear();
    CollectIds(sub, inner);
    if (auto id = batch.InternSubtree(sub, inner)) {  // copies `sub` before it is cut
      if (shape != 0) batch.IndexShape(*id, shape);
      out.resize(start);
      out.push_back(kSub);
      PutVarint(*id, out);
      return false;
    }
  }
  return has_inline;
}

bool Pack(const rapidjson::Value& v, std::string_view parent_key, InternPool::Batch& batch,
          const Shapes& shapes, std::string& out, int depth) {
  switch (v.GetType()) {
    case rapidjson::kNullType: out.push_back(kNull); return false;
    case rapidjson::kFalseType: out.push_back(kFalse); return false;
    case rapidjson::kTrueType: out.push_back(kTrue); return false;
    case rapidjson::kNumberType:
      if (v.IsInt64()) {
        int64_t i = v.GetInt64();
        out.push_back(kInt);
        PutVarint((static_cast<uint64_t>(i) << 1) ^ static_cast<uint64_t>(i >> 63), out);
      } else if (v.IsUint64()) {
        out.push_back(kUint);
        PutVarint(v.GetUint64(), out);
      } else {
        double d = v.GetDouble();
        char raw[8];
        std::memcpy(raw, &d, 8);
        out.push_back(kDouble);
        out.append(raw, 8);
      }
      return false;
    case rapidjson::kStringType: {
      std::string_view s(v.GetString(), v.GetStringLength());
      if (s.size() > kMaxInternedLength || IsUniqueValueKey(parent_key)) {
        out.push_back(kStr);
        PutVarint(s.size(), out);
        out.append(s);
        return true;
      }
      out.push_back(kRef);
      PutVarint(batch.Intern(s), out);
      return false;
    }
    case rapidjson::kObjectType:
    case rapidjson::kArrayType:
      return PackShared(v, parent_key, batch, shapes, out, depth);
  }
  return false;
}

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

bool Unpack(Reader& r, const InternPool::ReadLock& lock, rapidjson::Value& out,
            rapidjson::Document::AllocatorType& alloc, int depth) {
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
      out.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
      return true;
    case kRef:
      if (!r.Varint(n)) return false;
      s = lock.Lookup(static_cast<uint32_t>(n));
      out.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
      return true;
    case kSub: {
      if (!r.Varint(n)) return false;
      Reader sub{lock.Lookup(static_cast<uint32_t>(n))};
      if (!Unpack(sub, lock, out, alloc, depth + 1) || sub.pos != sub.in.size()) return r.ok = false;
      return true;
    }
    case kObject:
      if (!r.Varint(n)) return false;
      out.SetObject();
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t key;
        if (!r.Varint(key)) return false;
        std::string_view k = lock.Lookup(static_cast<uint32_t>(key));
        rapidjson::Value name(k.data(), static_cast<rapidjson::SizeType>(k.size()), alloc);
        rapidjson::Value value;
        if (!Unpack(r, lock, value, alloc, depth + 1)) return false;
        out.AddMember(name, value, alloc);
      }
      return true;
    case kArray:
      if (!r.Varint(n)) return false;
      out.SetArray();
      for (uint64_t i = 0; i < n; ++i) {
        rapidjson::Value value;
        if (!Unpack(r, lock, value, alloc, depth + 1)) return false;
        out.PushBack(value, alloc);
      }
      return true;
    default: return r.ok = false;
  }
}

void CollectIds(std::string_view packed, std::vector<uint32_t>& ids) {
  Reader r{packed};
  r.Skip(&ids);
}

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
             batch.Text(static_cast<uint32_t>(n)) == std::string_view(v.GetString(), v.GetStringLength());
    case kSub:
      return r.Varint(n) && SamePacked(v, batch.Text(static_cast<uint32_t>(n)), batch, depth + 1);
    case kObject: {
      if (!r.Varint(n) || !v.IsObject() || v.MemberCount() != n) return false;
      for (const auto& m : v.GetObject()) {
        uint64_t key;
        if (!r.Varint(key) || batch.Text(static_cast<uint32_t>(key)) !=
                                  std::string_view(m.name.GetString(), m.name.GetStringLength())) {
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
  const Shapes shapes(value);  // before the lock: this part runs in parallel
  InternPool::Batch batch(pool);
  if (skip_metadata.size() == 0 || !value.IsObject()) {
    Pack(value, {}, batch, shapes, out, 0);
    return;
  }
  auto skipped = [&](const rapidjson::Value& name) {
    std::string_view k(name.GetString(), name.GetStringLength());
    for (auto s : skip_metadata) {
      if (k == s) return true;
    }
    return false;
  };
  out.push_back(kObject);
  PutVarint(value.MemberCount(), out);
  for (const auto& m : value.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    PutVarint(batch.Intern(key), out);
    if (key != "metadata" || !m.value.IsObject()) {
      Pack(m.value, key, batch, shapes, out, 1);
      continue;
    }
    size_t kept = 0;
    for (const auto& mm : m.value.GetObject()) kept += skipped(mm.name) ? 0 : 1;
    out.push_back(kObject);
    PutVarint(kept, out);
    for (const auto& mm : m.value.GetObject()) {
      if (skipped(mm.name)) continue;
      std::string_view mkey(mm.name.GetString(), mm.name.GetStringLength());
      PutVarint(batch.Intern(mkey), out);
      Pack(mm.value, mkey, batch, shapes, out, 2);
    }
  }
}

Status UnpackJson(std::string_view packed, const InternPool& pool, rapidjson::Value& out,
                  rapidjson::Document::AllocatorType& alloc) {
  InternPool::ReadLock lock(pool);
  Reader r{packed};
  if (!Unpack(r, lock, out, alloc, 0) || r.pos != packed.size()) {
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
  if (!SeekPath(r, lock, path) || !Unpack(r, lock, out, alloc, 0)) {
    out.SetNull();
    return false;
  }
  return true;
}

}  // namespace berth::shim
