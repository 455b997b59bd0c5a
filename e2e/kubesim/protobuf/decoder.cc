// e2e/kubesim/protobuf/decoder.cc
#include "e2e/kubesim/protobuf/decoder.h"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include "clientgo-shim/base/encoding.h"
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/protobuf/message_tables.h"
#include "e2e/kubesim/protobuf/wire_reader.h"

namespace berth::kubesim::protobuf {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// Objects nest far less deeply than this in every Kubernetes kind; the bound keeps hostile
// input from exhausting the stack.
constexpr int kMaxDepth = 64;
// Go's time.Time{} as Unix seconds: what a zero metav1.Time marshals to.
constexpr std::int64_t kGoZeroTimeSeconds = -62135596800;

std::unexpected<Error> Malformed(std::string what) {
  return MakeError(ErrorCode::kInvalidArgument, "malformed protobuf: " + std::move(what));
}

// ValidUtf8 checks the byte structure of UTF-8 (lead byte, continuation bytes), enough to keep
// invalid bytes out of the JSON kubesim writes.
bool ValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0) return false;
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

Value Str(std::string_view s, Alloc& a) { return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a); }

// FormatTime renders Unix seconds (+ nanos) as RFC 3339 in UTC, with microseconds when `micro`.
Result<std::string> FormatTime(std::int64_t seconds, std::int64_t nanos, bool micro) {
  // Go refuses to marshal years outside [0, 9999]; so does this.
  constexpr std::int64_t kMin = -62167219200, kMax = 253402300799;
  if (seconds < kMin || seconds > kMax || nanos < 0 || nanos > 999999999) {
    return Malformed("time out of range");
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return Malformed("time out of range");
  char buf[40];
  if (micro) {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(nanos / 1000));
  } else {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  }
  return std::string(buf);
}

// JsonDepthOk bounds the nesting of embedded JSON (FieldsV1, RawExtension) before parsing it.
bool JsonDepthOk(std::string_view text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if ((c == '[' || c == '{') && ++depth > 1000) return false;
    else if (c == ']' || c == '}') --depth;
  }
  return true;
}

Result<Value> Decode(int message, std::string_view bytes, Alloc& a, int depth);

// ScalarValue decodes one scalar of `kind` whose raw wire value is `bits` (varint or fixed).
// Sets `zero` when it is the type's zero value.
Result<Value> Scalar(FieldKind kind, std::uint64_t bits, bool& zero) {
  zero = bits == 0;
  switch (kind) {
    case FieldKind::kInt32: return Value(static_cast<std::int32_t>(static_cast<std::int64_t>(bits)));
    case FieldKind::kInt64: return Value(static_cast<std::int64_t>(bits));
    case FieldKind::kUint32: return Value(static_cast<std::uint32_t>(bits));
    case FieldKind::kUint64: return Value(static_cast<std::uint64_t>(bits));
    case FieldKind::kSint32:
      return Value(static_cast<std::int32_t>(static_cast<std::uint32_t>(bits >> 1) ^ -static_cast<std::int32_t>(bits & 1)));
    case FieldKind::kSint64:
      return Value(static_cast<std::int64_t>(bits >> 1) ^ -static_cast<std::int64_t>(bits & 1));
    case FieldKind::kBool: return Value(bits != 0);
    case FieldKind::kDouble: {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      zero = d == 0;
      if (d != d || d - d != 0) return Malformed("non-finite number");  // NaN/Inf have no JSON form
      return Value(d);
    }
    case FieldKind::kFloat: {
      auto b32 = static_cast<std::uint32_t>(bits);
      float f;
      std::memcpy(&f, &b32, sizeof f);
      zero = f == 0;
      if (f != f || f - f != 0) return Malformed("non-finite number");
      return Value(static_cast<double>(f));
    }
    default: return Malformed("not a scalar kind");
  }
}

WireType ScalarWireType(FieldKind kind) {
  if (kind == FieldKind::kDouble) return WireType::kFixed64;
  if (kind == FieldKind::kFloat) return WireType::kFixed32;
  return WireType::kVarint;
}

bool IsScalar(FieldKind kind) {
  return kind != FieldKind::kString && kind != FieldKind::kBytes && kind != FieldKind::kMessage &&
         kind != FieldKind::kMap;
}

