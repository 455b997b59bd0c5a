// e2e/kubesim/protobuf/encoder.cc
#include "e2e/kubesim/protobuf/encoder.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <vector>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/encoding.h"
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/protobuf/decoder.h"
#include "e2e/kubesim/protobuf/message_tables.h"
#include "e2e/kubesim/protobuf/wire_writer.h"

namespace berth::kubesim::protobuf {
namespace {

using rapidjson::Value;

// As the decoder: far deeper than any Kubernetes kind, shallow enough for the stack.
constexpr int kMaxDepth = 64;

// Path: where a value sits, as a chain of names on the stack; rendered ("spec.containers.image")
// only for an error, so encoding allocates nothing for it.
struct Path {
  const Path* parent = nullptr;
  std::string_view name;
  std::string Render() const {
    if (parent == nullptr) return "object";
    std::vector<std::string_view> names;
    for (const Path* p = this; p->parent != nullptr; p = p->parent) names.push_back(p->name);
    std::string out;
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
      if (!out.empty()) out += '.';
      out += *it;
    }
    return out;
  }
};

std::unexpected<Error> Unfit(const Path& path, std::string_view what) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "cannot encode " + path.Render() + " as protobuf: " + std::string(what));
}

std::string_view View(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

Status Encode(int message, const Value& value, WireWriter& out, const Path& path, int depth);

// Scalar writes one scalar of `kind` (key included) from JSON.
Status Scalar(FieldKind kind, std::uint32_t number, const Value& v, WireWriter& out, const Path& path) {
  switch (kind) {
    case FieldKind::kBool:
      if (!v.IsBool()) return Unfit(path, "expected a boolean");
      out.Key(number, WireType::kVarint);
      out.Varint(v.GetBool() ? 1 : 0);
      return {};
    case FieldKind::kInt32:
    case FieldKind::kSint32:
      if (!v.IsInt()) return Unfit(path, "expected a 32-bit integer");
      out.Key(number, WireType::kVarint);
      if (kind == FieldKind::kInt32) {
        out.Varint(static_cast<std::uint64_t>(static_cast<std::int64_t>(v.GetInt())));  // sign-extended
      } else {
        auto n = v.GetInt();
        out.Varint((static_cast<std::uint32_t>(n) << 1) ^ static_cast<std::uint32_t>(n >> 31));
      }
      return {};
    case FieldKind::kInt64:
    case FieldKind::kSint64:
      if (!v.IsInt64()) return Unfit(path, "expected a 64-bit integer");
      out.Key(number, WireType::kVarint);
      if (kind == FieldKind::kInt64) {
        out.Varint(static_cast<std::uint64_t>(v.GetInt64()));
      } else {
        auto n = v.GetInt64();
        out.Varint((static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63));
      }
      return {};
    case FieldKind::kUint32:
      if (!v.IsUint()) return Unfit(path, "expected an unsigned 32-bit integer");
      out.Key(number, WireType::kVarint);
      out.Varint(v.GetUint());
      return {};
    case FieldKind::kUint64:
      if (!v.IsUint64()) return Unfit(path, "expected an unsigned 64-bit integer");
      out.Key(number, WireType::kVarint);
      out.Varint(v.GetUint64());
      return {};
    case FieldKind::kDouble:
      if (!v.IsNumber()) return Unfit(path, "expected a number");
      out.Double(number, v.GetDouble());
      return {};
    case FieldKind::kFloat: {
      if (!v.IsNumber()) return Unfit(path, "expected a number");
      double d = v.GetDouble();
      if (std::abs(d) > std::numeric_limits<float>::max()) return Unfit(path, "number out of float range");
      out.Float(number, static_cast<float>(d));
      return {};
    }
    default:
      return Unfit(path, "not a scalar field");
  }
}

// LengthDelimited writes a string, bytes or message value (key included).
Status LengthDelimited(FieldKind kind, int message, std::uint32_t number, const Value& v, WireWriter& out,
                       const Path& path, int depth) {
  if (kind == FieldKind::kString) {
    if (!v.IsString()) return Unfit(path, "expected a string");
    out.String(number, View(v));
    return {};
  }
  if (kind == FieldKind::kBytes) {
    if (!v.IsString()) return Unfit(path, "expected a base64 string");
    auto bytes = Base64Decode(View(v));
    if (!bytes) return Unfit(path, bytes.error().message);
    out.String(number, *bytes);
    return {};
  }
  WireWriter inner;
  auto s = Encode(message, v, inner, path, depth + 1);
  if (!s) return s;
  out.Message(number, inner);
  return {};
}

Status Value1(FieldKind kind, int message, std::uint32_t number, const Value& v, WireWriter& out,
              const Path& path, int depth) {
  if (kind == FieldKind::kString || kind == FieldKind::kBytes || kind == FieldKind::kMessage) {
    return LengthDelimited(kind, message, number, v, out, path, depth);
  }
  return Scalar(kind, number, v, out, path);
}

Status EncodeMap(const FieldSpec& f, const Value& v, WireWriter& out, const Path& path, int depth) {
  if (!v.IsObject()) return Unfit(path, "expected an object");
  std::vector<const Value::Member*> entries;
  entries.reserve(v.MemberCount());
  for (const auto& m : v.GetObject()) entries.push_back(&m);
  std::sort(entries.begin(), entries.end(), [](const Value::Member* a, const Value::Member* b) {
    return View(a->name) < View(b->name);
  });
  for (const Value::Member* m : entries) {
    WireWriter entry;
    entry.String(1, View(m->name));
    const Path entry_path{&path, View(m->name)};
    if (m->value.IsNull()) return Unfit(entry_path, "a map value is null");
    auto s = Value1(f.value_kind, f.message, 2, m->value, entry, entry_path, depth);
    if (!s) return s;
    out.Message(f.number, entry);
  }
  return {};
}

// QuantityText: a Quantity's string; a JSON number (which Go's Quantity also reads) as Go's
// shortest formatting of it.
std::optional<std::string> QuantityText(const Value& v) {
  if (v.IsString()) return std::string(View(v));
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsDouble() && std::isfinite(v.GetDouble())) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v.GetDouble());
    // Shorten to the fewest digits that still read back as the same double.
    for (int precision = 1; precision <= 17; ++precision) {
      char shorter[32];
      std::snprintf(shorter, sizeof shorter, "%.*g", precision, v.GetDouble());
      if (std::strtod(shorter, nullptr) == v.GetDouble()) return std::string(shorter);
    }
    return std::string(buf);
  }
  return std::nullopt;
}

