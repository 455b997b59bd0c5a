#include "clientgo-shim/proto/protobuf_codec.h"

#include <limits>
#include <memory>
#include <type_traits>

#include <google/protobuf/arena.h>
#include <google/protobuf/empty.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/proto/protobuf_json.h"
#include "proto/k8s/core_v1.pb.h"
#include "proto/k8s/meta_v1.pb.h"
#include "proto/k8s/runtime.pb.h"

namespace berth::shim::proto {
namespace {

namespace pb = google::protobuf;
namespace core = k8s::io::api::core::v1;
namespace meta = k8s::io::apimachinery::pkg::apis::meta::v1;
namespace rt = k8s::io::apimachinery::pkg::runtime;
using rapidjson::Document;
using rapidjson::Value;

Error Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, "protobuf: " + std::move(message)).error();
}

std::string Printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

using WireLite = pb::internal::WireFormatLite;

// Envelope: the runtime.Unknown of an enveloped body, read in place: `raw` points into the body
// (a LIST page is not copied out of its envelope).
struct Envelope {
  std::string api_version;
  std::string kind;
  std::string_view raw;
};

Result<Envelope> SplitEnvelope(std::string_view body) {
  if (!HasProtobufMagic(body)) {
    return std::unexpected(Invalid("body does not start with the k8s\\0 magic (" +
                                   std::to_string(body.size()) + " bytes)"));
  }
  const std::string_view envelope = body.substr(kProtobufMagic.size());
  const auto malformed = [] { return std::unexpected(Invalid("runtime.Unknown envelope is malformed")); };
  if (envelope.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return malformed();
  Envelope out;
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(envelope.data()), static_cast<int>(envelope.size()));
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  // Fields in any order, the last one wins (as a protobuf parse would): typeMeta (1), raw (2),
  // contentEncoding (3), contentType (4, ignored).
  for (;;) {
    // ReadTag returns 0 at the end and on a malformed or truncated tag: only the first is an end.
    const int before = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (before != static_cast<int>(envelope.size())) return malformed();
      break;
    }
    const int number = WireLite::GetTagFieldNumber(tag);
    if (number >= 1 && number <= 3) {
      if (WireLite::GetTagWireType(tag) != WireLite::WIRETYPE_LENGTH_DELIMITED) return malformed();
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return malformed();
      const size_t at = static_cast<size_t>(in.CurrentPosition());
      if (length > envelope.size() - at) return malformed();
      const std::string_view bytes = envelope.substr(at, length);
      in.Skip(static_cast<int>(length));
      if (number == 1) {
        rt::TypeMeta type_meta;
        if (!type_meta.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return malformed();
        out.api_version = type_meta.apiversion();
        out.kind = type_meta.kind();
      } else if (number == 2) {
        out.raw = bytes;
      } else if (!bytes.empty()) {
        return std::unexpected(Invalid("content encoding \"" + Printable(bytes) + "\" is not supported"));
      }
      continue;
    }
    if (!WireLite::SkipField(&in, tag)) return malformed();
  }
  if (out.raw.empty()) {
    return std::unexpected(Invalid(Printable(out.kind) + ": the envelope carries no object"));
  }
  return out;
}

template <class M>
Result<M*> ParseRaw(const Envelope& envelope, pb::Arena& arena) {
  M* m = pb::Arena::CreateMessage<M>(&arena);
  if (!m->ParseFromArray(envelope.raw.data(), static_cast<int>(envelope.raw.size()))) {
    return std::unexpected(Invalid(envelope.kind + " is malformed (" + std::to_string(envelope.raw.size()) +
                                   " bytes)"));
  }
  return m;
}

void SetTypeMeta(const Envelope& envelope, Value& out, Document::AllocatorType& alloc) {
  if (!envelope.api_version.empty()) {
    out.AddMember("apiVersion", Value(envelope.api_version.c_str(), alloc), alloc);
  }
  out.AddMember("kind", Value(envelope.kind.c_str(), alloc), alloc);
}

template <class M>
Status ObjectInto(const Envelope& envelope, pb::Arena& arena, Value& out, Document::AllocatorType& alloc) {
  auto m = ParseRaw<M>(envelope, arena);
  if (!m) return std::unexpected(m.error());
  if constexpr (!std::is_same_v<M, meta::Status>) {
    // Every stored object has metadata; one without it is not an object we can cache.
    if (!(*m)->has_metadata()) return std::unexpected(Invalid(envelope.kind + " has no metadata"));
  }
  if (auto st = ToJson(**m, out, alloc); !st) {
    st.error().message += " (in a " + envelope.kind + ")";
    return st;
  }
  return {};
}

