// clientgo-shim/cache/intern_pool.h
//
// A reference-counted string pool shared by every cached object in the process. Cached objects
// store JSON keys and most short string values as small integer ids into this pool, so the
// thousands of copies of "containers", "IfNotPresent", an image name or a node name that a pod
// cache holds are kept once. This is the main lever behind the ≤1 KB/pod cache figure.
// A string leaves the pool when its last reference is released, so a long-running informer does
// not accumulate uids or names of objects that are gone.
// Thread-safety: all methods are safe from any thread. Intern/Release take the pool's exclusive
// lock; decoding holds a shared lock (ReadLock) for the whole object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#define XXH_INLINE_ALL  // xxhash as inline functions: nothing to link, and short inputs inline
#include <xxhash.h>

namespace berth::shim {

// Most keys and values a pod interns are at most 16 bytes ("containers", "IfNotPresent", a node
// name). For those, hashing and comparing read the bytes as two overlapping words, inline: a call
// to XXH3 or memcmp (their length dispatch) cost more than the work (perf: ≈12 % of packing a pod).
namespace text_internal {
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// Words: (lo, hi) covering every byte of a string of n <= 16 bytes, so two strings of one length
// have equal words exactly when their bytes are equal.
inline void Words(const char* p, size_t n, uint64_t& lo, uint64_t& hi) {
  if (n >= 8) {
    lo = Load64(p);
    hi = Load64(p + n - 8);
  } else if (n >= 4) {
    lo = Load32(p);
    hi = Load32(p + n - 4);
  } else if (n > 0) {
    lo = static_cast<uint64_t>(static_cast<uint8_t>(p[0])) | static_cast<uint64_t>(static_cast<uint8_t>(p[n / 2])) << 8;
    hi = static_cast<uint8_t>(p[n - 1]);
  } else {
    lo = hi = 0;
  }
}
}  // namespace text_internal

// SameText: a == b, inline for strings of at most 16 bytes.
inline bool SameText(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.size() > 16) return std::memcmp(a.data(), b.data(), a.size()) == 0;
  uint64_t alo, ahi, blo, bhi;
  text_internal::Words(a.data(), a.size(), alo, ahi);
  text_internal::Words(b.data(), b.size(), blo, bhi);
  return ((alo ^ blo) | (ahi ^ bhi)) == 0;
}

// TextHash: the pool's hash of a string. Packing hashes every string once, for its subtree's
// shape, and interns it with that hash. Longer than 16 bytes: XXH3 (inlined). Up to 16: the two
// words folded by a 128-bit multiply with XXH3's constants (what XXH3 does for 9-16 bytes,
// without its call and length dispatch); the length is mixed in, so "a" and "a\0" differ.
struct HashedText {
  std::string_view text;
  uint64_t hash;
};
struct TextHash {
  using is_transparent = void;
  uint64_t operator()(std::string_view s) const {
    if (s.size() > 16) return XXH3_64bits(s.data(), s.size());
    uint64_t lo, hi;
    text_internal::Words(s.data(), s.size(), lo, hi);
    const unsigned __int128 m = static_cast<unsigned __int128>(lo ^ 0xbe4ba423396cfeb8ULL ^ s.size()) *
                                (hi ^ 0x1cad21f72c81017cULL);
    uint64_t h = static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
    // XXH3's avalanche: the Swiss tables use the low 7 bits as a tag and the rest as the probe start.
    h ^= h >> 37;
    h *= 0x165667919E3779F9ULL;
    return h ^ (h >> 32);
  }
  uint64_t operator()(const HashedText& h) const { return h.hash; }
};
struct TextEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return SameText(a, b); }
  bool operator()(std::string_view a, const HashedText& b) const { return SameText(a, b.text); }
  bool operator()(const HashedText& a, std::string_view b) const { return SameText(a.text, b); }
};

class InternPool {
 public:
  InternPool() = default;
  InternPool(const InternPool&) = delete;
  InternPool& operator=(const InternPool&) = delete;

