// clientgo-shim/base/json_insitu.h
//
// In-place parsing for large bodies the caller owns (the informers' LIST pages). Apart from
// json.h so that the many users of json.h do not depend on it.
#pragma once

#include <string>

#include <rapidjson/error/error.h>
#include <rapidjson/stream.h>

#include "clientgo-shim/base/json.h"

namespace berth::json {

// ParseInsitu is Parse on a buffer it may rewrite: strings are unescaped in place and the
// document's strings point into `text`, which must outlive the document and not be resized.
// Saves copying every string. Accepts and rejects what Parse does (the same error texts).
Result<Document> ParseInsitu(std::string& text);

// InsituCursor walks one JSON text in place for a caller that reads the root's structure itself
// and parses the values inside it one at a time (a LIST page item by item, each item's document
// built, used and dropped while in cache). Same acceptance and error texts as ParseInsitu; offsets
// are from the text's start. Thread-compatible.
class InsituCursor {
 public:
  explicit InsituCursor(std::string& text) : stream_(text.data()) {}
  // Peek: the next byte after whitespace ('\0' at the end of the text).
  char Peek();
  // Consume takes the next byte after whitespace if it is `c`.
  bool Consume(char c);
  // ParseValue parses the next value into `doc` (its allocator), strings pointing into the text.
  Status ParseValue(Document& doc);
  // Finish: after the root, only whitespace up to the end or a NUL byte.
  Status Finish();
  // Invalid: the parser's error `code` at the current offset, as ParseInsitu words it.
  Error Invalid(rapidjson::ParseErrorCode code);

 private:
  rapidjson::InsituStringStream stream_;
};

}  // namespace berth::json
