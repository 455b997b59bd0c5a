// clientgo-shim/base/json_insitu.h
//
// In-place parsing for large bodies the caller owns (the informers' LIST pages). Apart from
// json.h so that the many users of json.h do not depend on it.
#pragma once

#include <string>

#include "clientgo-shim/base/json.h"

namespace berth::json {

// ParseInsitu is Parse on a buffer it may rewrite: strings are unescaped in place and the
// document's strings point into `text`, which must outlive the document and not be resized.
// Saves copying every string. Accepts and rejects what Parse does (the same error texts).
Result<Document> ParseInsitu(std::string& text);

}  // namespace berth::json
