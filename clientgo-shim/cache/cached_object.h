// clientgo-shim/cache/cached_object.h
//
// CachedObject: one object as the informer cache keeps it, after the Transform. Immutable and
// shared (ObjectPtr = shared_ptr<const CachedObject>): readers get the same pointer the store
// holds and must not expect it to change; an update replaces the pointer.
// Memory: name, namespace, uid and resourceVersion live in one small heap block next to the
// rest of the object, which is packed (packed_json.h) with keys and repeated strings interned in
// a process-wide pool. ToJson() rebuilds the (transformed) JSON on demand; FindString() reads
// one field without decoding the rest.
// Example:
//   auto obj = CachedObject::FromJson(std::move(doc));   // doc already transformed
//   if (obj) { (*obj)->Key(); (*obj)->FindString({"spec", "nodeName"}); }
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/cache/intern_pool.h"
#include "clientgo-shim/cache/packed_json.h"

namespace berth::shim {

class CachedObject;
using ObjectPtr = std::shared_ptr<const CachedObject>;

class CachedObject {
 public:
  // FromJson builds the cached form of an object (already transformed). The object keeps a
  // reference to `pool` until it is destroyed.
  // Errors: kInvalidArgument when the value is not an object or has no metadata.name, or when
  // name/namespace/uid/resourceVersion exceed their size limits (253/63/255/255 bytes are the
  // API limits; here 65535/65535/255/255).
  static Result<ObjectPtr> FromJson(const rapidjson::Value& object,
                                    InternPool& pool = GlobalInternPool());

  struct PrivateTag {};
  explicit CachedObject(PrivateTag) {}
  ~CachedObject();
  CachedObject(const CachedObject&) = delete;
  CachedObject& operator=(const CachedObject&) = delete;

  // Key is "<namespace>/<name>", or "<name>" for cluster-scoped objects (MetaNamespaceKeyFunc).
  std::string_view Key() const;
  std::string_view Name() const;
  std::string_view Namespace() const;
  std::string_view Uid() const;
  std::string_view ResourceVersion() const;

  // ToJson rebuilds the transformed object. Errors: kDecode only if memory was corrupted.
  Result<rapidjson::Document> ToJson() const;
  // FindString reads one string field by object keys ({"spec","nodeName"}); nullopt when absent
  // or not a string. metadata.name/namespace/uid/resourceVersion are answered directly.
  std::optional<std::string> FindString(std::initializer_list<std::string_view> path) const;
  // FindJson decodes one value by object keys ({"status", "allocatable"}) without decoding the
  // rest; nullopt when absent. Reads the packed body only: metadata.name/namespace/uid/
  // resourceVersion are not in it (use the accessors), and FindJson({"metadata"}) lacks them.
  std::optional<rapidjson::Document> FindJson(std::initializer_list<std::string_view> path) const;
  // FindValue is FindJson into `out` with `alloc` (to build a larger document without copies).
  // Returns false and leaves `out` null when absent.
  bool FindValue(std::initializer_list<std::string_view> path, rapidjson::Value& out,
                 rapidjson::Document::AllocatorType& alloc) const;

  // FindFiltered decodes the packed body through `filter` (packed_json.h) into `out` with
  // `alloc`: the members a reader needs of a large object, without the rest. Like FindJson it
  // lacks metadata.name/namespace/uid/resourceVersion. Errors: kDecode only if memory was corrupted.
  Status FindFiltered(const PackedFilter& filter, rapidjson::Value& out,
                      rapidjson::Document::AllocatorType& alloc) const;
  // FindFilteredView is FindFiltered whose strings point into this object and the intern pool
  // (UnpackStrings::kReference): no copies, but `out` is valid only while this object is held.
  Status FindFilteredView(const PackedFilter& filter, rapidjson::Value& out,
                          rapidjson::Document::AllocatorType& alloc) const;

  // FootprintBytes is this object's own heap use: the object, its buffer, the shared_ptr
  // control block and allocator headers. Interned strings are counted by the pool.
  size_t FootprintBytes() const;
  // PackedSize is the size of the packed body alone (for tests and benchmarks).
  size_t PackedSize() const { return packed_len_; }

 private:
  std::string_view Packed() const;

  std::unique_ptr<char[]> buf_;  // ns | '/' | name | uid | rv | packed
  InternPool* pool_ = nullptr;
  uint32_t packed_len_ = 0;
  uint16_t ns_len_ = 0;
  uint16_t name_len_ = 0;
  uint8_t uid_len_ = 0;
  uint8_t rv_len_ = 0;
};

}  // namespace berth::shim
