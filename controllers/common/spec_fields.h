// controllers/common/spec_fields.h
//
// Readers for spec fields that several CRDs share, so that every controller reports the same
// problem with the same words (koordinator's Reservation and PodMigrationJob both carry spec.ttl).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

namespace berth::controllers {

// ReadTtl reads an optional Go duration field such as spec.ttl. Absent or null leaves `ttl`
// untouched; otherwise `text` gets the value as written and either `ttl` the parsed, non-negative
// duration or `errors` one message naming `field` (a value that does not parse is never zero).
void ReadTtl(const rapidjson::Value* value, const char* field, std::string& text,
             std::optional<std::chrono::nanoseconds>& ttl, std::vector<std::string>& errors);

}  // namespace berth::controllers
