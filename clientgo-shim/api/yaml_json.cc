// YAML → JSON conversion (see yaml_json.h). JsonToYaml lives in yaml_emit.cc.
#include "clientgo-shim/api/yaml_json.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "clientgo-shim/api/yaml_scalar.h"
#include "clientgo-shim/base/json.h"

namespace berth::shim {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

// A YAML alias can repeat a subtree many times ("billion laughs"); go-yaml refuses documents
// that expand too far, and so do we.
constexpr size_t kMaxNodesPerDocument = 1'000'000;

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

// StuckStreamWatcher sees only document starts. yaml-cpp 0.7 never consumes a stray top-level
// flow entry (",a", "- a\n,"): LoadAll would then produce null documents forever. Two documents
// starting at the same position mean the parser made no progress.
class StuckStreamWatcher final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (seen_ && mark.pos == last_.pos) stuck_ = true;
    seen_ = true;
    last_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  bool stuck() const { return stuck_; }
  const YAML::Mark& last() const { return last_; }

 private:
  bool seen_ = false;
  bool stuck_ = false;
  YAML::Mark last_;
};

// ExpandedSize counts the nodes a document expands to once aliases are repeated, visiting each
// distinct node once (aliases share the node and its source mark), so an alias bomb is refused
// before any work proportional to its expansion. Stops counting past `limit`.
using NodeKey = std::tuple<int, int, int>;  // source position, node type, child count

size_t ExpandedSize(const YAML::Node& node, std::map<NodeKey, size_t>& memo, size_t limit) {
  if (!node.IsSequence() && !node.IsMap()) return 1;
  const NodeKey key{node.Mark().pos, static_cast<int>(node.Type()), static_cast<int>(node.size())};
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  size_t total = 1;
  for (auto it = node.begin(); it != node.end() && total <= limit; ++it) {
    if (node.IsMap()) {
      total += ExpandedSize(it->first, memo, limit) + ExpandedSize(it->second, memo, limit);
    } else {
      total += ExpandedSize(*it, memo, limit);
    }
  }
  memo.emplace(key, total);
  return total;
}

class Converter {
 public:
  explicit Converter(Alloc& alloc) : alloc_(alloc) {}