Result<std::uint64_t> ReadScalarBits(WireReader& r, WireType wt) {
  if (wt == WireType::kVarint) return r.ReadVarint();
  if (wt == WireType::kFixed64) return r.ReadFixed64();
  auto v = r.ReadFixed32();
  if (!v) return std::unexpected(v.error());
  return static_cast<std::uint64_t>(*v);
}

// Single decodes one non-scalar value (string, bytes, message) from its length-delimited bytes.
// `zero` is set for an empty string/bytes.
Result<Value> LengthValue(FieldKind kind, int message, std::string_view bytes, Alloc& a, int depth, bool& zero) {
  zero = false;
  if (kind == FieldKind::kString) {
    if (!ValidUtf8(bytes)) return Malformed("invalid UTF-8 in a string field");
    zero = bytes.empty();
    return Str(bytes, a);
  }
  if (kind == FieldKind::kBytes) {
    zero = bytes.empty();
    return Str(Base64Encode(bytes), a);
  }
  return Decode(message, bytes, a, depth + 1);
}

Result<Value> DecodeMapEntry(const FieldSpec& f, std::string_view bytes, Alloc& a, int depth, std::string& key) {
  WireReader r(bytes);
  Value value;
  bool have_value = false;
  while (!r.AtEnd()) {
    auto k = r.ReadKey();
    if (!k) return std::unexpected(k.error());
    if (k->number == 1 && k->wire_type == WireType::kLengthDelimited) {
      auto b = r.ReadLengthDelimited();
      if (!b) return std::unexpected(b.error());
      if (!ValidUtf8(*b)) return Malformed("invalid UTF-8 in a map key");
      key.assign(b->data(), b->size());
    } else if (k->number == 2) {
      bool zero = false;
      if (IsScalar(f.value_kind)) {
        if (k->wire_type != ScalarWireType(f.value_kind)) return Malformed("wrong wire type for a map value");
        auto bits = ReadScalarBits(r, k->wire_type);
        if (!bits) return std::unexpected(bits.error());
        auto v = Scalar(f.value_kind, *bits, zero);
        if (!v) return v;
        value = std::move(*v);
      } else {
        if (k->wire_type != WireType::kLengthDelimited) return Malformed("wrong wire type for a map value");
        auto b = r.ReadLengthDelimited();
        if (!b) return std::unexpected(b.error());
        auto v = LengthValue(f.value_kind, f.message, *b, a, depth, zero);
        if (!v) return v;
        value = std::move(*v);
      }
      have_value = true;
    } else {
      auto s = r.Skip(k->wire_type);
      if (!s) return std::unexpected(s.error());
    }
  }
  if (!have_value) {  // an absent value is the value type's zero
    if (f.value_kind == FieldKind::kString || f.value_kind == FieldKind::kBytes) return Str("", a);
    if (f.value_kind == FieldKind::kMessage) return Decode(f.message, {}, a, depth + 1);
    bool zero = false;
    return Scalar(f.value_kind, 0, zero);
  }
  return value;
}

Result<Value> DecodeSpecial(const MessageSpec& spec, std::string_view bytes, Alloc& a) {
  WireReader r(bytes);
  std::int64_t ints[4] = {0, 0, 0, 0};
  std::string_view strs[4];
  while (!r.AtEnd()) {
    auto k = r.ReadKey();
    if (!k) return std::unexpected(k.error());
    if (k->number <= 3 && k->wire_type == WireType::kVarint) {
      auto v = r.ReadVarint();
      if (!v) return std::unexpected(v.error());
      ints[k->number] = static_cast<std::int64_t>(*v);
    } else if (k->number <= 3 && k->wire_type == WireType::kLengthDelimited) {
      auto v = r.ReadLengthDelimited();
      if (!v) return std::unexpected(v.error());
      strs[k->number] = *v;
    } else {
      auto s = r.Skip(k->wire_type);
      if (!s) return std::unexpected(s.error());
    }
  }
  switch (spec.special) {
    case Special::kTime:
    case Special::kMicroTime: {
      std::int64_t seconds = ints[1], nanos = static_cast<std::int32_t>(ints[2]);
      if ((seconds == 0 || seconds == kGoZeroTimeSeconds) && nanos == 0) return Value();  // zero: null
      auto text = FormatTime(seconds, nanos, spec.special == Special::kMicroTime);
      if (!text) return std::unexpected(text.error());
      return Str(*text, a);
    }
    case Special::kQuantity:
      if (!ValidUtf8(strs[1])) return Malformed("invalid UTF-8 in a quantity");
      return Str(strs[1].empty() ? std::string_view("0") : strs[1], a);
    case Special::kIntOrString:
      if (ints[1] == 1) {
        if (!ValidUtf8(strs[3])) return Malformed("invalid UTF-8 in an int-or-string");
        return Str(strs[3], a);
      }
      return Value(static_cast<std::int32_t>(ints[2]));
    case Special::kRawJson: {
      if (strs[1].empty()) return Value();
      if (!JsonDepthOk(strs[1])) return Malformed("embedded JSON nests too deeply");
      auto parsed = json::Parse(strs[1]);
      if (!parsed) return Malformed("embedded JSON does not parse: " + parsed.error().message);
      Value out;
      out.CopyFrom(*parsed, a);
      return out;
    }
    case Special::kNone: break;
  }
  return Malformed("unknown special message");
}

