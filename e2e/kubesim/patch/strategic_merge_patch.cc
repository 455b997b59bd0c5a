// e2e/kubesim/patch/strategic_merge_patch.cc
//
// The merge runs on a deep copy of the target, swapped in only on success. Every value taken from
// the patch is merged into an empty container rather than copied, so directives nested anywhere
// in it are interpreted and never reach the stored object. Error wording follows
// k8s.io/apimachinery's strategicpatch and mergepatch packages.
#include "e2e/kubesim/patch/strategic_merge_patch.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim::patch {
namespace {

using rapidjson::Value;
using Path = std::vector<std::string>;

constexpr std::string_view kPatchDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder/";
constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList/";

constexpr std::string_view kBadRetainKeys = "invalid patch format of retainKeys";
constexpr std::string_view kBadSetElementOrder = "invalid patch format of setElementOrder list";
constexpr std::string_view kBadPrimitiveList = "invalid patch format of primitive list";

berth::Status Fail(std::string_view message) {
  return MakeError(ErrorCode::kInvalidArgument, std::string(message));
}

std::string_view View(const Value& s) { return {s.GetString(), s.GetStringLength()}; }

std::string Describe(const Value& v) { return json::Serialize(v); }

std::string Dotted(const Path& path) {
  std::string out;
  for (const std::string& p : path) out += (out.empty() ? "" : ".") + p;
  return out;
}

std::string NoMergeKey(const Value& elem, std::string_view key) {
  return "map: " + Describe(elem) + " does not contain declared merge key: " + std::string(key);
}

bool IsDirectiveKey(std::string_view key) {
  return key == kPatchDirective || key == kRetainKeys || key.starts_with(kSetElementOrderPrefix) ||
         key.starts_with(kDeleteFromPrimitiveListPrefix);
}

// Identity of a list element, for matching and ordering: its merge-key value in lists of
// objects, the element itself in lists of scalars. nullptr when the key is missing.
const Value* IdentityOf(const Value& elem, std::string_view merge_key) {
  if (merge_key.empty()) return &elem;
  return elem.IsObject() ? json::Member(elem, merge_key) : nullptr;
}

int IndexOf(const std::vector<const Value*>& ids, const Value* id) {
  if (id == nullptr) return -1;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] != nullptr && *ids[i] == *id) return static_cast<int>(i);
  }
  return -1;
}

bool Contains(const Value& array, const Value& v) {
  for (const Value& e : array.GetArray()) {
    if (e == v) return true;
  }
  return false;
}

// Reorder puts the elements of `list` named in `wanted` in that order, and interleaves the
// others (server-only elements, kept in their relative order) the way upstream's
// normalizeElementOrder/mergeSortedSlice does: a server-only element goes before a wanted one
// only when both were stored and it was stored first. So stored neighbours stay together and
// elements new to the list come before server-only elements stored after nothing in the patch.
void Reorder(Value& list, const std::vector<const Value*>& wanted,
             const std::vector<const Value*>& server, std::string_view merge_key,
             Allocator& alloc) {
  std::vector<Value> items;
  items.reserve(list.Size());
  for (Value& e : list.GetArray()) items.emplace_back(std::move(e));
  list.Clear();

  std::vector<size_t> patch_items, server_only;
  for (size_t i = 0; i < items.size(); ++i) {
    (IndexOf(wanted, IdentityOf(items[i], merge_key)) >= 0 ? patch_items : server_only)
        .push_back(i);
  }
  std::stable_sort(patch_items.begin(), patch_items.end(), [&](size_t a, size_t b) {
    return IndexOf(wanted, IdentityOf(items[a], merge_key)) <
           IndexOf(wanted, IdentityOf(items[b], merge_key));
  });
  auto stored_before = [&](size_t l, size_t r) {
    int li = IndexOf(server, IdentityOf(items[l], merge_key));
    int ri = IndexOf(server, IdentityOf(items[r], merge_key));
    return li >= 0 && ri >= 0 && li < ri;
  };
  size_t i = 0, j = 0;
  while (i < server_only.size() || j < patch_items.size()) {
    bool take_server = j >= patch_items.size() ||
                       (i < server_only.size() && stored_before(server_only[i], patch_items[j]));
    size_t next = take_server ? server_only[i++] : patch_items[j++];
    list.PushBack(std::move(items[next]), alloc);
  }
}

enum class ElemKind { kNull, kBool, kNumber, kString, kArray, kObject };

