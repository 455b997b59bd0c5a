#include "e2e/kubesim/api/response_format.h"

#include <rapidjson/document.h>

#include "clientgo-shim/base/encoding.h"
#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/crd_versions.h"
#include "e2e/kubesim/api/status_errors.h"
#include "e2e/kubesim/protobuf/decoder.h"
#include "e2e/kubesim/protobuf/encoder.h"
#include "e2e/kubesim/protobuf/message_tables.h"
#include "e2e/kubesim/protobuf/wire_writer.h"

namespace berth::kubesim {
namespace {

// Continue tokens are RawURLEncoding, as the apiserver writes them; the reader also takes '='
// padding and the standard alphabet's '+' '/' so hand-edited or re-encoded tokens still work.
std::string Base64UrlEncode(std::string_view in) { return Base64Encode(in, Base64Alphabet::kUrl, /*pad=*/false); }

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  auto out = Base64Decode(in, {.alphabet = Base64Alphabet::kUrl,
                               .padding = Base64Padding::kOptional,
                               .accept_both_alphabets = true});
  if (!out) return std::nullopt;
  return std::move(*out);
}

std::string ListKindJsonPrefix(const ResourceType& type, uint64_t rv, const std::string& cont,
                               int64_t remaining) {
  std::string out = R"({"kind":")" + type.list_kind + R"(","apiVersion":")" + type.GroupVersion() +
                    R"(","metadata":{"resourceVersion":")" + std::to_string(rv) + "\"";
  if (!cont.empty()) {
    out += R"(,"continue":")" + cont + "\"";
    if (remaining > 0) out += R"(,"remainingItemCount":)" + std::to_string(remaining);
  }
  out += R"(},"items":[)";
  return out;
}

// ProtobufMessage returns the object's protobuf message (no envelope), from its cache or encoded
// from its JSON and cached.
Result<std::shared_ptr<const std::string>> ProtobufMessage(const ResourceType& type, const StoredObject& obj) {
  if (auto cached = obj.protobuf.Get()) return cached;
  int message = protobuf::FindRootMessage(type.GroupVersion(), type.kind);
  if (message < 0) return MakeError(ErrorCode::kNotFound, "no protobuf encoding for " + type.kind);
  auto doc = json::Parse(obj.json);
  if (!doc) return std::unexpected(doc.error());
  auto raw = std::make_shared<std::string>();
  raw->reserve(obj.json.size());
  auto s = protobuf::EncodeMessage(message, *doc, *raw);
  if (!s) return std::unexpected(s.error());
  std::shared_ptr<const std::string> out = std::move(raw);
  obj.protobuf.Set(out);
  return out;
}

HttpResponse EncodingFailed(const ResourceType& type, const StoredObject& obj, const Error& error) {
  return StatusError(500, "InternalError",
                     "encoding " + type.kind + " " + obj.name + " as protobuf: " + error.message);
}

HttpResponse ProtobufResponse(std::string body) {
  HttpResponse r;
  r.content_type = std::string(protobuf::kProtobufMediaType);
  r.body = std::move(body);
  return r;
}

// StatusProtobuf: a meta.v1 Status as a protobuf body.
std::string StatusProtobuf(int code, std::string_view reason, std::string_view message) {
  auto doc = json::Parse(StatusJson(code, reason, message));
  if (doc) {
    json::SetString(*doc, "apiVersion", "v1", doc->GetAllocator());
    if (auto body = protobuf::EncodeKubernetesProtobuf(*doc)) return std::move(*body);
  }
  return protobuf::WrapUnknown("v1", "Status", "");  // unreachable: StatusJson is always encodable
}

}  // namespace

bool HasProtobufForm(const ResourceType& type) {
  return !type.is_crd && protobuf::FindRootMessage(type.GroupVersion(), type.kind) >= 0 &&
         protobuf::FindRootMessage(type.GroupVersion(), type.list_kind) >= 0;
}

std::string_view WatchContentType(ResponseMedia media) {
  return media == ResponseMedia::kProtobuf ? protobuf::kProtobufWatchMediaType : std::string_view("application/json");
}

bool WantsTable(const HttpRequest& request) {
  std::string_view accept = request.Header("accept");
  return accept.find("as=Table") != std::string_view::npos;
}

HttpResponse FormatObject(const HttpRequest& request, const ResourceType& type,
                          const ObjectPtr& obj, ResponseMedia media) {
  if (media == ResponseMedia::kProtobuf) {
    auto raw = ProtobufMessage(type, *obj);
    if (!raw) return EncodingFailed(type, *obj, raw.error());
    return ProtobufResponse(protobuf::WrapUnknown(type.GroupVersion(), type.kind, **raw));
  }
  HttpResponse r;
  if (WantsTable(request)) {
    r.body = TableFor(request, type, {obj.get()}, obj->resource_version, "", 0, true);
  } else {
    r.body = JsonInVersion(type, obj->json);
  }
  return r;
}

