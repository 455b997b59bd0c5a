// e2e/kubesim/patch/json_patch.cc
//
// The operations run on a deep copy that is swapped into the target only when every op
// succeeded, which gives the all-or-nothing semantics RFC 6902 section 5 asks for.
#include "e2e/kubesim/patch/json_patch.h"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace berth::kubesim::patch {
namespace {

using rapidjson::SizeType;
using rapidjson::Value;

// Suffixes the library appends through errors.Wrapf(ErrX, ...).
constexpr std::string_view kMissing = ": missing value";
constexpr std::string_view kInvalidIndex = ": invalid index referenced";

berth::Error Fail(std::string message) {
  return berth::Error{ErrorCode::kInvalidArgument, std::move(message), 0, {}, {}};
}

// GoTypeName names a JSON value the way Go's encoding/json does in unmarshal errors.
std::string_view GoTypeName(const Value& v) {
  if (v.IsObject()) return "object";
  if (v.IsArray()) return "array";
  if (v.IsString()) return "string";
  if (v.IsNumber()) return "number";
  if (v.IsBool()) return "bool";
  return "null";
}

// Pointer: an RFC 6901 pointer split into parent tokens and the final key.
struct Pointer {
  std::vector<std::string> parents;
  std::string key;
};

std::string Unescape(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out.push_back(token[i + 1] == '0' ? '~' : '/');
      ++i;
    } else {
      out.push_back(token[i]);
    }
  }
  return out;
}