  // Batch holds the exclusive lock while one object is packed, so packing N strings costs one
  // lock acquisition.
  class Batch {
   public:
    explicit Batch(InternPool& pool) : pool_(pool), lock_(pool.mu_, std::defer_lock) { SpinThenLock(lock_); }
    // Intern returns the id of `text`, adding one reference.
    uint32_t Intern(std::string_view text) { return pool_.InternLocked({text, TextHash{}(text)}); }
    // Intern with `hash` == TextHash{}(text), computed before the lock was taken.
    uint32_t Intern(std::string_view text, uint64_t hash) { return pool_.InternLocked({text, hash}); }
    // InternSubtree shares a packed JSON subtree (see packed_json.h) that holds one reference to
    // each id in `inner`. If the subtree is already pooled, it gains a reference and the caller's
    // references in `inner` are dropped (the pooled copy holds its own). If it is new, it is
    // pooled only when seen before (a small table of recent hashes), so subtrees that occur once
    // (most pods' spec, with its nodeName) do not pay for a pool entry; the pooled entry then
    // takes over the `inner` references. Returns nullopt when the caller must keep it inline.
    std::optional<uint32_t> InternSubtree(std::string_view packed, std::span<const uint32_t> inner) {
      return pool_.InternSubtreeLocked(packed, inner);
    }
    // Shapes let a packer find a pooled subtree from the JSON value it would pack, before
    // interning the value's strings (see packed_json.cc). FindShape returns the subtree indexed
    // under `shape` (a hash of that value; the caller verifies the bytes), with no reference
    // added; IndexShape indexes pooled subtree `id` (if it is not yet); Text reads a live id;
    // AddRef adds one reference to it.
    std::optional<uint32_t> FindShape(uint64_t shape) const {
      auto it = pool_.shape_index_.find(shape);
      return it == pool_.shape_index_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
    }
    void IndexShape(uint32_t id, uint64_t shape) { pool_.IndexShapeLocked(id, shape); }
    std::string_view Text(uint32_t id) const {
      return pool_.TextOf(id);
    }
    void AddRef(uint32_t id) { ++pool_.hot_[id].refs; }

   private:
    InternPool& pool_;
    std::unique_lock<std::shared_mutex> lock_;
  };

  // ReadLock holds the shared lock while ids are turned back into strings.
  class ReadLock {
   public:
    explicit ReadLock(const InternPool& pool) : pool_(pool), lock_(pool.mu_, std::defer_lock) { SpinThenLock(lock_); }
    // Lookup returns the text of a live id (an id this caller holds a reference to); an id the
    // pool never issued reads as "" rather than crashing.
    std::string_view Lookup(uint32_t id) const {
      return pool_.TextOf(id);
    }

   private:
    const InternPool& pool_;
    std::shared_lock<std::shared_mutex> lock_;
  };

  // Release drops one reference of each id; a string with no references left is freed (a
  // subtree also releases the ids it holds).
  void Release(const std::vector<uint32_t>& ids);

  // Size is the number of distinct live strings.
  size_t Size() const;
  // FootprintBytes estimates the heap the pool uses: entries, string bodies, hash nodes.
  size_t FootprintBytes() const;

 private:
  // SpinThenLock: the lock is held for one object's packing, a few microseconds, and the list
  // decode workers take it for every item: blocking at once put a worker to sleep (a futex wait
  // and a wake-up, longer than the wait itself) thousands of times per cold start. Retrying for
  // about as long as one packing takes, then blocking, keeps them running.
  // `lock` is a deferred std::unique_lock or std::shared_lock.
  template <class Lock>
  static void SpinThenLock(Lock& lock) {
    constexpr int kSpins = 256;
    for (int i = 0; i < kSpins; ++i) {
      if (lock.try_lock()) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    lock.lock();
  }

  struct Entry {
    std::string text;
    bool subtree = false;
    uint64_t shape = 0;  // a subtree's key in shape_index_ (0: not indexed)
  };
  uint32_t InternLocked(const HashedText& text);
  std::optional<uint32_t> InternSubtreeLocked(std::string_view packed, std::span<const uint32_t> inner);
  uint32_t NewEntryLocked(std::string_view text, bool subtree);
  void IndexShapeLocked(uint32_t id, uint64_t shape);
  static constexpr size_t kSeenSlots = 1 << 14;  // 128 KB per pool

  mutable std::shared_mutex mu_;
  // Hot: what interning and reading touch per id, dense (an index, no deque arithmetic): the
  // text's bytes (owned by entries_[id].text) and the reference count.
  struct Hot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t refs = 0;
  };
  std::string_view TextOf(uint32_t id) const {
    return id < hot_.size() ? std::string_view(hot_[id].data, hot_[id].size) : std::string_view();
  }

  std::deque<Entry> entries_;  // a deque: Entry addresses (and so map keys) never move
  std::vector<Hot> hot_;       // by id, as entries_
  std::vector<uint32_t> free_ids_;
  // Open addressing (abseil's Swiss table): a lookup is one hash and, mostly, one probe of
  // contiguous memory, where a node-based map chases a pointer per bucket. Interning is most of
  // the cost of packing an object.
  absl::flat_hash_map<std::string_view, uint32_t, TextHash, TextEq> index_;  // views into entries_[id].text
  absl::flat_hash_map<std::string_view, uint32_t, TextHash, TextEq> subtree_index_;  // packed subtrees
  absl::flat_hash_map<uint64_t, uint32_t> shape_index_;  // subtrees by their JSON's hash
  std::vector<uint64_t> seen_;  // direct-mapped hashes of subtrees seen once
  size_t text_bytes_ = 0;
};

// GlobalInternPool is the pool every CachedObject uses unless told otherwise.
InternPool& GlobalInternPool();

}  // namespace berth::shim