HttpResponse FormatList(const HttpRequest& request, const ResourceType& type,
                        const ListResult& page, ResponseMedia media) {
  HttpResponse r;
  std::string cont =
      page.next_key.empty() ? "" : EncodeContinue(page.resource_version, page.next_key, page.next_offset);
  if (media == ResponseMedia::kProtobuf) {
    auto list = protobuf::ListEncoder::Create(type.GroupVersion(), type.list_kind);
    if (!list) return StatusError(500, "InternalError", list.error().message);
    list->SetMetadata(std::to_string(page.resource_version), cont, page.remaining);
    for (const auto& o : page.items) {
      auto raw = ProtobufMessage(type, *o);
      if (!raw) return EncodingFailed(type, *o, raw.error());
      list->AddRaw(**raw);
    }
    return ProtobufResponse(list->Finish());
  }
  if (WantsTable(request)) {
    std::vector<const StoredObject*> objs;
    objs.reserve(page.items.size());
    for (const auto& o : page.items) objs.push_back(o.get());
    r.body = TableFor(request, type, objs, page.resource_version, cont, page.remaining, true);
    return r;
  }
  size_t size = 256;
  for (const auto& o : page.items) size += o->json.size() + 1;
  r.body.reserve(size);
  r.body = ListKindJsonPrefix(type, page.resource_version, cont, page.remaining);
  for (size_t i = 0; i < page.items.size(); ++i) {
    if (i) r.body += ',';
    if (type.multi_version) {
      r.body += JsonInVersion(type, page.items[i]->json);
    } else {
      r.body += page.items[i]->json;
    }
  }
  r.body += "]}";
  return r;
}

std::string WatchEventLine(const HttpRequest& request, const ResourceType& type,
                           std::string_view event_type, const StoredObject& obj, bool as_table,
                           bool first_table_event, ResponseMedia media) {
  if (media == ResponseMedia::kProtobuf) {
    auto raw = ProtobufMessage(type, obj);
    if (!raw) {
      return ErrorEventLine(500, "InternalError",
                            "encoding " + type.kind + " " + obj.name + " as protobuf: " + raw.error().message, media);
    }
    return protobuf::WatchEventFrame(event_type, protobuf::WrapUnknown(type.GroupVersion(), type.kind, **raw));
  }
  std::string line = R"({"type":")";
  line += event_type;
  line += R"(","object":)";
  if (as_table) {
    line += TableFor(request, type, {&obj}, obj.resource_version, "", 0, first_table_event);
  } else if (type.multi_version) {
    line += JsonInVersion(type, obj.json);
  } else {
    line += obj.json;
  }
  line += "}\n";
  return line;
}

std::string BookmarkLine(const ResourceType& type, uint64_t resource_version,
                         bool initial_events_end, ResponseMedia media) {
  if (media == ResponseMedia::kProtobuf) {
    // The object's message with only ObjectMeta {6 resourceVersion, 12 annotations}.
    protobuf::WireWriter meta;
    meta.String(6, std::to_string(resource_version));
    if (initial_events_end) {
      protobuf::WireWriter entry;
      entry.String(1, "k8s.io/initial-events-end");
      entry.String(2, "true");
      meta.Message(12, entry);
    }
    protobuf::WireWriter object;
    object.Message(1, meta);
    return protobuf::WatchEventFrame("BOOKMARK", protobuf::WrapUnknown(type.GroupVersion(), type.kind, object.data()));
  }
  std::string line = R"({"type":"BOOKMARK","object":{"kind":")" + type.kind +
                     R"(","apiVersion":")" + type.GroupVersion() +
                     R"(","metadata":{"resourceVersion":")" + std::to_string(resource_version) +
                     "\"";
  if (initial_events_end) {
    line += R"(,"annotations":{"k8s.io/initial-events-end":"true"})";
  }
  line += "}}}\n";
  return line;
}

std::string ErrorEventLine(int code, std::string_view reason, std::string_view message, ResponseMedia media) {
  if (media == ResponseMedia::kProtobuf) return protobuf::WatchEventFrame("ERROR", StatusProtobuf(code, reason, message));
  return R"({"type":"ERROR","object":)" + StatusJson(code, reason, message) + "}\n";
}

std::string EncodeContinue(uint64_t resource_version, const std::string& last_key, uint64_t offset) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("v", "meta.k8s.io/v1", a);
  doc.AddMember("rv", resource_version, a);
  json::SetString(doc, "start", last_key + std::string(1, '\0'), a);
  if (offset > 0) doc.AddMember("offset", offset, a);
  return Base64UrlEncode(json::Serialize(doc));
}

std::string EncodeContinueAtLatest(const std::string& last_key) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("v", "meta.k8s.io/v1", a);
  doc.AddMember("rv", -1, a);
  json::SetString(doc, "start", last_key + std::string(1, '\0'), a);
  return Base64UrlEncode(json::Serialize(doc));
}

std::expected<ContinueToken, std::string> DecodeContinue(std::string_view token) {
  auto raw = Base64UrlDecode(token);
  if (!raw) return std::unexpected("illegal base64 data");
  auto doc = json::Parse(*raw);
  if (!doc || !doc->IsObject()) return std::unexpected("invalid JSON");
  const auto* v = json::Member(*doc, "v");
  const auto* rv = json::Member(*doc, "rv");
  const auto* start = json::Member(*doc, "start");
  if (!v || !v->IsString() || std::string_view(v->GetString()) != "meta.k8s.io/v1") {
    return std::unexpected("unsupported version");
  }
  // rv -1: the token of a 410 for an expired continue, which continues at the latest state.
  bool at_latest = rv && rv->IsInt64() && rv->GetInt64() == -1;
  if (!rv || (!at_latest && (!rv->IsUint64() || rv->GetUint64() == 0)) || !start || !start->IsString()) {
    return std::unexpected("incorrect encoded start resourceVersion");
  }
  std::string key(start->GetString(), start->GetStringLength());
  if (!key.empty() && key.back() == '\0') key.pop_back();
  uint64_t offset = 0;
  if (const auto* o = json::Member(*doc, "offset"); o && o->IsUint64()) offset = o->GetUint64();
  return ContinueToken{at_latest ? uint64_t{0} : rv->GetUint64(), key, offset};
}

}  // namespace berth::kubesim
