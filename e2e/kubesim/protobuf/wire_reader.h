// e2e/kubesim/protobuf/wire_reader.h
//
// A bounds-checked reader of the protobuf wire format (varints, length-delimited fields, fixed
// 32/64-bit values). Every read fails cleanly on truncated or malformed input instead of reading
// past the end.
#pragma once

#include <cstdint>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::protobuf {

// The wire types of a field key.
enum class WireType : std::uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// FieldKey: a decoded field key (number and wire type).
struct FieldKey {
  std::uint32_t number;
  WireType wire_type;
};

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool AtEnd() const { return pos_ >= data_.size(); }

  // ReadKey reads a field key. Errors: kInvalidArgument for field number 0, wire types 3/4
  // (groups, which Kubernetes never uses), 6, 7, or a truncated varint.
  Result<FieldKey> ReadKey();
  // ReadVarint reads up to 10 bytes of base-128 varint. Errors: kInvalidArgument if truncated
  // or longer than 10 bytes.
  Result<std::uint64_t> ReadVarint();
  // ReadLengthDelimited returns the bytes of a length-delimited value (a view into the input).
  // Errors: kInvalidArgument if the length runs past the end.
  Result<std::string_view> ReadLengthDelimited();
  // ReadFixed32 / ReadFixed64 read little-endian values. Errors: kInvalidArgument if truncated.
  Result<std::uint32_t> ReadFixed32();
  Result<std::uint64_t> ReadFixed64();
  // Skip skips one value of `wire_type`. Errors: as the matching read.
  Status Skip(WireType wire_type);

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
};

}  // namespace berth::kubesim::protobuf
