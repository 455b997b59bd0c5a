#include "clientgo-shim/cache/packed_json.h"

#include <cstring>

namespace berth::shim {
namespace {

enum Tag : uint8_t {
  kNull = 0, kFalse, kTrue, kInt, kUint, kDouble, kStr, kRef, kObject, kArray,
};

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

void Pack(const rapidjson::Value& v, std::string_view parent_key, InternPool::Batch& batch,
          std::string& out) {
  switch (v.GetType()) {
    case rapidjson::kNullType: out.push_back(kNull); return;
    case rapidjson::kFalseType: out.push_back(kFalse); return;
    case rapidjson::kTrueType: out.push_back(kTrue); return;
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
      return;
    case rapidjson::kStringType: {
      std::string_view s(v.GetString(), v.GetStringLength());
      if (s.size() > kMaxInternedLength || IsUniqueValueKey(parent_key)) {
        out.push_back(kStr);
        PutVarint(s.size(), out);
        out.append(s);
      } else {
        out.push_back(kRef);
        PutVarint(batch.Intern(s), out);
      }
      return;
    }
    case rapidjson::kObjectType:
      out.push_back(kObject);
      PutVarint(v.MemberCount(), out);
      for (const auto& m : v.GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        PutVarint(batch.Intern(key), out);
        Pack(m.value, key, batch, out);
      }
      return;
    case rapidjson::kArrayType:
      out.push_back(kArray);
      PutVarint(v.Size(), out);
      for (const auto& e : v.GetArray()) Pack(e, parent_key, batch, out);
      return;
  }
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

}  // namespace

void PackJson(const rapidjson::Value& value, InternPool& pool, std::string& out,
              std::initializer_list<std::string_view> skip_metadata) {
  InternPool::Batch batch(pool);
  if (skip_metadata.size() == 0 || !value.IsObject()) {
    Pack(value, {}, batch, out);
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
      Pack(m.value, key, batch, out);
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
      Pack(mm.value, mkey, batch, out);
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

std::optional<std::string> FindPackedString(std::string_view packed, const InternPool& pool,
                                            std::initializer_list<std::string_view> path) {
  InternPool::ReadLock lock(pool);
  Reader r{packed};
  for (std::string_view step : path) {
    uint8_t tag;
    uint64_t n;
    if (!r.Byte(tag) || tag != kObject || !r.Varint(n)) return std::nullopt;
    bool found = false;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t key;
      if (!r.Varint(key)) return std::nullopt;
      if (lock.Lookup(static_cast<uint32_t>(key)) == step) {
        found = true;
        break;
      }
      if (!r.Skip(nullptr)) return std::nullopt;
    }
    if (!found) return std::nullopt;
  }
  uint8_t tag;
  uint64_t n;
  std::string_view s;
  if (!r.Byte(tag)) return std::nullopt;
  if (tag == kStr && r.Varint(n) && r.Bytes(n, s)) return std::string(s);
  if (tag == kRef && r.Varint(n)) return std::string(lock.Lookup(static_cast<uint32_t>(n)));
  return std::nullopt;
}

}  // namespace berth::shim
