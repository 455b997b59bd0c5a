#include "e2e/kubesim/api/response_format.h"

#include <rapidjson/document.h>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
    out += kB64[n & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kB64[(n >> 18) & 63];
    out += kB64[(n >> 12) & 63];
    out += kB64[(n >> 6) & 63];
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  std::string out;
  uint32_t buf = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = std::char_traits<char>::find(kB64, 64, c);
    if (c == '+') p = kB64 + 62;  // tolerate the standard alphabet
    if (c == '/') p = kB64 + 63;
    if (!p) return std::nullopt;
    buf = (buf << 6) | uint32_t(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += char((buf >> bits) & 0xFF);
    }
  }
  return out;
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

}  // namespace

bool WantsTable(const HttpRequest& request) {
  std::string_view accept = request.Header("accept");
  return accept.find("as=Table") != std::string_view::npos;
}

HttpResponse FormatObject(const HttpRequest& request, const ResourceType& type,
                          const ObjectPtr& obj) {
  HttpResponse r;
  if (WantsTable(request)) {
    r.body = TableFor(request, type, {obj.get()}, obj->resource_version, "", 0, true);
  } else {
    r.body = obj->json;
  }
  return r;
}

HttpResponse FormatList(const HttpRequest& request, const ResourceType& type,
                        const ListResult& page) {
  HttpResponse r;
  std::string cont =
      page.next_key.empty() ? "" : EncodeContinue(page.resource_version, page.next_key, page.next_offset);
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
    r.body += page.items[i]->json;
  }
  r.body += "]}";
  return r;
}

std::string WatchEventLine(const HttpRequest& request, const ResourceType& type,
                           std::string_view event_type, const StoredObject& obj, bool as_table,
                           bool first_table_event) {
  std::string line = R"({"type":")";
  line += event_type;
  line += R"(","object":)";
  if (as_table) {
    line += TableFor(request, type, {&obj}, obj.resource_version, "", 0, first_table_event);
  } else {
    line += obj.json;
  }
  line += "}\n";
  return line;
}

std::string BookmarkLine(const ResourceType& type, uint64_t resource_version,
                         bool initial_events_end) {
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