Status EncodeSpecial(const MessageSpec& spec, const Value& v, WireWriter& out, const Path& path) {
  switch (spec.special) {
    case Special::kTime:
    case Special::kMicroTime: {
      if (!v.IsString()) return Unfit(path, "expected an RFC 3339 time string");
      auto t = shim::ParseUnixTime(View(v));
      if (!t) return Unfit(path, t.error().message);
      out.Key(1, WireType::kVarint);
      out.Varint(static_cast<std::uint64_t>(t->seconds));
      out.Key(2, WireType::kVarint);
      out.Varint(static_cast<std::uint64_t>(t->nanos));
      return {};
    }
    case Special::kQuantity: {
      auto text = QuantityText(v);
      if (!text) return Unfit(path, "expected a quantity string");
      out.String(1, *text);
      return {};
    }
    case Special::kIntOrString:
      if (v.IsString()) {
        out.Key(1, WireType::kVarint);
        out.Varint(1);
        out.Key(2, WireType::kVarint);
        out.Varint(0);
        out.String(3, View(v));
        return {};
      }
      if (!v.IsInt()) return Unfit(path, "expected a 32-bit integer or a string");
      out.Key(1, WireType::kVarint);
      out.Varint(0);
      out.Key(2, WireType::kVarint);
      out.Varint(static_cast<std::uint64_t>(static_cast<std::int64_t>(v.GetInt())));
      out.String(3, "");
      return {};
    case Special::kRawJson:
      out.String(1, json::Serialize(v));
      return {};
    case Special::kNone:
      break;
  }
  return Unfit(path, "unknown special message");
}

Status Encode(int message, const Value& value, WireWriter& out, const Path& path, int depth) {
  if (depth > kMaxDepth) return Unfit(path, "objects nest too deeply");
  if (message < 0 || static_cast<std::size_t>(message) >= kMessageCount) return Unfit(path, "unknown message");
  const MessageSpec& spec = kMessages[message];
  if (spec.special != Special::kNone) return EncodeSpecial(spec, value, out, path);
  if (!value.IsObject()) return Unfit(path, "expected an object");
  for (std::size_t i = 0; i < spec.field_count; ++i) {
    const FieldSpec& f = spec.fields[i];
    if (f.inlined) {  // an embedded Go struct: its fields are the parent's own JSON members
      WireWriter inner;
      auto s = Encode(f.message, value, inner, path, depth + 1);
      if (!s) return s;
      out.Message(f.number, inner);
      continue;
    }
    auto it = value.FindMember(f.json_name);
    if (it == value.MemberEnd() || it->value.IsNull()) continue;
    const Value& v = it->value;
    const Path field_path{&path, f.json_name};
    Status s;
    if (f.kind == FieldKind::kMap) {
      s = EncodeMap(f, v, out, field_path, depth);
    } else if (f.repeated) {
      if (!v.IsArray()) return Unfit(field_path, "expected an array");
      for (rapidjson::SizeType k = 0; k < v.Size() && s; ++k) {
        if (v[k].IsNull()) {
          // A null element of a message list is the zero message, as Go's json reads it.
          if (f.kind != FieldKind::kMessage) return Unfit(field_path, "a list element is null");
          out.String(f.number, "");
          continue;
        }
        s = Value1(f.kind, f.message, f.number, v[k], out, field_path, depth);
      }
    } else {
      s = Value1(f.kind, f.message, f.number, v, out, field_path, depth);
    }
    if (!s) return s;
  }
  return {};
}

}  // namespace