// AppendTo adds `v` to the array member `name` of `obj`, creating it.
void AppendTo(Value& obj, const char* name, Value v, Alloc& a) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd()) {
    obj.AddMember(Value(rapidjson::StringRef(name)), Value(rapidjson::kArrayType), a);
    it = obj.FindMember(name);
  }
  it->value.PushBack(std::move(v), a);
}

void SetField(Value& obj, const char* name, Value v, Alloc& a) {
  auto it = obj.FindMember(name);
  if (it != obj.MemberEnd()) {
    it->value = std::move(v);
  } else {
    obj.AddMember(Value(rapidjson::StringRef(name)), std::move(v), a);
  }
}

Status DecodeField(const FieldSpec& f, FieldKey key, WireReader& r, Value& obj, Alloc& a, int depth) {
  if (f.kind == FieldKind::kMap) {
    if (key.wire_type != WireType::kLengthDelimited) return Malformed(std::string("wrong wire type for ") + f.json_name);
    auto b = r.ReadLengthDelimited();
    if (!b) return std::unexpected(b.error());
    std::string map_key;
    auto v = DecodeMapEntry(f, *b, a, depth, map_key);
    if (!v) return std::unexpected(v.error());
    auto it = obj.FindMember(f.json_name);
    if (it == obj.MemberEnd()) {
      obj.AddMember(Value(rapidjson::StringRef(f.json_name)), Value(rapidjson::kObjectType), a);
      it = obj.FindMember(f.json_name);
    }
    json::SetMember(it->value, map_key, std::move(*v), a);
    return {};
  }
  if (IsScalar(f.kind)) {
    if (f.repeated && key.wire_type == WireType::kLengthDelimited) {  // packed
      auto b = r.ReadLengthDelimited();
      if (!b) return std::unexpected(b.error());
      WireReader packed(*b);
      while (!packed.AtEnd()) {
        auto bits = ReadScalarBits(packed, ScalarWireType(f.kind));
        if (!bits) return std::unexpected(bits.error());
        bool zero = false;
        auto v = Scalar(f.kind, *bits, zero);
        if (!v) return std::unexpected(v.error());
        AppendTo(obj, f.json_name, std::move(*v), a);
      }
      return {};
    }
    if (key.wire_type != ScalarWireType(f.kind)) return Malformed(std::string("wrong wire type for ") + f.json_name);
    auto bits = ReadScalarBits(r, key.wire_type);
    if (!bits) return std::unexpected(bits.error());
    bool zero = false;
    auto v = Scalar(f.kind, *bits, zero);
    if (!v) return std::unexpected(v.error());
    if (f.repeated) {
      AppendTo(obj, f.json_name, std::move(*v), a);
    } else if (!zero || f.keep_zero) {
      SetField(obj, f.json_name, std::move(*v), a);
    }
    return {};
  }
  if (key.wire_type != WireType::kLengthDelimited) return Malformed(std::string("wrong wire type for ") + f.json_name);
  auto b = r.ReadLengthDelimited();
  if (!b) return std::unexpected(b.error());
  bool zero = false;
  auto v = LengthValue(f.kind, f.message, *b, a, depth, zero);
  if (!v) return std::unexpected(v.error());
  if (f.repeated) {
    AppendTo(obj, f.json_name, std::move(*v), a);
  } else if (f.inlined && v->IsObject()) {
    // An embedded Go struct: its fields join the parent's object.
    for (auto& m : v->GetObject()) {
      auto existing = obj.FindMember(m.name);
      if (existing != obj.MemberEnd()) {
        existing->value = std::move(m.value);
      } else {
        obj.AddMember(std::move(m.name), std::move(m.value), a);
      }
    }
  } else if (!zero && !v->IsNull()) {
    SetField(obj, f.json_name, std::move(*v), a);
  }
  return {};
}

