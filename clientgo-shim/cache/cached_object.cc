#include "clientgo-shim/cache/cached_object.h"

#include <cstring>
#include <vector>

#include "clientgo-shim/base/json.h"
#include "clientgo-shim/cache/packed_json.h"

namespace berth::shim {
namespace {

// Malloc headers and rounding, roughly, per allocation (glibc: 16-byte granularity + 8).
size_t Alloc(size_t n) { return (n + 8 + 15) / 16 * 16; }

}  // namespace

Result<ObjectPtr> CachedObject::FromJson(const rapidjson::Value& object, InternPool& pool) {
  if (!object.IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "cached object: not a JSON object");
  }
  const rapidjson::Value* meta = json::Member(object, "metadata");
  if (!meta || !meta->IsObject()) {
    return MakeError(ErrorCode::kInvalidArgument, "cached object: metadata is missing");
  }
  std::string_view name = json::GetString(*meta, {"name"});
  std::string_view ns = json::GetString(*meta, {"namespace"});
  std::string_view uid = json::GetString(*meta, {"uid"});
  std::string_view rv = json::GetString(*meta, {"resourceVersion"});
  if (name.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "cached object: metadata.name is missing");
  }
  if (name.size() > 0xffff || ns.size() > 0xffff || uid.size() > 0xff || rv.size() > 0xff) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cached object " + std::string(name.substr(0, 64)) +
                         ": name, namespace, uid or resourceVersion is too long");
  }

  // Pack everything except the identity fields, which live unpacked in the buffer.
  // The thread's buffer: packing allocates nothing once it has grown to a typical object.
  thread_local std::string packed;
  packed.clear();
  PackJson(object, pool, packed, {"name", "namespace", "uid", "resourceVersion"});

  auto obj = std::make_shared<CachedObject>(PrivateTag{});
  const size_t key_len = ns.empty() ? name.size() : ns.size() + 1 + name.size();
  const size_t total = key_len + uid.size() + rv.size() + packed.size();
  obj->buf_ = std::make_unique_for_overwrite<char[]>(total);
  char* p = obj->buf_.get();
  // memcpy from an empty string_view may get a null pointer, which is undefined behaviour.
  auto append = [&p](std::string_view part) {
    if (part.empty()) return;
    std::memcpy(p, part.data(), part.size());
    p += part.size();
  };
  if (!ns.empty()) {
    append(ns);
    *p++ = '/';
  }
  append(name);
  append(uid);
  append(rv);
  append(std::string_view(packed.data(), packed.size()));
  obj->pool_ = &pool;
  obj->packed_len_ = static_cast<uint32_t>(packed.size());
  if (packed.capacity() > (64u << 10)) std::string().swap(packed);  // one huge object is not kept
  obj->ns_len_ = static_cast<uint16_t>(ns.size());
  obj->name_len_ = static_cast<uint16_t>(name.size());
  obj->uid_len_ = static_cast<uint8_t>(uid.size());
  obj->rv_len_ = static_cast<uint8_t>(rv.size());
  return obj;
}

CachedObject::~CachedObject() {
  if (!pool_ || !buf_) return;
  std::vector<uint32_t> ids;
  ids.reserve(64);
  CollectInternedIds(Packed(), ids);
  pool_->Release(ids);
}

std::string_view CachedObject::Key() const {
  return {buf_.get(), ns_len_ ? ns_len_ + 1u + name_len_ : name_len_};
}
std::string_view CachedObject::Namespace() const { return {buf_.get(), ns_len_}; }
std::string_view CachedObject::Name() const {
  return {buf_.get() + (ns_len_ ? ns_len_ + 1 : 0), name_len_};
}
std::string_view CachedObject::Uid() const {
  return {buf_.get() + Key().size(), uid_len_};
}
std::string_view CachedObject::ResourceVersion() const {
  return {buf_.get() + Key().size() + uid_len_, rv_len_};
}
std::string_view CachedObject::Packed() const {
  return {buf_.get() + Key().size() + uid_len_ + rv_len_, packed_len_};
}

Result<rapidjson::Document> CachedObject::ToJson() const {
  rapidjson::Document doc;
  auto& a = doc.GetAllocator();
  if (auto st = UnpackJson(Packed(), *pool_, doc, a); !st) return std::unexpected(st.error());
  if (!doc.IsObject()) doc.SetObject();
  rapidjson::Value& meta = json::EnsureObject(doc, "metadata", a);
  json::SetString(meta, "name", Name(), a);
  if (ns_len_) json::SetString(meta, "namespace", Namespace(), a);
  if (uid_len_) json::SetString(meta, "uid", Uid(), a);
  if (rv_len_) json::SetString(meta, "resourceVersion", ResourceVersion(), a);
  return doc;
}

std::optional<std::string> CachedObject::FindString(
    std::initializer_list<std::string_view> path) const {
  if (path.size() == 2 && *path.begin() == "metadata") {
    std::string_view leaf = *(path.begin() + 1);
    if (leaf == "name") return std::string(Name());
    if (leaf == "namespace") {
      return ns_len_ ? std::optional<std::string>(std::string(Namespace())) : std::nullopt;
    }
    if (leaf == "uid") return uid_len_ ? std::optional<std::string>(std::string(Uid())) : std::nullopt;
    if (leaf == "resourceVersion") {
      return rv_len_ ? std::optional<std::string>(std::string(ResourceVersion())) : std::nullopt;
    }
  }
  return FindPackedString(Packed(), *pool_, path);
}

std::optional<rapidjson::Document> CachedObject::FindJson(
    std::initializer_list<std::string_view> path) const {
  rapidjson::Document doc;
  if (!FindPackedValue(Packed(), *pool_, path, doc, doc.GetAllocator())) return std::nullopt;
  return doc;
}

bool CachedObject::FindValue(std::initializer_list<std::string_view> path, rapidjson::Value& out,
                             rapidjson::Document::AllocatorType& alloc) const {
  return FindPackedValue(Packed(), *pool_, path, out, alloc);
}

Status CachedObject::FindFiltered(const PackedFilter& filter, rapidjson::Value& out,
                                  rapidjson::Document::AllocatorType& alloc) const {
  return UnpackFiltered(Packed(), *pool_, filter, out, alloc);
}

Status CachedObject::FindFilteredView(const PackedFilter& filter, rapidjson::Value& out,
                                      rapidjson::Document::AllocatorType& alloc) const {
  return UnpackFiltered(Packed(), *pool_, filter, out, alloc, UnpackStrings::kReference);
}

size_t CachedObject::FootprintBytes() const {
  // make_shared puts the control block (two counts and a vtable pointer) next to the object.
  const size_t buf = Key().size() + uid_len_ + rv_len_ + packed_len_;
  return Alloc(sizeof(CachedObject) + 2 * sizeof(void*)) + Alloc(buf);
}

}  // namespace berth::shim
