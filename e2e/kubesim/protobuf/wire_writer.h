// e2e/kubesim/protobuf/wire_writer.h
//
// A writer of the protobuf wire format, the counterpart of wire_reader.h: varints, length-
// delimited fields (strings, bytes, nested messages) and fixed 32/64-bit floats. Used for the
// responses kubesim answers in protobuf (the /openapi/v2 document, encoder.h's objects).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "e2e/kubesim/protobuf/wire_reader.h"

namespace berth::kubesim::protobuf {

class WireWriter {
 public:
  // Key writes a field key (number << 3 | wire type).
  void Key(std::uint32_t number, WireType wire_type);
  // Varint writes a base-128 varint (negative int64 values take 10 bytes, as protobuf's int64).
  void Varint(std::uint64_t value);

  // Typed fields: a key and the value.
  void String(std::uint32_t number, std::string_view value);  // also bytes and nested messages
  void Bool(std::uint32_t number, bool value);
  void Int64(std::uint32_t number, std::int64_t value);
  void Double(std::uint32_t number, double value);
  void Float(std::uint32_t number, float value);
  // Message writes `inner`'s bytes as a length-delimited field.
  void Message(std::uint32_t number, const WireWriter& inner) { String(number, inner.data_); }

  const std::string& data() const { return data_; }
  std::string Take() { return std::move(data_); }
  bool empty() const { return data_.empty(); }

 private:
  std::string data_;
};

}  // namespace berth::kubesim::protobuf