Status EncodeMessage(int message, const rapidjson::Value& value, std::string& out) {
  WireWriter writer;
  auto s = Encode(message, value, writer, Path{}, 0);
  if (!s) return s;
  out.append(writer.data());
  return {};
}

std::string WrapUnknown(std::string_view api_version, std::string_view kind, std::string_view raw) {
  WireWriter type_meta;
  type_meta.String(1, api_version);
  type_meta.String(2, kind);
  WireWriter unknown;
  unknown.Message(1, type_meta);
  unknown.String(2, raw);
  unknown.String(3, "");
  unknown.String(4, "");
  std::string out;
  out.reserve(kMagic.size() + unknown.data().size());
  out.append(kMagic);
  out.append(unknown.data());
  return out;
}

Result<std::string> EncodeKubernetesProtobuf(const rapidjson::Value& object) {
  if (!object.IsObject()) return MakeError(ErrorCode::kInvalidArgument, "cannot encode a non-object as protobuf");
  std::string api_version(json::GetString(object, {"apiVersion"}));
  std::string kind(json::GetString(object, {"kind"}));
  int message = FindRootMessage(api_version, kind);
  if (message < 0) {
    return MakeError(ErrorCode::kNotFound, "no protobuf encoding for " + api_version + ", Kind=" + kind);
  }
  std::string raw;
  auto s = EncodeMessage(message, object, raw);
  if (!s) return std::unexpected(s.error());
  return WrapUnknown(api_version, kind, raw);
}

Result<ListEncoder> ListEncoder::Create(std::string_view api_version, std::string_view list_kind) {
  constexpr std::string_view kSuffix = "List";
  int list_message = FindRootMessage(api_version, list_kind);
  int item_message = list_kind.ends_with(kSuffix)
                         ? FindRootMessage(api_version, list_kind.substr(0, list_kind.size() - kSuffix.size()))
                         : -1;
  if (list_message < 0 || item_message < 0) {
    return MakeError(ErrorCode::kNotFound, "no protobuf encoding for " + std::string(api_version) + ", Kind=" +
                                               std::string(list_kind));
  }
  return ListEncoder(std::string(api_version), std::string(list_kind), item_message);
}

void ListEncoder::SetMetadata(std::string_view resource_version, std::string_view continue_token,
                              std::int64_t remaining_item_count) {
  WireWriter meta;
  if (!resource_version.empty()) meta.String(2, resource_version);
  if (!continue_token.empty()) meta.String(3, continue_token);
  if (remaining_item_count > 0) meta.Int64(4, remaining_item_count);
  raw_.Message(1, meta);
}

Status ListEncoder::AddItem(const rapidjson::Value& item) {
  WireWriter encoded;
  auto s = Encode(item_message_, item, encoded, Path{}, 0);
  if (!s) return s;
  raw_.Message(2, encoded);
  return {};
}

void ListEncoder::AddRaw(std::string_view message) { raw_.String(2, message); }

std::string ListEncoder::Finish() const { return WrapUnknown(api_version_, list_kind_, raw_.data()); }

std::string WatchEventFrame(std::string_view event_type, std::string_view object_body) {
  WireWriter raw_extension;
  raw_extension.String(1, object_body);
  WireWriter event;
  event.String(1, event_type);
  event.Message(2, raw_extension);
  auto length = static_cast<std::uint32_t>(event.data().size());
  std::string frame;
  frame.reserve(4 + length);
  for (int shift = 24; shift >= 0; shift -= 8) frame.push_back(static_cast<char>((length >> shift) & 0xFF));
  frame.append(event.data());
  return frame;
}

}  // namespace berth::kubesim::protobuf
