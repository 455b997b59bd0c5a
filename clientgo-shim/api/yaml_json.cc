// YAML → JSON conversion (see yaml_json.h). JsonToYaml lives in yaml_emit.cc.
//
// libyaml's event parser (go-yaml v2 is a Go port of libyaml, so its syntax errors are go-yaml's
// words) feeds a builder that writes RapidJSON values directly, with no intermediate node tree:
// a 3 KB Pod converts in tens of microseconds instead of the milliseconds a yaml-cpp node tree took.
#include "clientgo-shim/api/yaml_json.h"

#include <yaml.h>

#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "clientgo-shim/api/yaml_scalar.h"
#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// A YAML alias can repeat a subtree many times ("billion laughs"); go-yaml refuses documents
// that expand too far, and so do we. An alias is counted at its expanded size before it is copied.
constexpr size_t kMaxNodesPerDocument = 1'000'000;
// go-yaml's own bound on nesting; deeper values would also exhaust the stack of recursive walks.
constexpr size_t kMaxDepth = 10'000;

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

// TypedTag is the short name of a tag that types its scalar ("int", "float", "bool", "null"), or
// "" for every other tag ("!", !!str, !!binary, application tags): those scalars are strings.
std::string_view TypedTag(std::string_view tag) {
  if (!tag.starts_with(kTagPrefix)) return {};
  std::string_view short_tag = tag.substr(kTagPrefix.size());
  if (short_tag == "int" || short_tag == "float" || short_tag == "bool" || short_tag == "null") return short_tag;
  return {};
}

std::string_view View(const yaml_char_t* data, size_t length) {
  return {reinterpret_cast<const char*>(data), length};
}

std::string_view View(const yaml_char_t* text) {
  return text ? std::string_view(reinterpret_cast<const char*>(text)) : std::string_view();
}

// DocumentBuilder turns the events of one document into a JSON value allocated from `alloc`.
class DocumentBuilder {
 public:
  explicit DocumentBuilder(Alloc& alloc) : alloc_(alloc) {}

  bool OnScalar(const yaml_event_t& event) {
    const auto& s = event.data.scalar;
    if (!Count(1)) return false;
    std::string_view text = View(s.value, s.length);
    std::string_view tag = View(s.tag);
    bool plain_untagged = tag.empty() && s.style == YAML_PLAIN_SCALAR_STYLE;
    if (ExpectingKey()) {
      Frame& map = stack_.back();
      ScalarValue key;
      if (!Resolve(text, tag, plain_untagged, key)) return false;
      map.merge_pending = plain_untagged && text == "<<";
      if (!map.merge_pending && !KeyString(key, map.key)) return false;
      map.have_key = true;
      if (s.anchor) Remember(View(s.anchor), ScalarJson(key), 1);
      return true;
    }
    Value v;
    if (!ResolveInto(text, tag, plain_untagged, v)) return false;
    if (s.anchor) Remember(View(s.anchor), v, 1);
    return Place(v);
  }

