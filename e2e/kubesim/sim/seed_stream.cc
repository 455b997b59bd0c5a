#include "e2e/kubesim/sim/seed_stream.h"

#include <array>
#include <cmath>
#include <optional>
#include <spanstream>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::SizeType;

// ByteStream: a RapidJSON input stream over a streambuf, read in 64 KB blocks. While `record_`
// is set, every byte taken is appended to it: the SAX pass copies out the text of one List item
// without building its tree.
class ByteStream {
 public:
  using Ch = char;
  explicit ByteStream(std::streambuf& in, uint64_t base_offset = 0) : in_(in), base_(base_offset) {}

  Ch Peek() { return (pos_ < len_ || Refill()) ? buf_[pos_] : '\0'; }
  Ch Take() {
    if (pos_ == len_ && !Refill()) return '\0';
    Ch c = buf_[pos_++];
    if (record_ != nullptr) record_->push_back(c);
    return c;
  }
  size_t Tell() const { return base_ + pos_; }
  bool AtEnd() { return pos_ == len_ && !Refill(); }
  void Record(std::string* to) { record_ = to; }
  // What is buffered and not yet taken (at least one byte unless AtEnd), for sniffing.
  std::string_view Buffered() {
    if (pos_ == len_) Refill();
    return {buf_.data() + pos_, len_ - pos_};
  }

  // Output half of the stream concept; never called by a non-in-situ Reader.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

 private:
  bool Refill() {
    base_ += len_;
    pos_ = 0;
    std::streamsize n = in_.sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    len_ = n > 0 ? static_cast<size_t>(n) : 0;
    return len_ > 0;
  }

  std::streambuf& in_;
  std::array<char, 1 << 16> buf_{};
  size_t pos_ = 0, len_ = 0;
  uint64_t base_ = 0;  // offset of buf_[0]
  std::string* record_ = nullptr;
};

bool IsListKind(std::string_view kind) { return kind.size() >= 4 && kind.ends_with("List"); }

// ApplyListDefaults gives an item of a typed list ("PodList") the apiVersion and kind that
// kube-apiserver leaves out of list items. A plain "List" carries them in every item.
void ApplyListDefaults(Document& item, std::string_view list_kind, std::string_view list_api_version) {
  if (list_kind == "List" || !item.IsObject()) return;
  auto& a = item.GetAllocator();
  if (json::GetString(item, {"kind"}).empty()) {
    json::SetString(item, "kind", list_kind.substr(0, list_kind.size() - 4), a);
  }
  if (json::GetString(item, {"apiVersion"}).empty() && !list_api_version.empty()) {
    json::SetString(item, "apiVersion", list_api_version, a);
  }
}

Status PositionError(const std::string& source, const SeedPosition& at, const std::string& message) {
  return MakeError(ErrorCode::kInvalidArgument, source + ": " + at.Describe() + ": " + message);
}

// ItemBuilder: SAX events to one Document, for a List item read in the middle of the List's own
// parse (RapidJSON's Document can only be the handler of a whole parse, through Populate).
class ItemBuilder {
 public:
  bool Null() { return Add(rapidjson::Value()); }
  bool Bool(bool b) { return Add(rapidjson::Value(b)); }
  bool Int(int i) { return Add(rapidjson::Value(i)); }
  bool Uint(unsigned u) { return Add(rapidjson::Value(u)); }
  bool Int64(int64_t i) { return Add(rapidjson::Value(i)); }
  bool Uint64(uint64_t u) { return Add(rapidjson::Value(u)); }
  bool Double(double d) { return Add(rapidjson::Value(d)); }
  bool String(const char* s, SizeType n, bool) { return Add(rapidjson::Value(s, n, doc_.GetAllocator())); }
  bool Key(const char* s, SizeType n, bool) {
    key_.SetString(s, n, doc_.GetAllocator());
    return true;
  }
  bool StartObject() { return Open(rapidjson::kObjectType); }
  bool StartArray() { return Open(rapidjson::kArrayType); }
  bool EndObject() { return Close(); }
  bool EndArray() { return Close(); }
  // Take returns the finished item and starts a new one.
  Document Take() {
    Document done;
    done.Swap(doc_);
    open_.clear();
    return done;
  }

