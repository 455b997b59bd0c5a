// e2e/kubesim/protobuf/wire_writer.cc
#include "e2e/kubesim/protobuf/wire_writer.h"

#include <bit>
#include <cstring>

namespace berth::kubesim::protobuf {

void WireWriter::Varint(std::uint64_t value) {
  while (value >= 0x80) {
    data_.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  data_.push_back(static_cast<char>(value));
}

void WireWriter::Key(std::uint32_t number, WireType wire_type) {
  Varint((static_cast<std::uint64_t>(number) << 3) | static_cast<std::uint64_t>(wire_type));
}

void WireWriter::String(std::uint32_t number, std::string_view value) {
  Key(number, WireType::kLengthDelimited);
  Varint(value.size());
  data_.append(value);
}

void WireWriter::Bool(std::uint32_t number, bool value) {
  Key(number, WireType::kVarint);
  Varint(value ? 1 : 0);
}

void WireWriter::Int64(std::uint32_t number, std::int64_t value) {
  Key(number, WireType::kVarint);
  Varint(static_cast<std::uint64_t>(value));
}

void WireWriter::Double(std::uint32_t number, double value) {
  Key(number, WireType::kFixed64);
  std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i) data_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

void WireWriter::Float(std::uint32_t number, float value) {
  Key(number, WireType::kFixed32);
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  for (int i = 0; i < 4; ++i) data_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

}  // namespace berth::kubesim::protobuf