// SplitPointer returns nullopt for "" and for text not starting with '/', which the library
// reports as a missing path.
std::optional<Pointer> SplitPointer(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  Pointer p;
  std::vector<std::string> tokens;
  size_t start = 1;
  while (true) {
    size_t slash = path.find('/', start);
    tokens.push_back(Unescape(path.substr(start, slash - start)));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  p.key = std::move(tokens.back());
  tokens.pop_back();
  p.parents = std::move(tokens);
  return p;
}

// ParseIndex mirrors Go's strconv.Atoi: optional sign then decimal digits.
std::optional<long long> ParseIndex(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  long long value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return s.front() == '-' ? -value : value;
}

std::string AtoiError(std::string_view key) {
  return "strconv.Atoi: parsing \"" + std::string(key) + "\": invalid syntax";
}

std::string IndexError(long long idx) {
  return "Unable to access invalid index: " + std::to_string(idx) + std::string(kInvalidIndex);
}

// ResolveIndex turns `key` into a position in an array of `size` elements (negative counts from
// the end). Returns the error text, without the op prefix, on failure.
std::expected<SizeType, std::string> ResolveIndex(std::string_view key, SizeType size) {
  std::optional<long long> idx = ParseIndex(key);
  if (!idx) return std::unexpected(AtoiError(key));
  long long i = *idx;
  if (i < 0) {
    if (i < -static_cast<long long>(size)) return std::unexpected(IndexError(i));
    i += size;
  }
  if (i >= static_cast<long long>(size)) return std::unexpected(IndexError(*idx));
  return static_cast<SizeType>(i);
}

// FindParent walks every token but the last; nullptr when a step is missing or a scalar.
Value* FindParent(Value& doc, const Pointer& p) {
  Value* cur = &doc;
  for (const std::string& token : p.parents) {
    if (cur->IsObject()) {
      auto it = cur->FindMember(Value(rapidjson::StringRef(token.data(), token.size())));
      if (it == cur->MemberEnd()) return nullptr;
      cur = &it->value;
    } else if (cur->IsArray()) {
      auto idx = ResolveIndex(token, cur->Size());
      if (!idx) return nullptr;
      cur = &(*cur)[*idx];
    } else {
      return nullptr;  // a scalar cannot hold the next token
    }
  }
  if (!cur->IsObject() && !cur->IsArray()) return nullptr;
  return cur;
}

// Get returns the member or element `key` of container `c`, or an error text.
std::expected<Value*, std::string> Get(Value& c, const std::string& key) {
  if (c.IsObject()) {
    auto it = c.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
    if (it == c.MemberEnd()) {
      return std::unexpected("unable to get nonexistent key: " + key + std::string(kMissing));
    }
    return &it->value;
  }
  auto idx = ResolveIndex(key, c.Size());
  if (!idx) return std::unexpected(idx.error());
  return &c[*idx];
}

// Add inserts `value` (moved) under `key`: an object member is set, an array element is inserted
// before `key` ("-" appends; the size itself is allowed).
std::expected<void, std::string> Add(Value& c, const std::string& key, Value&& value,
                                     Allocator& alloc) {
  if (c.IsObject()) {
    auto it = c.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
    if (it != c.MemberEnd()) {
      it->value = std::move(value);
    } else {
      c.AddMember(Value(key.data(), static_cast<SizeType>(key.size()), alloc), std::move(value),
                  alloc);
    }
    return {};
  }
  if (key == "-") {
    c.PushBack(std::move(value), alloc);
    return {};
  }
  std::optional<long long> idx = ParseIndex(key);
  if (!idx) {
    return std::unexpected("value was not a proper array index: '" + key + "': " + AtoiError(key));
  }
  long long size = static_cast<long long>(c.Size()) + 1;
  long long i = *idx;
  if (i >= size || i < -size) return std::unexpected(IndexError(i));
  if (i < 0) i += size;
  c.PushBack(Value(), alloc);
  for (long long k = static_cast<long long>(c.Size()) - 1; k > i; --k) {
    c[static_cast<SizeType>(k)] = std::move(c[static_cast<SizeType>(k - 1)]);
  }
  c[static_cast<SizeType>(i)] = std::move(value);
  return {};
}

// Remove deletes `key` from `c`; on success the removed value is moved to `out` when given.
std::expected<void, std::string> Remove(Value& c, const std::string& key, Value* out) {
  if (c.IsObject()) {
    auto it = c.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
    if (it == c.MemberEnd()) {
      return std::unexpected("unable to remove nonexistent key: " + key + std::string(kMissing));
    }
    if (out) *out = std::move(it->value);
    c.EraseMember(it);
    return {};
  }
  auto idx = ResolveIndex(key, c.Size());
  if (!idx) return std::unexpected(idx.error());
  if (out) *out = std::move(c[*idx]);
  c.Erase(c.Begin() + *idx);
  return {};
}

// StringField reads op[name] as a string; the error text follows Go's unmarshal wording.
std::expected<std::string, std::string> StringField(const Value& op, const char* name,
                                                    std::string_view missing_text) {
  auto it = op.FindMember(name);
  if (it == op.MemberEnd() || it->value.IsNull()) {
    return std::unexpected(std::string(missing_text) + std::string(kMissing));
  }
  if (!it->value.IsString()) {
    return std::unexpected("json: cannot unmarshal " + std::string(GoTypeName(it->value)) +
                           " into Go value of type string");
  }
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

// OpValue is the op's "value" (null when absent, as the library treats it).
const Value& OpValue(const Value& op) {
  static const Value kNull;
  auto it = op.FindMember("value");
  return it == op.MemberEnd() ? kNull : it->value;
}

class Applier {
 public:
  Applier(Value& doc, Allocator& alloc) : doc_(doc), alloc_(alloc) {}

  std::expected<void, berth::Error> Apply(const Value& op) {
    std::string kind = "unknown";
    auto k = op.FindMember("op");
    if (k != op.MemberEnd() && k->value.IsString()) kind = k->value.GetString();
    if (kind == "add") return DoAdd(op);
    if (kind == "remove") return DoRemove(op);
    if (kind == "replace") return DoReplace(op);
    if (kind == "move") return DoMove(op);
    if (kind == "copy") return DoCopy(op);
    if (kind == "test") return DoTest(op);
    return std::unexpected(Fail("Unexpected kind: " + kind));
  }

 private:
  std::expected<std::string, berth::Error> PathOf(const Value& op, std::string_view kind) {
    auto path = StringField(op, "path", "operation missing path field");
    if (!path) {
      return std::unexpected(
          Fail(std::string(kind) + " operation failed to decode path: " + path.error()));
    }
    return *path;
  }

  std::expected<std::string, berth::Error> FromOf(const Value& op, std::string_view kind) {
    auto from = StringField(op, "from", "operation, missing from field");
    if (!from) {
      return std::unexpected(
          Fail(std::string(kind) + " operation failed to decode from: " + from.error()));
    }
    return *from;
  }

  std::expected<void, berth::Error> DoAdd(const Value& op) {
    auto path = PathOf(op, "add");
    if (!path) return std::unexpected(path.error());
    Value value(OpValue(op), alloc_);
    if (path->empty()) {  // RFC 6902 4.1: adding at the root replaces the document.
      doc_ = std::move(value);
      return {};
    }
    auto ptr = SplitPointer(*path);
    Value* parent = ptr ? FindParent(doc_, *ptr) : nullptr;
    if (!parent) {
      return std::unexpected(Fail("add operation does not apply: doc is missing path: \"" +
                                  *path + "\"" + std::string(kMissing)));
    }
    auto added = Add(*parent, ptr->key, std::move(value), alloc_);
    if (!added) {
      return std::unexpected(Fail("error in add for path: '" + *path + "': " + added.error()));
    }
    return {};
  }

  std::expected<void, berth::Error> DoRemove(const Value& op) {
    auto path = PathOf(op, "remove");
    if (!path) return std::unexpected(path.error());
    auto ptr = SplitPointer(*path);
    Value* parent = ptr ? FindParent(doc_, *ptr) : nullptr;
    if (!parent) {
      return std::unexpected(Fail("remove operation does not apply: doc is missing path: \"" +
                                  *path + "\"" + std::string(kMissing)));
    }
    auto removed = Remove(*parent, ptr->key, nullptr);
    if (!removed) {
      return std::unexpected(
          Fail("error in remove for path: '" + *path + "': " + removed.error()));
    }
    return {};
  }

  std::expected<void, berth::Error> DoReplace(const Value& op) {
    auto path = PathOf(op, "replace");
    if (!path) return std::unexpected(path.error());
    const Value& value = OpValue(op);
    if (path->empty()) {
      if (!value.IsObject() && !value.IsArray()) {
        return std::unexpected(Fail("replace operation value must be object or array"));
      }
      doc_.CopyFrom(value, alloc_);
      return {};
    }
    auto ptr = SplitPointer(*path);
    Value* parent = ptr ? FindParent(doc_, *ptr) : nullptr;
    if (!parent) {
      return std::unexpected(Fail("replace operation does not apply: doc is missing path: " +
                                  *path + std::string(kMissing)));
    }
    auto slot = Get(*parent, ptr->key);
    if (!slot) {
      return std::unexpected(Fail("replace operation does not apply: doc is missing key: " +
                                  *path + std::string(kMissing)));
    }
    (*slot)->CopyFrom(value, alloc_);
    return {};
  }

  std::expected<void, berth::Error> DoMove(const Value& op) {
    auto from = FromOf(op, "move");
    if (!from) return std::unexpected(from.error());
    auto src = SplitPointer(*from);
    Value* src_parent = src ? FindParent(doc_, *src) : nullptr;
    if (!src_parent) {
      return std::unexpected(Fail("move operation does not apply: doc is missing from path: " +
                                  *from + std::string(kMissing)));
    }
    Value moved;
    auto removed = Remove(*src_parent, src->key, &moved);
    if (!removed) {
      std::string why = removed.error();
      if (src_parent->IsObject()) why = "unable to get nonexistent key: " + src->key + ": missing value";
      return std::unexpected(Fail("error in move for path: '" + src->key + "': " + why));
    }
    auto path = PathOf(op, "move");
    if (!path) return std::unexpected(path.error());
    auto dst = SplitPointer(*path);
    Value* dst_parent = dst ? FindParent(doc_, *dst) : nullptr;
    if (!dst_parent) {
      return std::unexpected(
          Fail("move operation does not apply: doc is missing destination path: " + *path +
               std::string(kMissing)));
    }
    auto added = Add(*dst_parent, dst->key, std::move(moved), alloc_);
    if (!added) {
      return std::unexpected(Fail("error in move for path: '" + *path + "': " + added.error()));
    }
    return {};
  }

  std::expected<void, berth::Error> DoCopy(const Value& op) {
    auto from = FromOf(op, "copy");
    if (!from) return std::unexpected(from.error());
    auto src = SplitPointer(*from);
    Value* src_parent = src ? FindParent(doc_, *src) : nullptr;
    if (!src_parent) {
      return std::unexpected(Fail("copy operation does not apply: doc is missing from path: " +
                                  *from + std::string(kMissing)));
    }
    auto got = Get(*src_parent, src->key);
    if (!got) {
      return std::unexpected(Fail("error in copy for from: '" + *from + "': " + got.error()));
    }
    Value copy(**got, alloc_);
    auto path = StringField(op, "path", "operation missing path field");
    if (!path) {
      return std::unexpected(Fail("copy operation failed to decode path: missing value"));
    }
    auto dst = SplitPointer(*path);
    Value* dst_parent = dst ? FindParent(doc_, *dst) : nullptr;
    if (!dst_parent) {
      return std::unexpected(
          Fail("copy operation does not apply: doc is missing destination path: " + *path +
               std::string(kMissing)));
    }
    auto added = Add(*dst_parent, dst->key, std::move(copy), alloc_);
    if (!added) {
      return std::unexpected(Fail("error while adding value during copy: " + added.error()));
    }
    return {};
  }

  std::expected<void, berth::Error> DoTest(const Value& op) {
    auto path = PathOf(op, "test");
    if (!path) return std::unexpected(path.error());
    const Value& want = OpValue(op);
    auto failed = [&] {
      return std::unexpected(Fail("testing value " + *path + " failed: test failed"));
    };
    if (path->empty()) {
      if (doc_ == want) return {};
      return failed();
    }
    auto ptr = SplitPointer(*path);
    Value* parent = ptr ? FindParent(doc_, *ptr) : nullptr;
    if (!parent) {
      return std::unexpected(Fail("test operation does not apply: is missing path: " + *path +
                                  std::string(kMissing)));
    }
    auto got = Get(*parent, ptr->key);
    if (!got) {
      // A missing object member only matches a null value; bad array indices are errors.
      if (parent->IsObject()) {
        if (want.IsNull()) return {};
        return failed();
      }
      return std::unexpected(Fail("error in test for path: '" + *path + "': " + got.error()));
    }
    if (**got == want) return {};
    return failed();
  }

  Value& doc_;
  Allocator& alloc_;
};

}  // namespace

berth::Status ApplyJsonPatch(rapidjson::Value& target, const rapidjson::Value& ops,
                             Allocator& alloc) {
  if (!ops.IsArray()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "json: cannot unmarshal " + std::string(GoTypeName(ops)) +
                         " into Go value of type jsonpatch.Patch");
  }
  for (const Value& op : ops.GetArray()) {
    if (!op.IsObject()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "json: cannot unmarshal " + std::string(GoTypeName(op)) +
                           " into Go value of type jsonpatch.Operation");
    }
  }
  Value work(target, alloc);
  Applier applier(work, alloc);
  for (const Value& op : ops.GetArray()) {
    auto applied = applier.Apply(op);
    if (!applied) return std::unexpected(applied.error());
  }
  target.Swap(work);
  return {};
}

}  // namespace berth::kubesim::patch