 private:
  bool Open(rapidjson::Type type) {
    if (open_.empty()) {
      if (type == rapidjson::kArrayType) {
        doc_.SetArray();
      } else {
        doc_.SetObject();
      }
      open_.push_back(&doc_);
      return true;
    }
    open_.push_back(Add(rapidjson::Value(type)) ? last_ : nullptr);
    return open_.back() != nullptr;
  }
  bool Close() {
    if (open_.empty()) return false;
    open_.pop_back();
    return true;
  }
  // Add appends to the innermost open container. Pointers to open containers stay valid: only
  // the innermost one's storage grows, and it holds no open container.
  bool Add(rapidjson::Value&& v) {
    if (open_.empty()) return false;
    rapidjson::Value& top = *open_.back();
    auto& a = doc_.GetAllocator();
    if (top.IsObject()) {
      top.AddMember(key_, v, a);
      last_ = &(top.MemberEnd() - 1)->value;
    } else {
      top.PushBack(v, a);
      last_ = &top[top.Size() - 1];
    }
    return true;
  }

  Document doc_;
  std::vector<rapidjson::Value*> open_;
  rapidjson::Value key_;
  rapidjson::Value* last_ = nullptr;
};

// JsonStreamReader: concatenated JSON values from one ByteStream, each an object. One SAX pass
// per value builds the top-level object (RapidJSON's Document is the handler the events are
// forwarded to), except the elements of a List's `items`: each is built (ItemBuilder) and handed
// on alone, so only one item's tree exists at a time; items read before the List's kind is known
// are kept as text and parsed at the end.
class JsonStreamReader {
 public:
  JsonStreamReader(ByteStream& stream, const std::string& source, const SeedSink& sink,
                   std::optional<size_t> fixed_document = std::nullopt)
      : stream_(stream), source_(source), sink_(sink), fixed_document_(fixed_document) {}

  Status Run() {
    rapidjson::Reader reader;
    while (true) {
      while (true) {
        char c = stream_.Peek();
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
        stream_.Take();
      }
      if (stream_.AtEnd()) return {};
      StartDocument();
      Document top;
      rapidjson::ParseResult result;
      // Populate hands `top` to the generator as the handler and moves the root off its stack
      // on success, exactly as Document::Parse does (clientgo-shim/base/json.cc does the same).
      auto generate = [&](Document& handler) {
        out_ = &handler;
        result = reader.Parse<rapidjson::kParseStopWhenDoneFlag>(stream_, *this);
        return !result.IsError();
      };
      top.Populate(generate);
      out_ = nullptr;
      stream_.Record(nullptr);
      if (!error_ && result.IsError()) {
        error_ = PositionError(source_, {document_, -1, result.Offset()},
                               std::string("invalid JSON: ") + rapidjson::GetParseError_En(result.Code()));
      }
      if (error_) return *error_;
      if (auto s = FinishDocument(std::move(top)); !s) return s;
    }
  }

