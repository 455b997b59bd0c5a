// controllers/extender/extender_codec.cc
#include "controllers/extender/extender_codec.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "clientgo-shim/base/json.h"

namespace berth::controllers::extender {
namespace {

using rapidjson::Value;

bool EqualFoldAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::unexpected<Error> Invalid(std::string message) { return MakeError(ErrorCode::kInvalidArgument, std::move(message)); }

Result<rapidjson::Document> ParseObject(std::string_view body, std::string_view what) {
  if (body.empty()) return Invalid(std::string(what) + ": empty body");
  if (json::NestsDeeperThan(body, kMaxNestingDepth)) {
    return Invalid(std::string(what) + ": body nests arrays and objects deeper than " +
                   std::to_string(kMaxNestingDepth) + " levels");
  }
  // Iterative: the parser's stack is on the heap, whatever the nesting.
  auto doc = json::ParseIterative(body);
  if (!doc) return Invalid(std::string(what) + ": body is not JSON: " + doc.error().message);
  if (!doc->IsObject()) return Invalid(std::string(what) + ": body is not a JSON object");
  return std::move(*doc);
}

// StringField: a string member (null or absent gives ""). Errors when it is another type.
Result<std::string> StringField(const Value& object, std::string_view key, std::string_view what) {
  const Value* v = FindKey(object, key);
  if (!v || v->IsNull()) return std::string();
  if (!v->IsString()) return Invalid(std::string(what) + ": " + std::string(key) + " must be a string");
  return std::string(v->GetString(), v->GetStringLength());
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(Writer& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

void WriteMap(Writer& w, const std::map<std::string, std::string>& m) {
  w.StartObject();
  for (const auto& [k, v] : m) {
    WriteString(w, k);
    WriteString(w, v);
  }
  w.EndObject();
}

// PodShapeError: "" when the Pod's struct-typed fields are objects (or null, which Go's decoder
// reads as unset); else what is wrong. A `spec` of another type is an error, as Go's "cannot
// unmarshal string into Go struct field Pod.spec", never an empty pod that fits every node.
std::string PodShapeError(const Value& pod, std::string_view what) {
  for (std::string_view field : {"metadata", "spec", "status"}) {
    const Value* v = json::Member(pod, field);
    if (v && !v->IsNull() && !v->IsObject()) {
      return std::string(what) + ": Pod." + std::string(field) + " must be an object";
    }
  }
  return {};
}

}  // namespace

const Value* FindKey(const Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  const Value* found = nullptr;
  for (const auto& m : object.GetObject()) {
    if (EqualFoldAscii(std::string_view(m.name.GetString(), m.name.GetStringLength()), key)) found = &m.value;
  }
  return found;
}

Result<ExtenderArgs> DecodeExtenderArgs(std::string_view body) {
  auto doc = ParseObject(body, "ExtenderArgs");
  if (!doc) return std::unexpected(doc.error());
  ExtenderArgs args;
  args.document = std::move(*doc);
  const Value* pod = FindKey(args.document, "Pod");
  if (!pod || pod->IsNull()) return Invalid("ExtenderArgs: Pod is missing");
  if (!pod->IsObject()) return Invalid("ExtenderArgs: Pod must be an object");
  if (auto why = PodShapeError(*pod, "ExtenderArgs"); !why.empty()) return Invalid(std::move(why));
  args.pod = pod;
  const Value* names = FindKey(args.document, "NodeNames");
  const Value* nodes = FindKey(args.document, "Nodes");
  if (names && !names->IsNull()) {
    if (!names->IsArray()) return Invalid("ExtenderArgs: NodeNames must be an array of strings");
    for (const auto& n : names->GetArray()) {
      if (!n.IsString()) return Invalid("ExtenderArgs: NodeNames must be an array of strings");
      args.node_names.emplace_back(n.GetString(), n.GetStringLength());
    }
  } else if (nodes && !nodes->IsNull()) {
    if (!nodes->IsObject()) return Invalid("ExtenderArgs: Nodes must be a NodeList object");
    args.nodes_as_list = true;
    const Value* items = json::Member(*nodes, "items");
    if (items && !items->IsNull()) {
      if (!items->IsArray()) return Invalid("ExtenderArgs: Nodes.items must be an array");
      size_t i = 0;
      for (const auto& item : items->GetArray()) {
        const Value* name = item.IsObject() ? json::Find(item, {"metadata", "name"}) : nullptr;
        if (!name || !name->IsString() || name->GetStringLength() == 0) {
          return Invalid("ExtenderArgs: Nodes.items[" + std::to_string(i) + "] has no metadata.name");
        }
        args.node_names.emplace_back(name->GetString(), name->GetStringLength());
        args.node_items.push_back(&item);
        ++i;
      }
    }
  }
  return args;
}

std::string EncodeFilterResult(const ExtenderFilterResult& result, const ExtenderArgs* args) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  const bool as_list = args != nullptr && args->nodes_as_list;
  w.Key("Nodes");
  if (as_list) {
    w.StartObject();
    w.Key("metadata");
    w.StartObject();
    w.EndObject();
    w.Key("items");
    w.StartArray();
    // Echo the request's Node objects of the passing names, in the request's order.
    size_t next = 0;
    for (size_t i = 0; i < args->node_names.size() && next < result.passed.size(); ++i) {
      if (args->node_names[i] != result.passed[next]) continue;
      args->node_items[i]->Accept(w);
      ++next;
    }
    w.EndArray();
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("NodeNames");
  if (as_list) {
    w.Null();
  } else {
    w.StartArray();
    for (const auto& n : result.passed) WriteString(w, n);
    w.EndArray();
  }
  w.Key("FailedNodes");
  WriteMap(w, result.failed);
  w.Key("FailedAndUnresolvableNodes");
  WriteMap(w, result.failed_unresolvable);
  w.Key("Error");
  WriteString(w, result.error);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string EncodeHostPriorityList(const std::vector<HostPriority>& list) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartArray();
  for (const auto& hp : list) {
    w.StartObject();
    w.Key("Host");
    WriteString(w, hp.host);
    w.Key("Score");
    w.Int64(hp.score);
    w.EndObject();
  }
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

Result<ExtenderBindingArgs> DecodeBindingArgs(std::string_view body) {
  auto doc = ParseObject(body, "ExtenderBindingArgs");
  if (!doc) return std::unexpected(doc.error());
  ExtenderBindingArgs args;
  auto read = [&](std::string_view key, std::string& out) -> Status {
    auto v = StringField(*doc, key, "ExtenderBindingArgs");
    if (!v) return std::unexpected(v.error());
    out = std::move(*v);
    return {};
  };
  if (auto s = read("PodName", args.pod_name); !s) return std::unexpected(s.error());
  if (auto s = read("PodNamespace", args.pod_namespace); !s) return std::unexpected(s.error());
  if (auto s = read("PodUID", args.pod_uid); !s) return std::unexpected(s.error());
  if (auto s = read("Node", args.node); !s) return std::unexpected(s.error());
  if (args.pod_name.empty()) return Invalid("ExtenderBindingArgs: PodName is missing");
  if (args.node.empty()) return Invalid("ExtenderBindingArgs: Node is missing");
  return args;
}

std::string EncodeBindingResult(std::string_view error) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("Error");
  WriteString(w, error);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string EncodeError(std::string_view message) { return EncodeBindingResult(message); }

namespace {

// ReadVictimsMap reads one of the two victims maps: `meta` ones name victims by UID, the others
// carry whole pods (metadata.uid).
Status ReadVictimsMap(const Value& map, std::string_view key, bool meta, std::map<std::string, MetaVictims>& out) {
  const std::string what = "ExtenderPreemptionArgs: " + std::string(key);
  if (!map.IsObject()) return Invalid(what + " must be an object");
  for (const auto& entry : map.GetObject()) {
    const std::string node(entry.name.GetString(), entry.name.GetStringLength());
    const std::string at = what + "[" + node + "]";
    if (entry.value.IsNull()) continue;  // a nil *Victims: no candidate
    if (!entry.value.IsObject()) return Invalid(at + " must be an object");
    MetaVictims victims;
    if (const Value* pods = FindKey(entry.value, "Pods"); pods && !pods->IsNull()) {
      if (!pods->IsArray()) return Invalid(at + ".Pods must be an array");
      for (const auto& pod : pods->GetArray()) {
        const Value* uid = !pod.IsObject() ? nullptr
                           : meta          ? FindKey(pod, "UID")
                                           : json::Find(pod, {"metadata", "uid"});
        if (!uid || !uid->IsString() || uid->GetStringLength() == 0) {
          return Invalid(at + ".Pods has a victim without " + (meta ? "a UID" : "metadata.uid"));
        }
        victims.pod_uids.emplace_back(uid->GetString(), uid->GetStringLength());
      }
    }
    if (const Value* n = FindKey(entry.value, "NumPDBViolations"); n && !n->IsNull()) {
      if (!n->IsInt64()) return Invalid(at + ".NumPDBViolations must be an integer");
      victims.num_pdb_violations = n->GetInt64();
    }
    out.insert_or_assign(node, std::move(victims));
  }
  return {};
}

}  // namespace

Result<ExtenderPreemptionArgs> DecodePreemptionArgs(std::string_view body) {
  auto doc = ParseObject(body, "ExtenderPreemptionArgs");
  if (!doc) return std::unexpected(doc.error());
  ExtenderPreemptionArgs args;
  args.document = std::move(*doc);
  const Value* pod = FindKey(args.document, "Pod");
  if (!pod || pod->IsNull()) return Invalid("ExtenderPreemptionArgs: Pod is missing");
  if (!pod->IsObject()) return Invalid("ExtenderPreemptionArgs: Pod must be an object");
  if (auto why = PodShapeError(*pod, "ExtenderPreemptionArgs"); !why.empty()) return Invalid(std::move(why));
  args.pod = pod;
  // kube-scheduler fills exactly one of the two, by nodeCacheCapable.
  if (const Value* meta = FindKey(args.document, "NodeNameToMetaVictims"); meta && !meta->IsNull()) {
    if (auto s = ReadVictimsMap(*meta, "NodeNameToMetaVictims", true, args.candidates); !s) {
      return std::unexpected(s.error());
    }
  } else if (const Value* full = FindKey(args.document, "NodeNameToVictims"); full && !full->IsNull()) {
    if (auto s = ReadVictimsMap(*full, "NodeNameToVictims", false, args.candidates); !s) {
      return std::unexpected(s.error());
    }
  }
  return args;
}

std::string EncodePreemptionResult(const std::map<std::string, MetaVictims>& candidates) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("NodeNameToMetaVictims");
  w.StartObject();
  for (const auto& [node, victims] : candidates) {
    WriteString(w, node);
    w.StartObject();
    w.Key("Pods");
    w.StartArray();
    for (const auto& uid : victims.pod_uids) {
      w.StartObject();
      w.Key("UID");
      WriteString(w, uid);
      w.EndObject();
    }
    w.EndArray();
    w.Key("NumPDBViolations");
    w.Int64(victims.num_pdb_violations);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace berth::controllers::extender
