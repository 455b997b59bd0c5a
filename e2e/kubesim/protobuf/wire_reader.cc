// e2e/kubesim/protobuf/wire_reader.cc
#include "e2e/kubesim/protobuf/wire_reader.h"

#include <string>

namespace berth::kubesim::protobuf {
namespace {

std::unexpected<Error> Malformed(std::string what) {
  return MakeError(ErrorCode::kInvalidArgument, "malformed protobuf: " + std::move(what));
}

}  // namespace

Result<std::uint64_t> WireReader::ReadVarint() {
  std::uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= data_.size()) return Malformed("truncated varint");
    auto byte = static_cast<std::uint8_t>(data_[pos_++]);
    value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return Malformed("varint longer than 10 bytes");
}

Result<FieldKey> WireReader::ReadKey() {
  auto key = ReadVarint();
  if (!key) return std::unexpected(key.error());
  std::uint64_t number = *key >> 3;
  auto wire = static_cast<std::uint8_t>(*key & 7);
  if (number == 0 || number > 0x1FFFFFFF) return Malformed("invalid field number " + std::to_string(number));
  if (wire != 0 && wire != 1 && wire != 2 && wire != 5) {
    return Malformed("unsupported wire type " + std::to_string(wire) + " for field " + std::to_string(number));
  }
  return FieldKey{static_cast<std::uint32_t>(number), static_cast<WireType>(wire)};
}

Result<std::string_view> WireReader::ReadLengthDelimited() {
  auto length = ReadVarint();
  if (!length) return std::unexpected(length.error());
  if (*length > data_.size() - pos_) return Malformed("length-delimited field runs past the end");
  std::string_view out = data_.substr(pos_, *length);
  pos_ += *length;
  return out;
}

Result<std::uint32_t> WireReader::ReadFixed32() {
  if (data_.size() - pos_ < 4) return Malformed("truncated fixed32");
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(data_[pos_ + i]);
  pos_ += 4;
  return v;
}

Result<std::uint64_t> WireReader::ReadFixed64() {
  if (data_.size() - pos_ < 8) return Malformed("truncated fixed64");
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(data_[pos_ + i]);
  pos_ += 8;
  return v;
}

Status WireReader::Skip(WireType wire_type) {
  switch (wire_type) {
    case WireType::kVarint: {
      auto v = ReadVarint();
      if (!v) return std::unexpected(v.error());
      return {};
    }
    case WireType::kFixed64: {
      auto v = ReadFixed64();
      if (!v) return std::unexpected(v.error());
      return {};
    }
    case WireType::kLengthDelimited: {
      auto v = ReadLengthDelimited();
      if (!v) return std::unexpected(v.error());
      return {};
    }
    case WireType::kFixed32: {
      auto v = ReadFixed32();
      if (!v) return std::unexpected(v.error());
      return {};
    }
  }
  return Malformed("unsupported wire type");
}

}  // namespace berth::kubesim::protobuf