ElemKind KindOf(const Value& v) {
  if (v.IsObject()) return ElemKind::kObject;
  if (v.IsArray()) return ElemKind::kArray;
  if (v.IsString()) return ElemKind::kString;
  if (v.IsNumber()) return ElemKind::kNumber;
  if (v.IsBool()) return ElemKind::kBool;
  return ElemKind::kNull;
}

// OrderRequest: one $setElementOrder directive, with the stored list as it was before the patch.
struct OrderRequest {
  std::string field;
  const Value* order = nullptr;
  Value before;
};

class Merger {
 public:
  Merger(const PatchSchema& schema, Allocator& alloc) : schema_(schema), alloc_(alloc) {}

  // MergeMap merges the object `patch` into the object `orig` at `path`.
  berth::Status MergeMap(Value& orig, const Value& patch, Path& path) {
    if (const Value* d = json::Member(patch, kPatchDirective)) {
      std::string_view directive = d->IsString() ? View(*d) : std::string_view();
      if (directive == "delete") {
        orig.SetObject();
        return {};
      }
      if (directive == "replace") {
        orig.SetObject();  // then the rest of the patch is merged into nothing
      } else if (directive != "merge") {
        return Fail("unknown patch type: " + Describe(*d) + " in map: " + Describe(patch));
      }
    }
    if (auto st = ApplyRetainKeys(orig, patch); !st) return st;

    std::vector<OrderRequest> orders;
    for (const auto& m : patch.GetObject()) {
      std::string_view key = View(m.name);
      if (!key.starts_with(kSetElementOrderPrefix)) continue;
      std::string field(key.substr(kSetElementOrderPrefix.size()));
      if (field.empty() || !m.value.IsArray()) return Fail(kBadSetElementOrder);
      OrderRequest r{field, &m.value, Value()};
      if (const Value* cur = json::Member(orig, field)) r.before.CopyFrom(*cur, alloc_);
      orders.push_back(std::move(r));
    }

    for (const auto& m : patch.GetObject()) {
      std::string_view key = View(m.name);
      if (!key.starts_with(kDeleteFromPrimitiveListPrefix)) continue;
      std::string_view field = key.substr(kDeleteFromPrimitiveListPrefix.size());
      if (field.empty() || !m.value.IsArray()) return Fail(kBadPrimitiveList);
      for (const Value& e : m.value.GetArray()) {
        if (e.IsObject() || e.IsArray()) return Fail(kBadPrimitiveList);
      }
      auto it = orig.FindMember(json::KeyOf(field));
      if (it == orig.MemberEnd() || !it->value.IsArray()) continue;
      Value& list = it->value;
      for (auto e = list.Begin(); e != list.End();) {
        e = Contains(m.value, *e) ? list.Erase(e) : e + 1;
      }
    }

    for (const auto& m : patch.GetObject()) {
      std::string_view key = View(m.name);
      if (key.starts_with("$")) {
        if (IsDirectiveKey(key)) continue;
        return Fail("unknown strategic merge patch directive: " + std::string(key));
      }
      path.emplace_back(key);
      berth::Status st = MergeMember(orig, m.name, m.value, path);
      path.pop_back();
      if (!st) return st;
    }

    for (OrderRequest& r : orders) {
      path.push_back(r.field);
      berth::Status st = ApplySetElementOrder(orig, r, patch, path);
      path.pop_back();
      if (!st) return st;
    }
    return {};
  }

 private:
  berth::Status MergeMember(Value& orig, const Value& name, const Value& pv, Path& path) {
    auto it = orig.FindMember(name);
    bool stored = it != orig.MemberEnd();
    if (pv.IsNull()) {  // delete; a null for an unstored key is dropped
      if (stored) orig.EraseMember(it);
      return {};
    }
    if (stored && it->value.IsObject() && pv.IsObject()) return MergeMap(it->value, pv, path);
    if (stored && it->value.IsArray() && pv.IsArray()) return MergeList(it->value, pv, path);
    Value fresh;
    if (auto st = Build(fresh, pv, path); !st) return st;
    if (stored) {
      it->value = std::move(fresh);
    } else {
      orig.AddMember(Value(name, alloc_), std::move(fresh), alloc_);
    }
    return {};
  }

  // Build makes the stored form of a patch value that has nothing to merge with.
  berth::Status Build(Value& out, const Value& pv, Path& path) {
    if (pv.IsObject()) {
      out.SetObject();
      return MergeMap(out, pv, path);
    }
    if (pv.IsArray()) {
      out.SetArray();
      return MergeList(out, pv, path);
    }
    out.CopyFrom(pv, alloc_);
    return {};
  }