Status DecodeObjectInto(std::string_view body, Value& out, Document::AllocatorType& alloc) {
  auto envelope = SplitEnvelope(body);
  if (!envelope) return std::unexpected(envelope.error());
  pb::Arena arena;
  const std::string& kind = envelope->kind;
  Status st;
  if (kind == "Pod") {
    st = ObjectInto<core::Pod>(*envelope, arena, out, alloc);
  } else if (kind == "Node") {
    st = ObjectInto<core::Node>(*envelope, arena, out, alloc);
  } else if (kind == "Status") {
    st = ObjectInto<meta::Status>(*envelope, arena, out, alloc);
  } else {
    return std::unexpected(Invalid("kind \"" + Printable(kind) + "\" is not decodable here"));
  }
  if (!st) return st;
  // Type first, as in a JSON body (and so it survives a transform that keeps it).
  Value typed(rapidjson::kObjectType);
  SetTypeMeta(*envelope, typed, alloc);
  for (auto& m : out.GetObject()) typed.AddMember(m.name, m.value, alloc);
  out = std::move(typed);
  return {};
}

// DecodeListOf walks a list message's fields itself and parses one item (field 2) at a time into
// one message reused for every item, so an item is parsed, converted (strings referring to the
// message), handed to `on_item` and overwritten while its memory is still in cache. Reuse is what
// makes it cheap: a parse starts with Clear(), which (proto2) keeps sub-messages, repeated
// elements and string buffers, so after the first pods a parse allocates almost nothing (on an
// arena, every string longer than 15 bytes was a heap allocation and a destructor to run).
// The result is what a parse of the whole list would give: ListMeta (field 1) occurrences merge,
// fields of other numbers or wire types are skipped as unknown, a malformed item fails the list.
template <class L>
Result<ListMetaScan> DecodeListOf(const Envelope& envelope, const ListItemFn& on_item) {
  using Item = std::remove_cvref_t<decltype(std::declval<const L&>().items(0))>;
  Item item;
  char first_chunk[32 << 10];  // a pod's JSON nodes fit: no malloc per item
  rapidjson::MemoryPoolAllocator<> alloc(first_chunk, sizeof(first_chunk));
  const std::string_view raw = envelope.raw;
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(raw.data()), static_cast<int>(raw.size()));
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  const auto malformed = [&] {
    return std::unexpected(Invalid(envelope.kind + " is malformed (" + std::to_string(raw.size()) + " bytes)"));
  };
  meta::ListMeta list_meta;
  for (int index = 0;;) {
    const int before = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (before != static_cast<int>(raw.size())) return malformed();  // a malformed tag, not the end
      break;
    }
    // CodedInputStream reads a tag of up to 10 bytes (keeping the low 32 bits) where the parser
    // behind ParseFromString, the whole-list decode, refuses more than 5: so do we.
    if (in.CurrentPosition() - before > 5) return malformed();
    const int number = WireLite::GetTagFieldNumber(tag);
    if ((number != 1 && number != 2) || WireLite::GetTagWireType(tag) != WireLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireLite::SkipField(&in, tag)) return malformed();
      // A field skipped here must be one that parser would have kept as unknown (tags inside a
      // group are read the same lenient way): check its bytes with that parser. Lists from an
      // API server have no such fields, so this costs nothing in practice.
      const std::string_view skipped = raw.substr(static_cast<size_t>(before),
                                                  static_cast<size_t>(in.CurrentPosition() - before));
      if (google::protobuf::Empty check; !check.ParseFromArray(skipped.data(), static_cast<int>(skipped.size()))) {
        return malformed();
      }
      continue;
    }
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) return malformed();
    const size_t at = static_cast<size_t>(in.CurrentPosition());
    if (length > raw.size() - at) return malformed();
    const std::string_view bytes = raw.substr(at, length);
    in.Skip(static_cast<int>(length));
    if (number == 1) {
      if (!list_meta.MergeFromString(std::string(bytes))) return malformed();
      continue;
    }
    if (!item.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) return malformed();
    if (!item.has_metadata()) {
      return std::unexpected(Invalid(envelope.kind + " item " + std::to_string(index) + " has no metadata"));
    }
    Value json;
    if (auto st = ToJson(item, json, alloc, StringMode::kReference); !st) {
      st.error().message += " (" + envelope.kind + " item " + std::to_string(index) + ")";
      return std::unexpected(st.error());
    }
    if (auto st = on_item(json, alloc); !st) return std::unexpected(st.error());
    alloc.Clear();
    ++index;
  }
  // The ListMeta passes the checks a whole-list decode applies (a declared field with the wrong
  // wire type is an error there too).
  Value metadata;
  if (auto st = ToJson(list_meta, metadata, alloc, StringMode::kReference); !st) return std::unexpected(st.error());
  return ListMetaScan{envelope.kind, list_meta.resourceversion(), list_meta.continue_()};
}

}  // namespace

