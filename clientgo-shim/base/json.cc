#include "clientgo-shim/base/json.h"
#include "clientgo-shim/base/json_insitu.h"

#include <cmath>
#include <cstdint>

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace berth::json {

namespace {

// FiniteNumbers forwards RapidJSON's SAX events to a Document and refuses a number that
// overflowed to ±infinity: RapidJSON 1.1.0 reads "5e308" as inf without an error (its exponent
// check stops at e308), and such a value cannot be written back (the Writer refuses inf), so a
// document that parsed would not survive Serialize. kube-apiserver (Go's encoding/json) rejects
// these numbers too ("value out of range").
template <typename Handler>
struct FiniteNumbers {
  Handler& out;
  bool overflow = false;
  bool Null() { return out.Null(); }
  bool Bool(bool b) { return out.Bool(b); }
  bool Int(int i) { return out.Int(i); }
  bool Uint(unsigned u) { return out.Uint(u); }
  bool Int64(int64_t i) { return out.Int64(i); }
  bool Uint64(uint64_t u) { return out.Uint64(u); }
  bool Double(double d) {
    if (!std::isfinite(d)) {
      overflow = true;
      return false;
    }
    return out.Double(d);
  }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) { return out.RawNumber(s, n, copy); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return out.String(s, n, copy); }
  bool StartObject() { return out.StartObject(); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return out.Key(s, n, copy); }
  bool EndObject(rapidjson::SizeType members) { return out.EndObject(members); }
  bool StartArray() { return out.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return out.EndArray(elements); }
};

// PopulateFinite parses one value from `stream` into `doc` (Populate hands the Document itself to
// the reader as the SAX handler and moves the root off its stack on success, as Document::Parse
// does), refusing a number a double cannot hold; errors name the offset.
template <unsigned Flags, typename Stream>
Status PopulateFinite(Document& doc, Stream& stream) {
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  bool overflow = false;
  auto generate = [&](Document& handler) {
    FiniteNumbers<Document> finite{handler};
    result = reader.Parse<Flags>(stream, finite);
    overflow = finite.overflow;
    return !result.IsError();
  };
  doc.Populate(generate);
  if (overflow) {
    return MakeError(ErrorCode::kInvalidArgument, "invalid JSON at offset " + std::to_string(result.Offset()) +
                                                      ": Number too big to be stored in double.");
  }
  if (result.IsError()) {
    return MakeError(ErrorCode::kInvalidArgument, "invalid JSON at offset " + std::to_string(result.Offset()) +
                                                      ": " + rapidjson::GetParseError_En(result.Code()));
  }
  return {};
}

constexpr unsigned kInsituFlags = rapidjson::kParseInsituFlag | rapidjson::kParseStopWhenDoneFlag;

template <unsigned kFlags>
Result<Document> ParseWith(std::string_view text) {
  Document doc;
  rapidjson::MemoryStream bytes(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(bytes);
  if (Status parsed = PopulateFinite<kFlags>(doc, stream); !parsed) return std::unexpected(parsed.error());
  return doc;
}

}  // namespace

Result<Document> ParseInsitu(std::string& text) {
  Document doc;
  rapidjson::InsituStringStream stream(text.data());
  if (Status parsed = PopulateFinite<kInsituFlags>(doc, stream); !parsed) return std::unexpected(parsed.error());
  // kParseStopWhenDoneFlag stops at the root's end; what follows may only be whitespace up to the
  // end or a NUL byte, which is where Parse's stream ends too.
  const size_t rest = text.find_first_not_of(" \t\r\n", static_cast<size_t>(stream.Tell()));
  if (rest != std::string::npos && text[rest] != '\0') {
    return MakeError(ErrorCode::kInvalidArgument, "invalid JSON at offset " + std::to_string(rest) +
                                                      ": The document root must not be followed by other values.");
  }
  return doc;
}

char InsituCursor::Peek() {
  for (;;) {
    const char c = stream_.Peek();
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c;
    stream_.Take();
  }
}

bool InsituCursor::Consume(char c) {
  if (Peek() != c || c == '\0') return false;
  stream_.Take();
  return true;
}

Status InsituCursor::ParseValue(Document& doc) { return PopulateFinite<kInsituFlags>(doc, stream_); }

Status InsituCursor::Finish() {
  if (Peek() == '\0') return {};
  return MakeError(ErrorCode::kInvalidArgument, "invalid JSON at offset " + std::to_string(stream_.Tell()) +
                                                    ": The document root must not be followed by other values.");
}

Error InsituCursor::Invalid(rapidjson::ParseErrorCode code) {
  return MakeError(ErrorCode::kInvalidArgument, "invalid JSON at offset " + std::to_string(stream_.Tell()) + ": " +
                                                    rapidjson::GetParseError_En(code))
      .error();
}

Result<Document> Parse(std::string_view text) { return ParseWith<rapidjson::kParseDefaultFlags>(text); }

bool NestsDeeperThan(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, a quote included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

Result<Document> ParseIterative(std::string_view text) {
  return ParseWith<rapidjson::kParseIterativeFlag>(text);
}

std::string Serialize(const Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

const Value* Member(const Value& root, std::string_view key) {
  if (!root.IsObject()) return nullptr;
  auto it = root.FindMember(KeyOf(key));
  return it == root.MemberEnd() ? nullptr : &it->value;
}

const Value* Find(const Value& root, std::initializer_list<std::string_view> path) {
  const Value* cur = &root;
  for (std::string_view key : path) {
    cur = Member(*cur, key);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

Value* FindMutable(Value& root, std::initializer_list<std::string_view> path) {
  return const_cast<Value*>(Find(root, path));
}

std::string_view GetString(const Value& root, std::initializer_list<std::string_view> path,
                           std::string_view fallback) {
  const Value* v = Find(root, path);
  if (v == nullptr || !v->IsString()) return fallback;
  return std::string_view(v->GetString(), v->GetStringLength());
}

Value& EnsureObject(Value& root, std::string_view key, Document::AllocatorType& alloc) {
  auto it = root.FindMember(KeyOf(key));
  if (it == root.MemberEnd()) {
    root.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc),
                   Value(rapidjson::kObjectType), alloc);
    return (root.MemberEnd() - 1)->value;
  }
  if (!it->value.IsObject()) it->value.SetObject();
  return it->value;
}

void SetMember(Value& root, std::string_view key, Value&& value, Document::AllocatorType& alloc) {
  auto it = root.FindMember(KeyOf(key));
  if (it != root.MemberEnd()) {
    it->value = std::move(value);
    return;
  }
  root.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc),
                 std::move(value), alloc);
}

void SetString(Value& root, std::string_view key, std::string_view value,
               Document::AllocatorType& alloc) {
  // A default-constructed view has a null data(); RapidJSON would memcpy from it.
  const char* data = value.empty() ? "" : value.data();
  SetMember(root, key, Value(data, static_cast<rapidjson::SizeType>(value.size()), alloc), alloc);
}

bool RemoveMember(Value& root, std::string_view key) {
  if (!root.IsObject()) return false;
  auto it = root.FindMember(KeyOf(key));
  if (it == root.MemberEnd()) return false;
  root.EraseMember(it);
  return true;
}

}  // namespace berth::json
