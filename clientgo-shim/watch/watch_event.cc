#include "clientgo-shim/watch/watch_event.h"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_insitu.h"
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

namespace {

Result<ListPage> ListPageOf(Result<rapidjson::Document> doc) {
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

// MetadataScanner: SAX handler that records the root's metadata.{resourceVersion,continue}
// and stops at the root's "items" once metadata has been read.
struct MetadataScanner : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, MetadataScanner> {
  enum class Field { kOther, kResourceVersion, kContinue };
  int depth = 0;
  bool not_object = false;
  bool in_metadata = false;    // inside the root's "metadata" object (at depth 2)
  bool metadata_read = false;  // that object has ended
  bool next_is_metadata = false;
  bool stopped_at_items = false;
  Field field = Field::kOther;
  ListMetadata out;

  bool Default() {
    if (depth == 0) not_object = true;
    return !not_object;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (depth == 0) return Default();
    if (in_metadata && depth == 2) {
      if (field == Field::kResourceVersion) out.resource_version.assign(s, n);
      if (field == Field::kContinue) out.continue_token.assign(s, n);
    }
    return true;
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    const std::string_view key(s, n);
    if (depth == 1) {
      if (key == "items" && metadata_read) {
        stopped_at_items = true;
        return false;
      }
      // A repeated "metadata": the DOM keeps the first, so the scan does too.
      next_is_metadata = key == "metadata" && !metadata_read;
    } else if (in_metadata && depth == 2) {
      field = key == "resourceVersion" ? Field::kResourceVersion
              : key == "continue"      ? Field::kContinue
                                       : Field::kOther;
    }
    return true;
  }
  bool StartObject() {
    ++depth;
    if (depth == 2 && next_is_metadata) in_metadata = true;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    if (depth == 2 && in_metadata) {
      in_metadata = false;
      metadata_read = true;
    }
    --depth;
    return true;
  }
  bool StartArray() {
    if (depth == 0) return Default();
    ++depth;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --depth;
    return true;
  }
};

}  // namespace

Result<ListPage> DecodeListPage(std::string_view text) { return ListPageOf(json::Parse(text)); }

Result<ListPage> DecodeListPageInsitu(std::string& text) {
  return ListPageOf(json::ParseInsitu(text));
}

Result<ListMetadata> DecodeListItemsInsitu(std::string& body, const JsonListItemFn& on_item) {
  const auto list_error = [](Error e) {
    e.code = ErrorCode::kDecode;
    e.message = "list: " + e.message;
    return std::unexpected(std::move(e));
  };
  json::InsituCursor cursor(body);
  if (cursor.Peek() != '{') {
    // Not an object: the document parse says why (invalid JSON, or valid but not an object).
    auto page = DecodeListPageInsitu(body);
    if (!page) return std::unexpected(page.error());
    return std::unexpected(Decode("list: body is not a JSON object"));
  }
  cursor.Consume('{');
  char first_chunk[32 << 10];  // a pod's nodes fit: no malloc per item
  rapidjson::MemoryPoolAllocator<> alloc(first_chunk, sizeof(first_chunk));
  rapidjson::Document item(&alloc);
  rapidjson::Document key;      // one root member name at a time
  rapidjson::Document other;    // a root member's value other than the items
  rapidjson::Document metadata;  // the first "metadata"
  bool metadata_seen = false, items_seen = false;
  for (bool first = true;; first = false) {
    if (cursor.Consume('}')) {
      if (!first) return list_error(cursor.Invalid(rapidjson::kParseErrorObjectMissName));
      break;
    }
    if (cursor.Peek() != '"') return list_error(cursor.Invalid(rapidjson::kParseErrorObjectMissName));
    if (auto st = cursor.ParseValue(key); !st) return list_error(st.error());
    const std::string_view name(key.GetString(), key.GetStringLength());
    if (!cursor.Consume(':')) return list_error(cursor.Invalid(rapidjson::kParseErrorObjectMissColon));
    if (name == "items" && !items_seen) {
      items_seen = true;
      if (cursor.Consume('[')) {
        for (bool first_item = true;; first_item = false) {
          if (cursor.Consume(']')) {
            if (!first_item) return list_error(cursor.Invalid(rapidjson::kParseErrorValueInvalid));
            break;
          }
          if (auto st = cursor.ParseValue(item); !st) return list_error(st.error());
          if (auto st = on_item(item, alloc); !st) return std::unexpected(st.error());
          item.SetNull();
          alloc.Clear();
          if (cursor.Consume(',')) continue;
          if (cursor.Consume(']')) break;
          return list_error(cursor.Invalid(rapidjson::kParseErrorArrayMissCommaOrSquareBracket));
        }
      } else {
        if (auto st = cursor.ParseValue(other); !st) return list_error(st.error());
        if (!other.IsNull()) return std::unexpected(Decode("list: items is not an array"));
      }
    } else if (name == "metadata" && !metadata_seen) {
      metadata_seen = true;
      if (auto st = cursor.ParseValue(metadata); !st) return list_error(st.error());
    } else {
      if (auto st = cursor.ParseValue(other); !st) return list_error(st.error());
    }
    if (cursor.Consume(',')) continue;
    if (cursor.Consume('}')) break;
    return list_error(cursor.Invalid(rapidjson::kParseErrorObjectMissCommaOrCurlyBracket));
  }
  if (auto st = cursor.Finish(); !st) return list_error(st.error());
  ListMetadata out;
  out.resource_version = std::string(json::GetString(metadata, {"resourceVersion"}));
  out.continue_token = std::string(json::GetString(metadata, {"continue"}));
  return out;
}

Result<ListMetadata> ScanListMetadata(std::string_view text) {
  MetadataScanner scanner;
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::Reader reader;
  rapidjson::ParseResult result = reader.Parse(bytes, scanner);
  if (scanner.not_object) return std::unexpected(Decode("list: body is not a JSON object"));
  if (result.IsError() && !scanner.stopped_at_items) {
    return std::unexpected(Decode("list: invalid JSON at offset " + std::to_string(result.Offset()) +
                                  ": " + rapidjson::GetParseError_En(result.Code())));
  }
  return std::move(scanner.out);
}

Result<ListMetadata> ScanListMetadataAs(std::string_view content_type, std::string_view body) {
  if (!proto::IsProtobufContentType(content_type)) return ScanListMetadata(body);
  auto meta = proto::ScanListMeta(body);
  if (!meta) return std::unexpected(meta.error());
  return ListMetadata{std::move(meta->resource_version), std::move(meta->continue_token)};
}

}  // namespace berth::shim