  bool OnAlias(const yaml_event_t& event) {
    std::string name(View(event.data.alias.anchor));
    auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      return Fail("yaml: line " + std::to_string(event.start_mark.line + 1) + ", column " +
                  std::to_string(event.start_mark.column + 1) + ": unknown anchor '" + name + "' referenced");
    }
    if (!Count(it->second.nodes)) return false;
    if (ExpectingKey()) {
      Frame& map = stack_.back();
      if (!AliasKeyString(it->second.value, map.key)) return false;
      map.have_key = true;
      map.merge_pending = false;
      return true;
    }
    Value copy(it->second.value, alloc_);
    return Place(copy);
  }

  bool OnCollectionStart(bool is_map, const yaml_char_t* anchor) {
    if (ExpectingKey()) return Fail("yaml: invalid map key: a map or sequence cannot be a key");
    if (!Count(1)) return false;
    if (stack_.size() >= kMaxDepth) return Fail("yaml: exceeded max depth of " + std::to_string(kMaxDepth));
    Frame frame;
    frame.value = is_map ? Value(rapidjson::kObjectType) : Value(rapidjson::kArrayType);
    frame.is_map = is_map;
    frame.anchor = std::string(View(anchor));
    frame.nodes_before = nodes_;
    stack_.push_back(std::move(frame));
    return true;
  }

  bool OnCollectionEnd() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (!frame.anchor.empty()) Remember(frame.anchor, frame.value, nodes_ - frame.nodes_before + 1);
    return Place(frame.value);
  }

  // TakeRoot moves the document's value out (null for an empty document).
  Value TakeRoot() { return std::move(root_); }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    Value value;
    bool is_map = false;
    bool have_key = false;
    bool merge_pending = false;  // the pending key is "<<"
    std::string key;
    std::string anchor;
    size_t nodes_before = 0;
  };
  struct Anchored {
    Value value;  // a copy in anchor_store_, so the document may move it freely
    size_t nodes = 0;
  };

  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  bool Count(size_t nodes) {
    nodes_ += nodes;
    if (nodes_ > kMaxNodesPerDocument) return Fail("yaml: document contains excessive aliasing");
    return true;
  }

  bool ExpectingKey() const { return !stack_.empty() && stack_.back().is_map && !stack_.back().have_key; }

  void Remember(std::string_view name, const Value& value, size_t nodes) {
    Anchored& slot = anchors_[std::string(name)];
    slot.value.CopyFrom(value, anchor_store_.GetAllocator());
    slot.nodes = nodes;
  }

  // Place puts a finished value where the open collection wants it (or makes it the root).
  bool Place(Value& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    Frame& top = stack_.back();
    if (!top.is_map) {
      top.value.PushBack(v, alloc_);
      return true;
    }
    top.have_key = false;
    if (top.merge_pending) return Merge(v, top.value);
    Set(top.value, top.key, v);
    return true;
  }

  // Merge applies a "<<" value as go-yaml v2 does: a map's pairs, or a list of maps of which the
  // earlier ones win (so they are applied last). Later explicit keys replace merged ones.
  bool Merge(Value& value, Value& out) {
    constexpr std::string_view kBadMerge = "yaml: map merge requires map or sequence of maps as the value";
    if (value.IsObject()) {
      for (auto& m : value.GetObject()) Set(out, std::string(m.name.GetString(), m.name.GetStringLength()), m.value);
      return true;
    }
    if (!value.IsArray()) return Fail(std::string(kBadMerge));
    for (rapidjson::SizeType i = value.Size(); i-- > 0;) {
      if (!value[i].IsObject()) return Fail(std::string(kBadMerge));
    }
    for (rapidjson::SizeType i = value.Size(); i-- > 0;) {
      for (auto& m : value[i].GetObject()) {
        Set(out, std::string(m.name.GetString(), m.name.GetStringLength()), m.value);
      }
    }
    return true;
  }

  void Set(Value& object, const std::string& name, Value& v) {
    auto existing = object.FindMember(json::KeyOf(name));
    if (existing != object.MemberEnd()) {
      existing->value = v;  // the last duplicate wins
      return;
    }
    object.AddMember(Value(name.data(), static_cast<rapidjson::SizeType>(name.size()), alloc_), v, alloc_);
  }

  // Resolve types a scalar: untagged plain scalars by go-yaml's rules; quoted/block scalars,
  // "!", !!str, !!binary and application tags are strings; !!int/!!float/!!bool/!!null must hold
  // what they say.
  bool Resolve(std::string_view text, std::string_view tag, bool plain_untagged, ScalarValue& out) {
    if (plain_untagged) {
      out = ResolvePlainScalar(text);
      return true;
    }
    const std::string_view short_tag = TypedTag(tag);
    if (short_tag.empty()) {
      out = ScalarValue{};
      out.kind = ScalarKind::kString;
      out.text = std::string(text);
      return true;
    }
    out = ResolvePlainScalar(text);
    if (short_tag == "float" && out.kind == ScalarKind::kInt) {
      out.kind = ScalarKind::kFloat;
      out.f = static_cast<double>(out.i);
    } else if (short_tag == "float" && out.kind == ScalarKind::kUint) {
      out.kind = ScalarKind::kFloat;
      out.f = static_cast<double>(out.u);
    }
    std::string_view got = ScalarKindTag(out.kind);
    if (got != short_tag && !(short_tag == "int" && out.kind == ScalarKind::kUint)) {
      return Fail("yaml: cannot decode !!" + std::string(got) + " `" + std::string(text) + "` as a !!" +
                  std::string(short_tag));
    }
    return true;
  }

  // ResolveInto is Resolve straight into a JSON value; a string scalar is copied once.
  bool ResolveInto(std::string_view text, std::string_view tag, bool plain_untagged, Value& out) {
    if (!plain_untagged && TypedTag(tag).empty()) {
      out.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc_);
      return true;
    }
    ScalarValue sv;
    if (!Resolve(text, tag, plain_untagged, sv)) return false;
    switch (sv.kind) {
      case ScalarKind::kNull: out.SetNull(); return true;
      case ScalarKind::kBool: out.SetBool(sv.b); return true;
      case ScalarKind::kInt: out.SetInt64(sv.i); return true;
      case ScalarKind::kUint: out.SetUint64(sv.u); return true;
      case ScalarKind::kString:
        out.SetString(sv.text.data(), static_cast<rapidjson::SizeType>(sv.text.size()), alloc_);
        return true;
      case ScalarKind::kFloat: return SetFloat(sv.f, out);
    }
    return true;
  }

  // ScalarJson is a resolved key as a JSON value (for an anchor on a key; NaN stays unstored).
  Value ScalarJson(const ScalarValue& sv) {
    Value v;
    switch (sv.kind) {
      case ScalarKind::kNull: break;
      case ScalarKind::kBool: v.SetBool(sv.b); break;
      case ScalarKind::kInt: v.SetInt64(sv.i); break;
      case ScalarKind::kUint: v.SetUint64(sv.u); break;
      case ScalarKind::kFloat:
        if (std::isfinite(sv.f)) v.SetDouble(sv.f);
        break;
      case ScalarKind::kString:
        v.SetString(sv.text.data(), static_cast<rapidjson::SizeType>(sv.text.size()), alloc_);
        break;
    }
    return v;
  }

  // KeyString turns a key into a JSON member name as sigs.k8s.io/yaml does ("yes" → "true").
  bool KeyString(const ScalarValue& sv, std::string& out) {
    switch (sv.kind) {
      case ScalarKind::kString: out = sv.text; return true;
      case ScalarKind::kBool: out = sv.b ? "true" : "false"; return true;
      case ScalarKind::kInt: out = std::to_string(sv.i); return true;
      case ScalarKind::kFloat: out = FormatGoFloat(sv.f, /*bits32=*/true); return true;
      case ScalarKind::kUint:
        return Fail("error converting YAML to JSON: unsupported map key of type: uint64");
      case ScalarKind::kNull:
        return Fail("error converting YAML to JSON: unsupported map key of type: <nil>");
    }
    return true;
  }

  // AliasKeyString is KeyString for a key given as an alias of an earlier scalar.
  bool AliasKeyString(const Value& v, std::string& out) {
    if (v.IsObject() || v.IsArray()) return Fail("yaml: invalid map key: a map or sequence cannot be a key");
    ScalarValue sv;
    if (v.IsNull()) {
      sv.kind = ScalarKind::kNull;
    } else if (v.IsBool()) {
      sv.kind = ScalarKind::kBool;
      sv.b = v.GetBool();
    } else if (v.IsInt64()) {
      sv.kind = ScalarKind::kInt;
      sv.i = v.GetInt64();
    } else if (v.IsUint64()) {
      sv.kind = ScalarKind::kUint;
    } else if (v.IsDouble()) {
      sv.kind = ScalarKind::kFloat;
      sv.f = v.GetDouble();
    } else {
      sv.text = std::string(v.GetString(), v.GetStringLength());
    }
    return KeyString(sv, out);
  }

  // SetFloat stores what Go's encoding/json would write: integral values below 1e21 are written
  // without a fraction, so they read back as integers.
  bool SetFloat(double f, Value& out) {
    if (std::isnan(f)) return Fail("json: unsupported value: NaN");
    if (std::isinf(f)) return Fail(f > 0 ? "json: unsupported value: +Inf" : "json: unsupported value: -Inf");
    if (f == std::trunc(f) && std::fabs(f) < 1e21) {
      if (f >= -9223372036854775808.0 && f < 9223372036854775808.0) {
        out.SetInt64(static_cast<int64_t>(f));
        return true;
      }
      if (f >= 0 && f < 18446744073709551616.0) {
        out.SetUint64(static_cast<uint64_t>(f));
        return true;
      }
    }
    out.SetDouble(f);
    return true;
  }

  Alloc& alloc_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchored> anchors_;
  rapidjson::Document anchor_store_;
  Value root_;
  size_t nodes_ = 0;
  std::string error_;
};

