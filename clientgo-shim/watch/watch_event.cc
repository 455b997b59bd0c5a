#include "clientgo-shim/watch/watch_event.h"

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/proto/protobuf_codec.h"
#include "clientgo-shim/transport/api_error.h"

namespace berth::shim {
namespace {

Error Decode(std::string message) { return Error{ErrorCode::kDecode, std::move(message), 0, {}, {}}; }

}  // namespace

std::string WatchEvent::ResourceVersion() const {
  return std::string(json::GetString(object, {"metadata", "resourceVersion"}));
}

namespace {

Result<WatchEventType> ParseWatchEventType(std::string_view type) {
  if (type == "ADDED") return WatchEventType::kAdded;
  if (type == "MODIFIED") return WatchEventType::kModified;
  if (type == "DELETED") return WatchEventType::kDeleted;
  if (type == "BOOKMARK") return WatchEventType::kBookmark;
  if (type == "ERROR") return WatchEventType::kError;
  return std::unexpected(Decode("watch event: unknown type \"" + std::string(type.substr(0, 64)) + "\""));
}

}  // namespace

Result<WatchEvent> DecodeProtobufWatchEvent(std::string_view frame) {
  auto decoded = proto::DecodeWatchFrame(frame);
  if (!decoded) return std::unexpected(decoded.error());
  auto type = ParseWatchEventType(decoded->type);
  if (!type) return std::unexpected(type.error());
  WatchEvent ev;
  ev.type = *type;
  ev.object = std::move(decoded->object);
  return ev;
}

Result<ListPage> DecodeListPageAs(std::string_view content_type, std::string_view body) {
  if (!proto::IsProtobufContentType(content_type)) return DecodeListPage(body);
  auto list = proto::DecodeList(body);
  if (!list) return std::unexpected(list.error());
  ListPage page;
  page.body = std::move(list->body);
  page.resource_version = std::move(list->resource_version);
  page.continue_token = std::move(list->continue_token);
  return page;
}

Result<WatchEvent> DecodeWatchEvent(std::string_view line) {
  auto doc = json::Parse(line);
  if (!doc) return std::unexpected(Decode("watch event: " + doc.error().message));
  if (!doc->IsObject()) return std::unexpected(Decode("watch event: not a JSON object"));
  std::string_view type = json::GetString(*doc, {"type"});
  WatchEvent ev;
  if (type == "ADDED") {
    ev.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    ev.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    ev.type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    ev.type = WatchEventType::kBookmark;
  } else if (type == "ERROR") {
    ev.type = WatchEventType::kError;
  } else {
    return std::unexpected(Decode("watch event: unknown type \"" +
                                  std::string(type.substr(0, 64)) + "\""));
  }
  auto it = doc->FindMember("object");
  if (it == doc->MemberEnd() || !it->value.IsObject()) {
    return std::unexpected(Decode("watch event " + std::string(type) + ": object is missing"));
  }
  // Move the object into its own document; its strings live in doc's allocator, so copy.
  ev.object.CopyFrom(it->value, ev.object.GetAllocator());
  return ev;
}

Error ErrorFromStatusObject(const rapidjson::Value& status) {
  int code = 0;
  if (const rapidjson::Value* c = json::Member(status, "code"); c && c->IsInt()) code = c->GetInt();
  ApiStatus s = DecodeApiStatus(code, json::Serialize(status));
  Error e;
  e.code = ErrorCodeForHttpStatus(s.code ? s.code : 500, s.reason);
  if (s.reason == "Expired" || s.reason == "Gone") e.code = ErrorCode::kGone;
  e.http_status = s.code;
  e.reason = s.reason;
  e.message = s.message;
  e.retry_after = s.retry_after;
  return e;
}

const rapidjson::Value& ListPage::Items() const {
  static const rapidjson::Value kEmpty(rapidjson::kArrayType);
  const rapidjson::Value* items = json::Member(body, "items");
  return items && items->IsArray() ? *items : kEmpty;
}

Result<ListPage> DecodeListPage(std::string_view text) {
  auto doc = json::Parse(text);
  if (!doc) return std::unexpected(Decode("list: " + doc.error().message));
  if (!doc->IsObject()) return std::unexpected(Decode("list: body is not a JSON object"));
  if (const rapidjson::Value* items = json::Member(*doc, "items");
      items && !items->IsArray() && !items->IsNull()) {
    return std::unexpected(Decode("list: items is not an array"));
  }
  ListPage page;
  page.resource_version = std::string(json::GetString(*doc, {"metadata", "resourceVersion"}));
  page.continue_token = std::string(json::GetString(*doc, {"metadata", "continue"}));
  page.body = std::move(*doc);
  return page;
}

}  // namespace berth::shim
