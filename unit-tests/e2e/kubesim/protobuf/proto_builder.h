// A tiny protobuf encoder for the decoder tests: builds wire-format bytes field by field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace berth::kubesim::protobuf::testing {

class Builder {
 public:
  Builder& Varint(std::uint32_t field, std::uint64_t v) {
    Key(field, 0);
    Raw(v);
    return *this;
  }
  Builder& Bytes(std::uint32_t field, std::string_view v) {
    Key(field, 2);
    Raw(v.size());
    out_.append(v);
    return *this;
  }
  Builder& Message(std::uint32_t field, const Builder& m) { return Bytes(field, m.str()); }
  // MapEntry adds a map<string, string> entry.
  Builder& MapEntry(std::uint32_t field, std::string_view key, std::string_view value) {
    return Message(field, Builder().Bytes(1, key).Bytes(2, value));
  }
  const std::string& str() const { return out_; }

 private:
  void Key(std::uint32_t field, int wire) { Raw((static_cast<std::uint64_t>(field) << 3) | wire); }
  void Raw(std::uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7F) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  std::string out_;
};

// Envelope wraps an object's bytes in the "k8s\0" + runtime.Unknown framing kubectl sends.
inline std::string Envelope(std::string_view api_version, std::string_view kind, const Builder& object) {
  Builder unknown;
  unknown.Message(1, Builder().Bytes(1, api_version).Bytes(2, kind)).Bytes(2, object.str()).Bytes(3, "").Bytes(4, "");
  return std::string("k8s\0", 4) + unknown.str();
}

}  // namespace berth::kubesim::protobuf::testing