  // ---- RapidJSON SAX handler: events outside List items go on to the top-level Document ----
  bool Null() { return Scalar() && (Skip() ? (!building_ || item_.Null()) : out_->Null()); }
  bool Bool(bool b) { return Scalar() && (Skip() ? (!building_ || item_.Bool(b)) : out_->Bool(b)); }
  bool Int(int i) { return Scalar() && (Skip() ? (!building_ || item_.Int(i)) : out_->Int(i)); }
  bool Uint(unsigned u) { return Scalar() && (Skip() ? (!building_ || item_.Uint(u)) : out_->Uint(u)); }
  bool Int64(int64_t i) { return Scalar() && (Skip() ? (!building_ || item_.Int64(i)) : out_->Int64(i)); }
  bool Uint64(uint64_t u) { return Scalar() && (Skip() ? (!building_ || item_.Uint64(u)) : out_->Uint64(u)); }
  bool Double(double d) {
    // RapidJSON 1.1.0 reads "5e308" as inf without an error; kube-apiserver refuses it, and so
    // does json::Parse (which List items go through).
    if (!std::isfinite(d)) {
      error_ = PositionError(source_, {document_, in_items_ ? item_index_ : -1, stream_.Tell()},
                             "invalid JSON: Number too big to be stored in double.");
      return false;
    }
    return Scalar() && (Skip() ? (!building_ || item_.Double(d)) : out_->Double(d));
  }
  // Not emitted: the reader runs without kParseNumbersAsStringsFlag.
  bool RawNumber(const char*, SizeType, bool) { return false; }
  bool String(const char* s, SizeType n, bool copy) {
    if (depth_ == 1 && key_ == "kind") kind_.emplace(s, n);
    if (depth_ == 1 && key_ == "apiVersion") api_version_.emplace(s, n);
    return Scalar() && (Skip() ? (!building_ || item_.String(s, n, copy)) : out_->String(s, n, copy));
  }
  bool Key(const char* s, SizeType n, bool copy) {
    if (depth_ == 1) key_.assign(s, n);
    return Skip() ? (!building_ || item_.Key(s, n, copy)) : out_->Key(s, n, copy);
  }
  bool StartObject() {
    if (in_items_ && depth_ == 2) {
      item_offset_ = stream_.Tell() - 1;
      // With the list's kind (and a typed list's apiVersion) known, the item is built as it is
      // read; before that its text is kept (JSON does not order members), starting with the '{'
      // already taken.
      building_ = kind_ && (*kind_ == "List" || api_version_);
      if (!building_) {
        item_text_.assign("{");
        stream_.Record(&item_text_);
      }
    }
    if (depth_ == 1 && key_ == "items") items_not_array_ = true;
    bool skip = Skip();
    ++depth_;
    return skip ? (!building_ || item_.StartObject()) : out_->StartObject();
  }
  bool EndObject(SizeType members) {
    --depth_;
    if (in_items_ && depth_ == 2) {
      if (building_) {
        item_.EndObject();
        building_ = false;
        SeedPosition at{document_, item_index_++, item_offset_};
        Document item = item_.Take();
        ApplyListDefaults(item, *kind_, api_version_.value_or(""));
        auto s = Deliver(std::move(item), at);
        if (!s) error_ = s;
        return s.has_value();
      }
      stream_.Record(nullptr);
      return Item(std::move(item_text_), item_offset_);
    }
    return Skip() ? (!building_ || item_.EndObject()) : out_->EndObject(members);
  }
  bool StartArray() {
    if (depth_ == 0) return NotAnObject();
    if (in_items_ && depth_ == 2) return ItemNotAnObject();
    bool skip = Skip();
    if (depth_ == 1 && key_ == "items" && (!kind_ || IsListKind(*kind_))) {
      // The List keeps "items": [] and each element is read on its own.
      in_items_ = true;
      items_seen_ = true;
    }
    ++depth_;
    return skip ? (!building_ || item_.StartArray()) : out_->StartArray();
  }
  bool EndArray(SizeType elements) {
    --depth_;
    if (in_items_ && depth_ == 1) {
      in_items_ = false;
      return out_->EndArray(0);
    }
    return Skip() ? (!building_ || item_.EndArray()) : out_->EndArray(elements);
  }

 private:
  struct PendingItem {
    std::string text;
    uint64_t offset;
  };

  void StartDocument() {
    document_ = fixed_document_ ? *fixed_document_ : document_ + 1;
    document_offset_ = stream_.Tell();
    depth_ = 0;
    key_.clear();
    kind_.reset();
    api_version_.reset();
    in_items_ = false;
    building_ = false;
    (void)item_.Take();  // nothing half-built survives an earlier error
    items_seen_ = false;
    items_not_array_ = false;
    item_index_ = 0;
    pending_.clear();
  }

  // Skip: the event belongs to a List item (depth 3 and below), whose text is being recorded.
  bool Skip() const { return in_items_ && depth_ >= 2; }

  bool Scalar() {
    if (depth_ == 0) return NotAnObject();
    if (depth_ == 1 && key_ == "items") items_not_array_ = true;
    if (in_items_ && depth_ == 2) return ItemNotAnObject();
    return true;
  }
  bool NotAnObject() {
    error_ = PositionError(source_, {document_, -1, document_offset_}, "not a JSON object");
    return false;
  }
  bool ItemNotAnObject() {
    error_ = PositionError(source_, {document_, item_index_, stream_.Tell()}, "a List item is not a JSON object");
    return false;
  }