  berth::Status ApplyRetainKeys(Value& orig, const Value& patch) {
    const Value* keys = json::Member(patch, kRetainKeys);
    if (keys == nullptr) return {};
    if (!keys->IsArray()) return Fail(kBadRetainKeys);
    auto retained = [&](const Value& name) {
      for (const Value& k : keys->GetArray()) {
        if (k.IsString() && k == name) return true;
      }
      return false;
    };
    // Every key the patch sets must be retained, or the patch contradicts itself.
    for (const auto& m : patch.GetObject()) {
      if (m.value.IsNull() || View(m.name).starts_with("$")) continue;
      if (!retained(m.name)) return Fail(kBadRetainKeys);
    }
    for (auto it = orig.MemberBegin(); it != orig.MemberEnd();) {
      it = retained(it->name) ? it + 1 : orig.EraseMember(it);
    }
    return {};
  }

  berth::Status MergeList(Value& orig, const Value& patch, Path& path) {
    ListStrategy strategy = schema_.ForList(path);
    bool replace = false;
    std::vector<const Value*> regular, deletes;
    for (const Value& e : patch.GetArray()) {
      const Value* d = e.IsObject() ? json::Member(e, kPatchDirective) : nullptr;
      if (d == nullptr) {
        regular.push_back(&e);
        continue;
      }
      std::string_view directive = d->IsString() ? View(*d) : std::string_view();
      if (directive == "replace") {
        replace = true;
      } else if (directive == "delete") {
        deletes.push_back(&e);
      } else if (directive == "merge") {
        regular.push_back(&e);
      } else {
        return Fail("unknown patch type: " + Describe(*d) + " in map: " + Describe(e));
      }
    }

    if (!strategy.IsMerge() || replace) {
      // Atomic list, or `$patch: replace`: the patch's elements are the new list.
      Value out(rapidjson::kArrayType);
      for (const Value* e : regular) {
        Value fresh;
        if (e->IsArray()) {
          fresh.CopyFrom(*e, alloc_);  // lists of lists carry no directives
        } else if (auto st = Build(fresh, *e, path); !st) {
          return st;
        }
        out.PushBack(std::move(fresh), alloc_);
      }
      orig.Swap(out);
      return {};
    }

    std::optional<ElemKind> kind;
    auto check = [&](const Value& e) -> berth::Status {
      ElemKind k = KindOf(e);
      if (k == ElemKind::kArray) return Fail("lists of lists are not supported");
      if (kind && *kind != k) {
        return Fail("list element types are not identical: " + Describe(orig) + ", " +
                    Describe(patch));
      }
      kind = k;
      return {};
    };
    for (const Value& e : orig.GetArray()) {
      if (auto st = check(e); !st) return st;
    }
    for (const Value* e : regular) {
      if (auto st = check(*e); !st) return st;
    }
    for (const Value* e : deletes) {
      if (auto st = check(*e); !st) return st;
    }
    if (!kind) return {};  // both empty
    if (*kind != ElemKind::kObject) return MergeScalars(orig, regular);
    if (strategy.merge_key.empty()) {
      return Fail("cannot merge lists without merge key for " + Dotted(path));
    }
    return MergeObjects(orig, regular, deletes, strategy.merge_key, path);
  }

  // MergeScalars: ordered set union; patch elements keep the patch's order.
  berth::Status MergeScalars(Value& orig, const std::vector<const Value*>& regular) {
    std::vector<Value> server;
    server.reserve(orig.Size());
    Value merged(rapidjson::kArrayType);
    for (Value& e : orig.GetArray()) {
      server.emplace_back(e, alloc_);
      if (!Contains(merged, e)) merged.PushBack(std::move(e), alloc_);
    }
    for (const Value* e : regular) {
      if (!Contains(merged, *e)) merged.PushBack(Value(*e, alloc_), alloc_);
    }
    std::vector<const Value*> server_ids;
    for (const Value& s : server) server_ids.push_back(&s);
    Reorder(merged, regular, server_ids, "", alloc_);
    orig.Swap(merged);
    return {};
  }

