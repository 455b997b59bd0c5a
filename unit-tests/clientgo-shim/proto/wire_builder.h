// unit-tests/clientgo-shim/proto/wire_builder.h
//
// Wire: protobuf bytes written by hand from field numbers (no generated code), so the fixtures
// test the decoder against upstream's published numbering rather than against our own .proto.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace berth::shim::proto::testing {

class Wire {
 public:
  // Varint field (wire type 0): int32/int64/bool.
  Wire& Varint(uint32_t field, uint64_t value) {
    Key(field, 0);
    PutVarint(value);
    return *this;
  }
  // Length-delimited field (wire type 2): string, bytes, or an embedded message.
  Wire& Bytes(uint32_t field, std::string_view value) {
    Key(field, 2);
    PutVarint(value.size());
    bytes_.append(value);
    return *this;
  }
  Wire& Msg(uint32_t field, const Wire& message) { return Bytes(field, message.str()); }
  // MapEntry: a map<string, string> entry {1 key, 2 value}.
  Wire& StringMapEntry(uint32_t field, std::string_view key, std::string_view value) {
    return Msg(field, Wire().Bytes(1, key).Bytes(2, value));
  }
  // QuantityMapEntry: a map<string, Quantity> entry {1 key, 2 Quantity{1 string}}.
  Wire& QuantityMapEntry(uint32_t field, std::string_view key, std::string_view quantity) {
    return Msg(field, Wire().Bytes(1, key).Msg(2, Wire().Bytes(1, quantity)));
  }
  // Raw appends bytes as they are (for malformed fixtures).
  Wire& Raw(std::string_view raw) {
    bytes_.append(raw);
    return *this;
  }
  const std::string& str() const { return bytes_; }

 private:
  void Key(uint32_t field, uint32_t wire_type) { PutVarint((uint64_t{field} << 3) | wire_type); }
  void PutVarint(uint64_t v) {
    while (v >= 0x80) {
      bytes_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    bytes_ += static_cast<char>(v);
  }
  std::string bytes_;
};

// Enveloped: "k8s\0" + runtime.Unknown{1 typeMeta{1 apiVersion, 2 kind}, 2 raw}.
inline std::string Enveloped(std::string_view api_version, std::string_view kind, const Wire& raw) {
  return std::string("k8s\0", 4) +
         Wire().Msg(1, Wire().Bytes(1, api_version).Bytes(2, kind)).Bytes(2, raw.str()).str();
}

// Frame: a 4-byte big-endian length, then the payload.
inline std::string Frame(std::string_view payload) {
  const auto n = static_cast<uint32_t>(payload.size());
  std::string out;
  out += static_cast<char>(n >> 24);
  out += static_cast<char>((n >> 16) & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  out += static_cast<char>(n & 0xff);
  out.append(payload);
  return out;
}

// WatchFrame: meta.v1.WatchEvent{1 type, 2 RawExtension{1 raw = enveloped object}}, framed.
inline std::string WatchFrame(std::string_view type, const std::string& enveloped_object) {
  return Frame(Wire().Bytes(1, type).Msg(2, Wire().Bytes(1, enveloped_object)).str());
}

}  // namespace berth::shim::proto::testing
