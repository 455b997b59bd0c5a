// clientgo-shim/watch/watch_event.h
//
// Decoding of one JSON watch event line ({"type":"ADDED","object":{…}}, metav1.WatchEvent) or
// protobuf watch frame, and of a LIST response body (JSON or protobuf). Pure functions; malformed input is an error, never a crash.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

// WatchEvent: one decoded event; `object` is the document's "object" member (moved out).
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  rapidjson::Document object;
  // ResourceVersion is object.metadata.resourceVersion ("" when absent).
  std::string ResourceVersion() const;
};

// DecodeWatchEvent parses one line. Errors: kDecode for invalid JSON, a missing or unknown
// "type", or an "object" that is not a JSON object.
Result<WatchEvent> DecodeWatchEvent(std::string_view line);

// ErrorFromStatusObject turns the Status carried by an ERROR event into an Error: the code from
// the Status code and reason (410 Expired → kGone), its message and reason.
Error ErrorFromStatusObject(const rapidjson::Value& status);

// ListPage: a decoded LIST response body.
struct ListPage {
  rapidjson::Document body;  // owns the items
  std::string resource_version;
  std::string continue_token;
  // Items points into body["items"] (an array; empty when absent).
  const rapidjson::Value& Items() const;
};

// DecodeProtobufWatchEvent decodes one protobuf watch frame (proto/protobuf_codec.h) into the
// same WatchEvent a JSON line gives. Errors: kInvalidArgument for a malformed frame.
Result<WatchEvent> DecodeProtobufWatchEvent(std::string_view frame);

// DecodeListPageAs decodes a LIST body by its Content-Type: protobuf (a PodList or NodeList) or
// else JSON (DecodeListPage). Errors: as the decoder chosen.
Result<ListPage> DecodeListPageAs(std::string_view content_type, std::string_view body);

// DecodeListPage parses a LIST body. Errors: kDecode for invalid JSON, a non-object body, or an
// "items" member that is not an array.
Result<ListPage> DecodeListPage(std::string_view body);
// DecodeListPageInsitu is DecodeListPage parsing in place (json::ParseInsitu): the page's
// strings point into `body`, which must outlive the page. Same errors.
Result<ListPage> DecodeListPageInsitu(std::string& body);

// ListMetadata: what the reflector needs from a LIST page before decoding its items.
struct ListMetadata {
  std::string resource_version;  // metadata.resourceVersion ("" when absent)
  std::string continue_token;    // metadata.continue ("" when absent: the last page)
};

// ListItemFn receives one item of a JSON LIST page; it may edit the item, allocating from
// `alloc`. The item and `alloc`'s memory are reused for the next item: valid only during the
// call. An error stops the page.
using JsonListItemFn = std::function<Status(rapidjson::Value& item, rapidjson::Document::AllocatorType& alloc)>;
// DecodeListItemsInsitu is DecodeListPageInsitu item by item: the root object is walked here and
// each item of the root's (first) "items" array is parsed into a small document reused for the
// next, so an item is parsed, handed to `on_item` and dropped while it is in cache (a page's
// whole document is megabytes). Returns the root metadata's resourceVersion and continue (the
// first "metadata", as the document would give). Same acceptance and errors as
// DecodeListPageInsitu, or the first error of `on_item`; items before a malformed part of the
// page have been handed over by then.
Result<ListMetadata> DecodeListItemsInsitu(std::string& body, const JsonListItemFn& on_item);

// ScanListMetadata reads a LIST body's metadata without building a DOM (SAX, no allocation
// beyond the two strings), so the next page can be requested while this one is decoded. It
// stops at the root's "items" once "metadata" has been read (kube-apiserver writes metadata
// first); otherwise it reads to the end. Items are not checked here; DecodeListPage does that.
// Errors: kDecode for invalid JSON in the part read, or a body that is not a JSON object.
Result<ListMetadata> ScanListMetadata(std::string_view body);
// ScanListMetadataAs is ScanListMetadata by Content-Type: a protobuf body's ListMeta is read
// without parsing its items (proto::ScanListMeta); anything else is scanned as JSON.
// Errors: kDecode / kInvalidArgument from the scanner chosen (a protobuf answer without the
// k8s\0 magic is an error, never read as JSON).
Result<ListMetadata> ScanListMetadataAs(std::string_view content_type, std::string_view body);

}  // namespace berth::shim