  // Convert returns false with error_ set on failure (no exceptions across our API).
  bool Convert(const YAML::Node& node, Value& out) {
    if (++nodes_ > kMaxNodesPerDocument) {
      return Fail("yaml: document contains excessive aliasing");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out.SetNull();
        return true;
      case YAML::NodeType::Scalar:
        return ConvertScalar(node, out);
      case YAML::NodeType::Sequence: {
        out.SetArray();
        for (const YAML::Node& item : node) {
          Value v;
          if (!Convert(item, v)) return false;
          out.PushBack(v, alloc_);
        }
        return true;
      }
      case YAML::NodeType::Map:
        out.SetObject();
        return MergeMapInto(node, out);
    }
    out.SetNull();
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  // MergeMapInto adds node's pairs to `out` in order; later keys replace earlier ones, and a
  // "<<" key merges the referenced map(s) at that point, as go-yaml v2 does.
  bool MergeMapInto(const YAML::Node& node, Value& out) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;  // copies: the iterator yields temporaries
      const YAML::Node value = it->second;
      if (key.IsScalar() && key.Tag() == "?" && key.Scalar() == "<<") {
        if (!Merge(value, out)) return false;
        continue;
      }
      std::string name;
      if (!KeyString(key, name)) return false;
      Value v;
      if (!Convert(value, v)) return false;
      Set(out, name, v);
    }
    return true;
  }

  bool Merge(const YAML::Node& value, Value& out) {
    if (value.IsMap()) return MergeMapInto(value, out);
    if (value.IsSequence()) {
      // Earlier maps in the list win, so apply them last.
      for (size_t i = value.size(); i-- > 0;) {
        if (!value[i].IsMap()) {
          return Fail("yaml: map merge requires map or sequence of maps as the value");
        }
        if (!MergeMapInto(value[i], out)) return false;
      }
      return true;
    }
    return Fail("yaml: map merge requires map or sequence of maps as the value");
  }

  void Set(Value& object, const std::string& name, Value& v) {
    auto existing = object.FindMember(json::KeyOf(name));
    if (existing != object.MemberEnd()) {
      existing->value = v;
      return;
    }
    object.AddMember(Value(name.data(), static_cast<rapidjson::SizeType>(name.size()), alloc_), v,
                     alloc_);
  }

  // KeyString turns a key into a JSON member name like sigs.k8s.io/yaml does.
  bool KeyString(const YAML::Node& key, std::string& out) {
    if (key.IsNull()) return Fail("error converting YAML to JSON: unsupported map key of type: <nil>");
    if (!key.IsScalar()) return Fail("yaml: invalid map key: a map or sequence cannot be a key");
    ScalarValue sv;
    if (!ResolveTagged(key, sv)) return false;
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

  bool ResolveTagged(const YAML::Node& node, ScalarValue& out) {
    const std::string& tag = node.Tag();
    const std::string& text = node.Scalar();
    if (tag == "?") {
      out = ResolvePlainScalar(text);
      return true;
    }
    std::string_view short_tag;
    if (std::string_view(tag).starts_with(kTagPrefix)) {
      short_tag = std::string_view(tag).substr(kTagPrefix.size());
    }
    if (short_tag != "int" && short_tag != "float" && short_tag != "bool" && short_tag != "null") {
      // "!" (quoted), !!str, !!binary and application tags all decode to strings.
      out = ScalarValue{};
      out.kind = ScalarKind::kString;
      out.text = text;
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
    bool ok = got == short_tag || (short_tag == "int" && out.kind == ScalarKind::kUint);
    if (!ok) {
      return Fail("yaml: cannot decode !!" + std::string(got) + " `" + text + "` as a !!" +
                  std::string(short_tag));
    }
    return true;
  }

  bool ConvertScalar(const YAML::Node& node, Value& out) {
    ScalarValue sv;
    if (!ResolveTagged(node, sv)) return false;
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
  size_t nodes_ = 0;
  std::string error_;
};

}  // namespace

Result<std::vector<rapidjson::Document>> YamlToJsonDocuments(std::string_view yaml) {
  std::vector<YAML::Node> nodes;
  try {
    // First pass: events only, to catch the stream shapes that make yaml-cpp loop forever.
    std::istringstream events_in{std::string(yaml)};
    YAML::Parser parser(events_in);
    StuckStreamWatcher watcher;
    while (!watcher.stuck() && parser.HandleNextDocument(watcher)) {
    }
    if (watcher.stuck()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "yaml: line " + std::to_string(watcher.last().line + 1) + ", column " +
                           std::to_string(watcher.last().column + 1) +
                           ": did not find expected node content");
    }
    nodes = YAML::LoadAll(std::string(yaml));
  } catch (const YAML::ParserException& e) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "yaml: line " + std::to_string(e.mark.line + 1) + ", column " +
                         std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument, std::string("yaml: ") + e.what());
  }
  std::vector<rapidjson::Document> docs;
  try {
    for (const YAML::Node& node : nodes) {
      if (node.IsNull() || !node.IsDefined()) continue;
      std::map<NodeKey, size_t> memo;
      if (ExpandedSize(node, memo, kMaxNodesPerDocument) > kMaxNodesPerDocument) {
        return MakeError(ErrorCode::kInvalidArgument, "yaml: document contains excessive aliasing");
      }
      rapidjson::Document doc;
      Converter converter(doc.GetAllocator());
      if (!converter.Convert(node, doc)) {
        return MakeError(ErrorCode::kInvalidArgument, converter.error());
      }
      docs.push_back(std::move(doc));
    }
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument, std::string("yaml: ") + e.what());
  }
  return docs;
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