// Parser owns a libyaml parser over a string.
class Parser {
 public:
  explicit Parser(std::string_view text) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~Parser() { yaml_parser_delete(&parser_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // Next parses one event into `event` (which the caller deletes); false on a syntax error.
  bool Next(yaml_event_t& event) { return yaml_parser_parse(&parser_, &event) != 0; }

  std::string Error() const {
    if (parser_.error == YAML_READER_ERROR && parser_.problem) {
      // Encoding errors carry a byte offset, not a mark.
      return std::string("yaml: ") + parser_.problem + " (byte offset " + std::to_string(parser_.problem_offset) + ")";
    }
    const yaml_mark_t& mark = parser_.problem ? parser_.problem_mark : parser_.context_mark;
    std::string problem = parser_.problem ? parser_.problem : "unknown problem parsing YAML content";
    return "yaml: line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) + ": " +
           problem;
  }

 private:
  yaml_parser_t parser_;
};

struct EventGuard {
  yaml_event_t& event;
  ~EventGuard() { yaml_event_delete(&event); }
};

}  // namespace

Result<std::vector<rapidjson::Document>> YamlToJsonDocuments(std::string_view yaml) {
  Parser parser(yaml);
  std::vector<rapidjson::Document> docs;
  rapidjson::Document current;
  std::optional<DocumentBuilder> builder;
  for (;;) {
    yaml_event_t event;
    if (!parser.Next(event)) return MakeError(ErrorCode::kInvalidArgument, parser.Error());
    EventGuard guard{event};
    bool ok = true;
    switch (event.type) {
      case YAML_STREAM_END_EVENT:
        return docs;
      case YAML_DOCUMENT_START_EVENT:
        current = rapidjson::Document();
        builder.emplace(current.GetAllocator());
        break;
      case YAML_DOCUMENT_END_EVENT:
        if (builder) {
          Value root = builder->TakeRoot();
          builder.reset();
          if (!root.IsNull()) {
            static_cast<Value&>(current) = root;
            docs.push_back(std::move(current));
          }
        }
        break;
      case YAML_SCALAR_EVENT:
        ok = builder && builder->OnScalar(event);
        break;
      case YAML_ALIAS_EVENT:
        ok = builder && builder->OnAlias(event);
        break;
      case YAML_SEQUENCE_START_EVENT:
        ok = builder && builder->OnCollectionStart(false, event.data.sequence_start.anchor);
        break;
      case YAML_MAPPING_START_EVENT:
        ok = builder && builder->OnCollectionStart(true, event.data.mapping_start.anchor);
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        ok = builder && builder->OnCollectionEnd();
        break;
      default:
        break;
    }
    if (!ok) {
      return MakeError(ErrorCode::kInvalidArgument, builder ? builder->error() : "yaml: node outside a document");
    }
  }
}

Result<rapidjson::Document> YamlToJson(std::string_view yaml) {
  auto docs = YamlToJsonDocuments(yaml);
  if (!docs) return std::unexpected(docs.error());
  if (docs->size() > 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "yaml: expected a single document, found " + std::to_string(docs->size()));
  }
  if (docs->empty()) {
    rapidjson::Document null_doc;
    null_doc.SetNull();
    return null_doc;
  }
  return std::move(docs->front());
}

}  // namespace berth::shim
