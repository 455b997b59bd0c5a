// clientgo-shim/base/encoding.h
//
// The one base64 codec of berth (RFC 4648): standard and URL-safe alphabets, padded or raw, as
// Go's encoding/base64 Std/URL/RawStd/RawURL encodings. kubeconfig *-data fields, []byte fields of
// JSON objects and kubesim's continue tokens all go through it.
#pragma once

#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth {

enum class Base64Alphabet {
  kStandard,  // A-Z a-z 0-9 + /   (RFC 4648 §4)
  kUrl,       // A-Z a-z 0-9 - _   (RFC 4648 §5)
};

// Base64Encode encodes `data`; with `pad` the output is a multiple of 4 long ('=' filled), as
// Go's StdEncoding/URLEncoding, without it as RawStdEncoding/RawURLEncoding.
std::string Base64Encode(std::string_view data, Base64Alphabet alphabet = Base64Alphabet::kStandard,
                         bool pad = true);

enum class Base64Padding {
  kRequired,  // the input is a whole number of 4-symbol groups, '=' filled (Std/URLEncoding)
  kOptional,  // trailing '=' may be present or left off (tolerant reader of Raw* tokens)
};

struct Base64DecodeOptions {
  Base64Alphabet alphabet = Base64Alphabet::kStandard;
  Base64Padding padding = Base64Padding::kRequired;
  // Also accept the other alphabet's two symbols ('+' '/' with kUrl, '-' '_' with kStandard).
  bool accept_both_alphabets = false;
  // Skip CR, LF, space and tab anywhere (PEM-like wrapped text in kubeconfig *-data fields).
  bool skip_whitespace = false;
};

// Base64Decode decodes `text`. Unused low bits of the last symbol are ignored, as Go's non-strict
// encodings do. Errors: kInvalidArgument "illegal base64 data at input byte N" (N is the offset
// in `text` of the first bad byte, or text.size() when the input ends inside a group).
Result<std::string> Base64Decode(std::string_view text, const Base64DecodeOptions& options = {});

}  // namespace berth