bool IsProtobufContentType(std::string_view content_type) {
  const size_t semicolon = content_type.find(';');
  std::string_view media = content_type.substr(0, semicolon);
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  if (media.size() != kProtobufContentType.size()) return false;
  for (size_t i = 0; i < media.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(media[i])) != kProtobufContentType[i]) return false;
  }
  return true;
}

bool HasProtobufMagic(std::string_view body) { return body.substr(0, kProtobufMagic.size()) == kProtobufMagic; }

Result<Document> DecodeObject(std::string_view body) {
  Document doc;
  doc.SetObject();
  if (auto st = DecodeObjectInto(body, doc, doc.GetAllocator()); !st) return std::unexpected(st.error());
  return doc;
}

Result<ListMetaScan> DecodeListItems(std::string_view body, const ListItemFn& on_item) {
  auto envelope = SplitEnvelope(body);
  if (!envelope) return std::unexpected(envelope.error());
  if (envelope->kind == "PodList") return DecodeListOf<core::PodList>(*envelope, on_item);
  if (envelope->kind == "NodeList") return DecodeListOf<core::NodeList>(*envelope, on_item);
  return std::unexpected(Invalid("list kind \"" + Printable(envelope->kind) + "\" is not decodable here"));
}

namespace {

template <class L>
Status WholeListInto(const Envelope& envelope, DecodedList& list) {
  pb::Arena arena;
  auto parsed = ParseRaw<L>(envelope, arena);
  if (!parsed) return std::unexpected(parsed.error());
  const L& l = **parsed;
  Document& doc = list.body;
  auto& alloc = doc.GetAllocator();
  doc.SetObject();
  SetTypeMeta(envelope, doc, alloc);
  Value metadata;
  if (auto st = ToJson(l.metadata(), metadata, alloc); !st) return st;
  doc.AddMember("metadata", metadata, alloc);
  Value items(rapidjson::kArrayType);
  items.Reserve(static_cast<rapidjson::SizeType>(l.items_size()), alloc);
  for (int i = 0; i < l.items_size(); ++i) {
    if (!l.items(i).has_metadata()) {
      return std::unexpected(Invalid(envelope.kind + " item " + std::to_string(i) + " has no metadata"));
    }
    Value item;
    if (auto st = ToJson(l.items(i), item, alloc); !st) {
      st.error().message += " (" + envelope.kind + " item " + std::to_string(i) + ")";
      return st;
    }
    items.PushBack(item, alloc);
  }
  doc.AddMember("items", items, alloc);
  list.resource_version = l.metadata().resourceversion();
  list.continue_token = l.metadata().continue_();
  return {};
}

}  // namespace

Result<DecodedList> DecodeList(std::string_view body) {
  auto envelope = SplitEnvelope(body);
  if (!envelope) return std::unexpected(envelope.error());
  DecodedList list;
  Status st;
  if (envelope->kind == "PodList") {
    st = WholeListInto<core::PodList>(*envelope, list);
  } else if (envelope->kind == "NodeList") {
    st = WholeListInto<core::NodeList>(*envelope, list);
  } else {
    return std::unexpected(Invalid("list kind \"" + Printable(envelope->kind) + "\" is not decodable here"));
  }
  if (!st) return std::unexpected(st.error());
  return list;
}