Result<Value> Decode(int message, std::string_view bytes, Alloc& a, int depth) {
  if (depth > kMaxDepth) return Malformed("messages nest too deeply");
  if (message < 0 || static_cast<std::size_t>(message) >= kMessageCount) return Malformed("unknown message");
  const MessageSpec& spec = kMessages[message];
  if (spec.special != Special::kNone) return DecodeSpecial(spec, bytes, a);
  Value obj(rapidjson::kObjectType);
  WireReader r(bytes);
  while (!r.AtEnd()) {
    auto key = r.ReadKey();
    if (!key) return std::unexpected(key.error());
    const FieldSpec* f = FindField(spec, key->number);
    if (f == nullptr) {  // a field newer than these tables: skipped, as gogo's Unmarshal does
      auto s = r.Skip(key->wire_type);
      if (!s) return std::unexpected(s.error());
      continue;
    }
    auto s = DecodeField(*f, *key, r, obj, a, depth);
    if (!s) return std::unexpected(s.error());
  }
  return obj;
}

}  // namespace

Result<Value> DecodeMessage(int message, std::string_view bytes, Alloc& alloc) {
  return Decode(message, bytes, alloc, 0);
}

Result<rapidjson::Document> DecodeKubernetesProtobuf(std::string_view body) {
  if (!body.starts_with(kMagic)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  }
  WireReader r(body.substr(kMagic.size()));
  std::string_view api_version, kind, raw, encoding;
  while (!r.AtEnd()) {
    auto key = r.ReadKey();
    if (!key) return std::unexpected(key.error());
    if (key->number > 4 || key->wire_type != WireType::kLengthDelimited) {
      auto s = r.Skip(key->wire_type);
      if (!s) return std::unexpected(s.error());
      continue;
    }
    auto b = r.ReadLengthDelimited();
    if (!b) return std::unexpected(b.error());
    if (key->number == 1) {
      WireReader tm(*b);
      while (!tm.AtEnd()) {
        auto k = tm.ReadKey();
        if (!k) return std::unexpected(k.error());
        if ((k->number == 1 || k->number == 2) && k->wire_type == WireType::kLengthDelimited) {
          auto s = tm.ReadLengthDelimited();
          if (!s) return std::unexpected(s.error());
          (k->number == 1 ? api_version : kind) = *s;
        } else {
          auto s = tm.Skip(k->wire_type);
          if (!s) return std::unexpected(s.error());
        }
      }
    } else if (key->number == 2) {
      raw = *b;
    } else if (key->number == 3) {
      encoding = *b;
    }
  }
  if (!encoding.empty()) return Malformed("content encoding is not supported");
  if (!ValidUtf8(api_version) || !ValidUtf8(kind)) return Malformed("invalid UTF-8 in apiVersion/kind");
  if (kind.empty()) return Malformed("the envelope carries no kind");
  int message = FindRootMessage(api_version, kind);
  if (message < 0) {
    return MakeError(ErrorCode::kNotFound, "no protobuf decoding for " + std::string(api_version) + ", Kind=" +
                                               std::string(kind));
  }
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  auto obj = Decode(message, raw, a, 0);
  if (!obj) return std::unexpected(obj.error());
  json::SetMember(doc, "kind", Str(kind, a), a);
  json::SetMember(doc, "apiVersion", Str(api_version, a), a);
  for (auto& m : obj->GetObject()) doc.AddMember(std::move(m.name), std::move(m.value), a);
  return doc;
}

}  // namespace berth::kubesim::protobuf
