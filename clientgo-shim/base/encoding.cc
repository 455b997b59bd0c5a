// clientgo-shim/base/encoding.cc
#include "clientgo-shim/base/encoding.h"

#include <cstdint>

namespace berth {
namespace {

constexpr char kStandardSymbols[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrlSymbols[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// SymbolValue maps one symbol to 0..63, or -1 when the options do not allow it.
int SymbolValue(unsigned char c, const Base64DecodeOptions& options) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  const bool standard = options.alphabet == Base64Alphabet::kStandard || options.accept_both_alphabets;
  const bool url = options.alphabet == Base64Alphabet::kUrl || options.accept_both_alphabets;
  if (standard && c == '+') return 62;
  if (standard && c == '/') return 63;
  if (url && c == '-') return 62;
  if (url && c == '_') return 63;
  return -1;
}

Result<std::string> Illegal(size_t offset) {
  return MakeError(ErrorCode::kInvalidArgument,
                   "illegal base64 data at input byte " + std::to_string(offset));
}

}  // namespace

std::string Base64Encode(std::string_view data, Base64Alphabet alphabet, bool pad) {
  const char* symbols = alphabet == Base64Alphabet::kUrl ? kUrlSymbols : kStandardSymbols;
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const uint32_t n = (uint32_t{static_cast<unsigned char>(data[i])} << 16) |
                       (uint32_t{static_cast<unsigned char>(data[i + 1])} << 8) |
                       uint32_t{static_cast<unsigned char>(data[i + 2])};
    for (int shift : {18, 12, 6, 0}) out += symbols[(n >> shift) & 63];
  }
  const size_t rest = data.size() - i;
  if (rest == 0) return out;
  uint32_t n = uint32_t{static_cast<unsigned char>(data[i])} << 16;
  if (rest == 2) n |= uint32_t{static_cast<unsigned char>(data[i + 1])} << 8;
  out += symbols[(n >> 18) & 63];
  out += symbols[(n >> 12) & 63];
  if (rest == 2) out += symbols[(n >> 6) & 63];
  if (pad) out.append(3 - rest, '=');
  return out;
}

Result<std::string> Base64Decode(std::string_view text, const Base64DecodeOptions& options) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  int quad = 0;  // symbols in the current 4-symbol group, padding included
  bool padded = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (options.skip_whitespace && (c == '\r' || c == '\n' || c == ' ' || c == '\t')) continue;
    if (c == '=') {
      // Padding only completes a group that already holds two or three symbols.
      if (quad < 2) return Illegal(i);
      padded = true;
      quad = (quad + 1) % 4;
      continue;
    }
    if (padded) return Illegal(i);  // data after padding
    const int v = SymbolValue(c, options);
    if (v < 0) return Illegal(i);
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    quad = (quad + 1) % 4;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // A lone symbol carries only 6 bits: never a whole byte, so it is malformed in every mode.
  const bool incomplete = options.padding == Base64Padding::kRequired ? quad != 0 : quad == 1;
  if (incomplete) return Illegal(text.size());
  return out;
}

}  // namespace berth