namespace {

// NextLengthDelimited reads fields until `number` with wire type 2 (its bytes to `out`, true),
// skipping the others; false at the end; an error for malformed bytes.
Result<bool> NextLengthDelimited(pb::io::CodedInputStream& in, int number, std::string_view whole,
                                 std::string_view& out, const std::string& what) {
  for (;;) {
    const int before = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) {
      // A malformed or truncated tag also reads as 0: only at the end is it the end.
      if (before != static_cast<int>(whole.size())) return std::unexpected(Invalid(what + " is malformed"));
      return false;
    }
    if (WireLite::GetTagFieldNumber(tag) == number &&
        WireLite::GetTagWireType(tag) == WireLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return std::unexpected(Invalid(what + " is malformed"));
      const size_t at = static_cast<size_t>(in.CurrentPosition());
      if (length > whole.size() - at) return std::unexpected(Invalid(what + " is malformed"));
      out = whole.substr(at, length);
      in.Skip(static_cast<int>(length));
      return true;
    }
    if (!WireLite::SkipField(&in, tag)) return std::unexpected(Invalid(what + " is malformed"));
  }
}

}  // namespace

Result<ListMetaScan> ScanListMeta(std::string_view body) {
  auto envelope = SplitEnvelope(body);
  if (!envelope) return std::unexpected(envelope.error());
  if (envelope->kind != "PodList" && envelope->kind != "NodeList") {
    return std::unexpected(Invalid("list kind \"" + Printable(envelope->kind) + "\" is not decodable here"));
  }
  ListMetaScan out;
  out.kind = envelope->kind;
  const std::string_view raw = envelope->raw;
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(raw.data()), static_cast<int>(raw.size()));
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  // metadata is field 1; the items (field 2) are skipped, not parsed. A repeated field 1 merges,
  // as a parse of the whole message would.
  meta::ListMeta list_meta;
  for (;;) {
    std::string_view meta_bytes;
    auto found = NextLengthDelimited(in, 1, raw, meta_bytes, out.kind);
    if (!found) return std::unexpected(found.error());
    if (!*found) break;
    if (!list_meta.MergeFromString(std::string(meta_bytes))) {
      return std::unexpected(Invalid(out.kind + " metadata is malformed"));
    }
  }
  out.resource_version = list_meta.resourceversion();
  out.continue_token = list_meta.continue_();
  return out;
}

Result<DecodedWatchEvent> DecodeWatchFrame(std::string_view frame) {
  pb::Arena arena;
  auto* event = pb::Arena::CreateMessage<meta::WatchEvent>(&arena);
  if (!event->ParseFromArray(frame.data(), static_cast<int>(frame.size()))) {
    return std::unexpected(Invalid("watch event is malformed (" + std::to_string(frame.size()) + " bytes)"));
  }
  const std::string& type = event->type();
  if (type != "ADDED" && type != "MODIFIED" && type != "DELETED" && type != "BOOKMARK" && type != "ERROR") {
    return std::unexpected(Invalid("watch event has unknown type \"" + Printable(type) + "\""));
  }
  if (!event->object().has_raw()) {
    return std::unexpected(Invalid("watch event " + type + " carries no object"));
  }
  DecodedWatchEvent out;
  out.type = type;
  out.object.SetObject();
  if (auto st = DecodeObjectInto(event->object().raw(), out.object, out.object.GetAllocator()); !st) {
    st.error().message += " (watch event " + type + ")";
    return std::unexpected(st.error());
  }
  return out;
}

Result<std::string> StatusJson(std::string_view body) {
  auto doc = DecodeObject(body);
  if (!doc) return std::unexpected(doc.error());
  if (json::GetString(*doc, {"kind"}) != "Status") {
    return std::unexpected(Invalid("expected a Status, got " + Printable(json::GetString(*doc, {"kind"}))));
  }
  return json::Serialize(*doc);
}

Result<bool> FrameReader::Feed(std::string_view data,
                               const std::function<bool(std::string_view frame)>& on_frame) {
  buffer_.append(data);
  for (;;) {
    const size_t available = buffer_.size() - start_;
    if (available < 4) break;
    const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data() + start_);
    const uint32_t length = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
    if (length > max_frame_) {
      return std::unexpected(Invalid("watch frame of " + std::to_string(length) + " bytes exceeds the limit of " +
                                     std::to_string(max_frame_)));
    }
    if (available - 4 < length) break;
    const std::string_view frame(buffer_.data() + start_ + 4, length);
    start_ += 4 + size_t{length};
    if (!on_frame(frame)) return false;
  }
  // Compact once the consumed prefix dominates, so a long stream does not grow the buffer.
  if (start_ > 0 && start_ * 2 >= buffer_.size()) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  return true;
}

Status FrameReader::Finish() const {
  const size_t left = buffer_.size() - start_;
  if (left == 0) return {};
  return std::unexpected(Invalid("watch stream ended inside a frame (" + std::to_string(left) + " bytes left)"));
}

}  // namespace berth::shim::proto
