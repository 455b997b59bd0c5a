// clientgo-shim/cache/slot_table.h
//
// SlotTable: the Store's key → slot map. Open addressing (linear probing, deletion by backward
// shift) over 8-byte cells holding a 32-bit hash of the key and the slot; the keys themselves are
// not stored: a candidate's key is read from the slot's object through the caller's `key_of`.
// At most 70% full, so a pod cache pays ~14 bytes per object here instead of a hash node,
// bucket and malloc header (~56 bytes) per object.
// Not thread-safe (the Store locks). Slots must be < 2^32 - 1.
// Example:
//   SlotTable t;
//   auto key_of = [&](uint32_t slot) { return objects[slot]->Key(); };
//   t.Insert("ns/a", 0);
//   t.Find("ns/a", key_of);  // 0
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace berth::shim {

class SlotTable {
 public:
  using Slot = uint32_t;

  static uint32_t Hash(std::string_view key) {
    const uint64_t h = std::hash<std::string_view>{}(key);
    return static_cast<uint32_t>(h ^ (h >> 32));
  }

  // Find: the slot whose key (key_of(slot)) equals `key`, or nullopt.
  template <class KeyOf>
  std::optional<Slot> Find(std::string_view key, const KeyOf& key_of) const {
    if (size_ == 0) return std::nullopt;
    const uint32_t hash = Hash(key);
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Cell& c = cells_[i];
      if (c.slot_plus_one == 0) return std::nullopt;
      if (c.hash == hash && key_of(c.slot_plus_one - 1) == key) return c.slot_plus_one - 1;
    }
  }

  // Insert files `slot` under `key`, which must not be filed yet (Find first).
  void Insert(std::string_view key, Slot slot) {
    if ((size_ + 1) * 10 > cells_.size() * 7) Grow(size_ + 1);
    Place(Hash(key), slot);
    ++size_;
  }

  // Erase unfiles `slot`, filed under `key`. Returns false when it was not filed there.
  bool Erase(std::string_view key, Slot slot) {
    if (size_ == 0) return false;
    const uint32_t hash = Hash(key);
    size_t i = hash & mask_;
    for (;; i = (i + 1) & mask_) {
      const Cell& c = cells_[i];
      if (c.slot_plus_one == 0) return false;
      if (c.hash == hash && c.slot_plus_one == slot + 1) break;
    }
    // Backward shift: move later cells of the probe run into the hole when their home position
    // does not lie between the hole and themselves.
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      const Cell& c = cells_[j];
      if (c.slot_plus_one == 0) break;
      const size_t home = c.hash & mask_;
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        cells_[i] = c;
        i = j;
      }
    }
    cells_[i] = Cell{};
    --size_;
    return true;
  }

  // Reserve makes room for `n` keys without growing again.
  void Reserve(size_t n) {
    if (n * 10 > cells_.size() * 7) Grow(n);
  }
  void Clear() {
    cells_.clear();
    mask_ = 0;
    size_ = 0;
  }
  void Swap(SlotTable& other) noexcept {
    cells_.swap(other.cells_);
    std::swap(mask_, other.mask_);
    std::swap(size_, other.size_);
  }
  size_t size() const { return size_; }
  size_t FootprintBytes() const { return cells_.capacity() * sizeof(Cell); }

 private:
  struct Cell {
    uint32_t hash = 0;
    uint32_t slot_plus_one = 0;  // 0: empty
  };

  void Place(uint32_t hash, Slot slot) {
    size_t i = hash & mask_;
    while (cells_[i].slot_plus_one != 0) i = (i + 1) & mask_;
    cells_[i] = Cell{hash, slot + 1};
  }

  // Grow: the smallest power of two holding `n` keys at most 70% full (at least 16 cells).
  void Grow(size_t n) {
    size_t cap = 16;
    while (n * 10 > cap * 7) cap *= 2;
    std::vector<Cell> old;
    old.swap(cells_);
    cells_.assign(cap, Cell{});
    mask_ = cap - 1;
    for (const Cell& c : old) {
      if (c.slot_plus_one != 0) Place(c.hash, c.slot_plus_one - 1);
    }
  }

  std::vector<Cell> cells_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace berth::shim