  berth::Status MergeObjects(Value& orig, const std::vector<const Value*>& regular,
                             const std::vector<const Value*>& deletes, const std::string& key,
                             Path& path) {
    for (const Value* d : deletes) {
      const Value* id = json::Member(*d, key);
      if (id == nullptr) return Fail(NoMergeKey(*d, key));
      for (auto e = orig.Begin(); e != orig.End();) {
        const Value* eid = IdentityOf(*e, key);
        e = (eid != nullptr && *eid == *id) ? orig.Erase(e) : e + 1;
      }
    }
    std::vector<Value> server_keys;  // stored order, by merge key, after deletions
    server_keys.reserve(orig.Size());
    std::vector<const Value*> server_ids;
    for (const Value& e : orig.GetArray()) {
      const Value* id = IdentityOf(e, key);
      if (id == nullptr) {
        server_ids.push_back(nullptr);
        continue;
      }
      server_keys.emplace_back(*id, alloc_);
      server_ids.push_back(&server_keys.back());
    }
    std::vector<const Value*> wanted;
    for (const Value* p : regular) {
      const Value* id = json::Member(*p, key);
      if (id == nullptr) return Fail(NoMergeKey(*p, key));
      wanted.push_back(id);
      Value* match = nullptr;
      for (Value& e : orig.GetArray()) {
        const Value* eid = IdentityOf(e, key);
        if (eid != nullptr && *eid == *id) {
          match = &e;
          break;
        }
      }
      if (match != nullptr) {
        if (auto st = MergeMap(*match, *p, path); !st) return st;
      } else {
        Value fresh;
        if (auto st = Build(fresh, *p, path); !st) return st;
        orig.PushBack(std::move(fresh), alloc_);
      }
    }
    Reorder(orig, wanted, server_ids, key, alloc_);
    return {};
  }

  berth::Status ApplySetElementOrder(Value& orig, const OrderRequest& r, const Value& patch,
                                     Path& path) {
    ListStrategy strategy = schema_.ForList(path);
    // An atomic list already has exactly the order the patch sent.
    if (!strategy.IsMerge()) return {};
    const std::string& key = strategy.merge_key;
    const Value& order = *r.order;
    std::vector<const Value*> wanted;
    for (const Value& o : order.GetArray()) {
      if (key.empty()) {
        if (o.IsObject() || o.IsArray()) return Fail(kBadSetElementOrder);
      } else if (!o.IsObject()) {
        return Fail(kBadSetElementOrder);
      } else if (json::Member(o, key) == nullptr) {
        return Fail(NoMergeKey(o, key));
      }
      wanted.push_back(IdentityOf(o, key));
    }
    // The patch list must list its elements in the same relative order as the directive.
    if (const Value* list = json::Member(patch, r.field)) {
      if (!list->IsArray()) return Fail(kBadSetElementOrder);
      std::vector<const Value*> items;
      for (const Value& e : list->GetArray()) {
        if (e.IsObject() && json::Member(e, kPatchDirective) != nullptr) continue;
        items.push_back(IdentityOf(e, key));
      }
      size_t pi = 0;
      for (size_t oi = 0; pi < items.size() && oi < wanted.size(); ++oi) {
        if (items[pi] != nullptr && *items[pi] == *wanted[oi]) ++pi;
      }
      if (pi < items.size()) {
        return Fail("The order in patch list:\n" + Describe(*list) +
                    "\n doesn't match $setElementOrder list:\n" + Describe(order) + "\n");
      }
    }
    auto it = orig.FindMember(json::KeyOf(r.field));
    if (it == orig.MemberEnd() || !it->value.IsArray()) return {};
    std::vector<const Value*> server;
    if (r.before.IsArray()) {
      for (const Value& e : r.before.GetArray()) server.push_back(IdentityOf(e, key));
    }
    Reorder(it->value, wanted, server, key, alloc_);
    return {};
  }

  const PatchSchema& schema_;
  Allocator& alloc_;
};

std::string_view GoTypeName(const Value& v) {
  switch (KindOf(v)) {
    case ElemKind::kObject:
      return "object";
    case ElemKind::kArray:
      return "array";
    case ElemKind::kString:
      return "string";
    case ElemKind::kNumber:
      return "number";
    case ElemKind::kBool:
      return "bool";
    case ElemKind::kNull:
      break;
  }
  return "null";
}

}  // namespace

berth::Status ApplyStrategicMergePatch(rapidjson::Value& target, const rapidjson::Value& patch,
                                       Allocator& alloc, const PatchSchema& schema) {
  if (!patch.IsObject()) {
    return Fail("json: cannot unmarshal " + std::string(GoTypeName(patch)) +
                " into Go value of type map[string]interface {}");
  }
  if (!target.IsObject()) return Fail("invalid JSON document");
  Value work(target, alloc);
  Merger merger(schema, alloc);
  Path path;
  if (auto st = merger.MergeMap(work, patch, path); !st) return st;
  target.Swap(work);
  return {};
}

}  // namespace berth::kubesim::patch