  // Item hands one List element on, or keeps its text while the list's kind (or, for a typed
  // list, its apiVersion) is not yet known: JSON does not order members.
  bool Item(std::string text, uint64_t offset) {
    bool known = kind_ && (*kind_ == "List" || api_version_);
    if (!known) {
      pending_.push_back({std::move(text), offset});
      ++item_index_;
      return true;
    }
    auto s = EmitItem(text, item_index_++, offset);
    if (!s) error_ = s;
    return s.has_value();
  }

  Status EmitItem(std::string_view text, int64_t index, uint64_t offset) {
    SeedPosition at{document_, index, offset};
    auto doc = json::Parse(text);
    if (!doc) return PositionError(source_, at, doc.error().message);
    ApplyListDefaults(*doc, kind_.value_or(""), api_version_.value_or(""));
    return Deliver(std::move(*doc), at);
  }

  Status Deliver(Document doc, const SeedPosition& at) {
    auto s = sink_(std::move(doc), at);
    if (!s) return PositionError(source_, at, s.error().message);
    return {};
  }

  Status FinishDocument(Document top) {
    SeedPosition at{document_, -1, document_offset_};
    if (kind_ && IsListKind(*kind_)) {
      if (items_not_array_) return PositionError(source_, at, "items of a " + *kind_ + " is not an array");
      for (size_t i = 0; i < pending_.size(); ++i) {
        if (auto s = EmitItem(pending_[i].text, static_cast<int64_t>(i), pending_[i].offset); !s) return s;
        std::string().swap(pending_[i].text);
      }
      return {};
    }
    if (items_seen_) {
      // Not a List after all (its kind came after "items"): put the items back.
      rapidjson::Value* items = json::FindMutable(top, {"items"});
      for (const PendingItem& item : pending_) {
        auto doc = json::Parse(item.text);
        if (!doc) return PositionError(source_, at, doc.error().message);
        rapidjson::Value copy;
        copy.CopyFrom(*doc, top.GetAllocator());
        items->PushBack(copy, top.GetAllocator());
      }
    }
    return Deliver(std::move(top), at);
  }

  ByteStream& stream_;
  const std::string& source_;
  const SeedSink& sink_;
  std::optional<size_t> fixed_document_;
  std::optional<Status> error_;
  Document* out_ = nullptr;  // the top-level object being built, during a parse

  size_t document_ = 0;
  uint64_t document_offset_ = 0;
  int depth_ = 0;
  std::string key_;  // the last member name of the top-level object
  std::optional<std::string> kind_, api_version_;
  bool in_items_ = false;
  bool items_seen_ = false;       // a top-level "items" array was read item by item
  bool items_not_array_ = false;  // the top-level "items" member is not an array
  int64_t item_index_ = 0;
  uint64_t item_offset_ = 0;
  bool building_ = false;  // the current item goes to item_, not to item_text_
  ItemBuilder item_;
  std::string item_text_;
  std::vector<PendingItem> pending_;
};

// FirstSignificant returns the index of the first byte that is not blank, in a comment line or
// in a "---" line (npos when there is none).
size_t FirstSignificant(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++i;
    } else if (c == '#' || (text.substr(i).starts_with("---") && (i + 3 == text.size() || text[i + 3] == '\n' ||
                                                                   text[i + 3] == '\r' || text[i + 3] == ' '))) {
      size_t eol = text.find('\n', i);
      if (eol == std::string_view::npos) return std::string_view::npos;
      i = eol + 1;
    } else {
      return i;
    }
  }
  return std::string_view::npos;
}

// IsDocumentSeparator: a "---" line (optionally followed by content) or a "..." end marker.
bool IsDocumentSeparator(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line == "...") return true;
  return line.starts_with("---") && (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
}

// YamlStreamReader: documents split at `---` lines, converted one at a time.
class YamlStreamReader {
 public:
  YamlStreamReader(ByteStream& stream, const std::string& source, const SeedSink& sink)
      : stream_(stream), source_(source), sink_(sink) {}

  Status Run() {
    std::string line;
    uint64_t line_number = 0, line_offset = 0;
    size_t doc_line = 1;
    uint64_t doc_offset = stream_.Tell();
    while (!stream_.AtEnd()) {
      line.clear();
      line_offset = stream_.Tell();
      stream_.Record(&line);
      while (!stream_.AtEnd() && stream_.Take() != '\n') {
      }
      stream_.Record(nullptr);
      ++line_number;
      if (IsDocumentSeparator(line)) {
        if (auto s = Flush(doc_line, doc_offset); !s) return s;
        // "--- value" starts the next document on the separator line; "..." only ends one.
        doc_line = static_cast<size_t>(line_number);
        doc_offset = line_offset;
        if (line.starts_with("...")) {
          doc_line = static_cast<size_t>(line_number) + 1;
          doc_offset = stream_.Tell();
          continue;
        }
      }
      text_ += line;
    }
    return Flush(doc_line, doc_offset);
  }

 private:
  Status Flush(size_t first_line, uint64_t offset) {
    std::string text = std::move(text_);
    text_.clear();
    size_t first = FirstSignificant(text);
    if (first == std::string::npos) return {};  // blank or comments only: not counted
    ++document_;
    SeedPosition at{document_, -1, offset, first_line};
    if (text[first] == '{') {
      // JSON inside a YAML stream: the SAX path, so a big List is still split item by item.
      std::ispanstream in(std::span<const char>(text.data() + first, text.size() - first));
      ByteStream json_bytes(*in.rdbuf(), offset + first);
      JsonStreamReader reader(json_bytes, source_, sink_, document_);
      return reader.Run();
    }
    auto doc = shim::YamlToJson(text);
    if (!doc) {
      return PositionError(source_, at, doc.error().message + " (lines counted from the document's first)");
    }
    if (doc->IsNull()) return {};
    if (!doc->IsObject()) return PositionError(source_, at, "not a YAML mapping");
    std::string kind(json::GetString(*doc, {"kind"}));
    if (IsListKind(kind) && json::Member(*doc, "items") != nullptr) {
      std::string api_version(json::GetString(*doc, {"apiVersion"}));
      auto& items = *json::FindMutable(*doc, {"items"});
      if (!items.IsArray()) return PositionError(source_, at, "items of a " + kind + " is not a list");
      int64_t index = 0;
      for (auto& item : items.GetArray()) {
        SeedPosition item_at{document_, index++, offset, first_line};
        if (!item.IsObject()) return PositionError(source_, item_at, "a List item is not a mapping");
        Document copy;
        copy.CopyFrom(item, copy.GetAllocator());
        ApplyListDefaults(copy, kind, api_version);
        if (auto s = sink_(std::move(copy), item_at); !s) return PositionError(source_, item_at, s.error().message);
      }
      return {};
    }
    if (auto s = sink_(std::move(*doc), at); !s) return PositionError(source_, at, s.error().message);
    return {};
  }

  ByteStream& stream_;
  const std::string& source_;
  const SeedSink& sink_;
  size_t document_ = 0;
  std::string text_;
};

}  // namespace

std::string SeedPosition::Describe() const {
  std::string out = "document " + std::to_string(document);
  if (line > 0) out += " (line " + std::to_string(line) + ")";
  if (item >= 0) out += ", items[" + std::to_string(item) + "]";
  out += ", byte offset " + std::to_string(byte_offset);
  return out;
}

Status StreamSeedObjects(std::istream& in, const std::string& source, const SeedSink& sink) {
  std::streambuf* buf = in.rdbuf();
  if (buf == nullptr) return MakeError(ErrorCode::kInvalidArgument, source + ": no input");
  ByteStream stream(*buf);
  // A UTF-8 byte order mark is not content (kubectl drops it too).
  if (stream.Buffered().starts_with("\xEF\xBB\xBF")) {
    for (int i = 0; i < 3; ++i) stream.Take();
  }
  // kubectl's YAMLOrJSONDecoder: JSON when the first non-blank byte opens an object.
  std::string_view head = stream.Buffered();
  size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{') {
    return JsonStreamReader(stream, source, sink).Run();
  }
  return YamlStreamReader(stream, source, sink).Run();
}

}  // namespace berth::kubesim
