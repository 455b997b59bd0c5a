// clientgo-shim/base/json.h
//
// Small helpers over RapidJSON used by the object model, kubesim and the controllers: parse with a
// clear error, serialize, and read nested fields without a chain of HasMember checks.
// Documents use RapidJSON's default MemoryPoolAllocator; copy values between documents with
// CopyFrom(src, dst.GetAllocator()).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::json {

using rapidjson::Document;
using rapidjson::Value;

// Parse reads one JSON document. Errors: kInvalidArgument with the byte offset and RapidJSON's
// description ("invalid JSON at offset 12: Missing a colon after a name of object member.").
Result<Document> Parse(std::string_view text);

// ParseIterative is Parse without recursion (the parser's stack lives on the heap), for text
// whose nesting nothing upstream bounds, such as JSON inside annotation values. It accepts and
// rejects exactly what Parse does.
Result<Document> ParseIterative(std::string_view text);

// NestsDeeperThan: whether `text` opens more than `max_depth` arrays and objects at once
// (brackets inside strings do not count). A byte scan, no parse: for refusing input nested too
// deep for recursive walks before parsing it, as Go's encoding/json refuses more than 10000
// levels ("exceeded max depth").
bool NestsDeeperThan(std::string_view text, int max_depth);

// Serialize writes compact JSON.
std::string Serialize(const Value& value);

// Find follows object keys; returns nullptr when any step is missing or not an object.
const Value* Find(const Value& root, std::initializer_list<std::string_view> path);
Value* FindMutable(Value& root, std::initializer_list<std::string_view> path);

// GetString returns the string at path, or `fallback` when absent or not a string.
std::string_view GetString(const Value& root, std::initializer_list<std::string_view> path,
                           std::string_view fallback = {});

// Member returns root[key] when root is an object that has it, else nullptr.
const Value* Member(const Value& root, std::string_view key);

// EnsureObject returns root[key], creating it (as an empty object) when absent or null.
Value& EnsureObject(Value& root, std::string_view key, Document::AllocatorType& alloc);

// SetString sets root[key] = value (root must be an object), copying the string.
void SetString(Value& root, std::string_view key, std::string_view value,
               Document::AllocatorType& alloc);

// SetMember sets root[key] = value (moved), replacing any existing member.
void SetMember(Value& root, std::string_view key, Value&& value, Document::AllocatorType& alloc);

// RemoveMember removes root[key] if present. Returns whether it was there.
bool RemoveMember(Value& root, std::string_view key);

// StringRefOf views a std::string_view as a RapidJSON string reference (no copy). Do not pass it
// to FindMember/HasMember: it decays to const char* there and the lookup runs strlen past the
// view. Use KeyOf for lookups.
inline rapidjson::GenericStringRef<char> StringRefOf(std::string_view s) {
  return rapidjson::StringRef(s.data(), s.size());
}

// KeyOf makes a member-lookup key from a std::string_view without copying; FindMember(KeyOf(k))
// compares by length, so views that are not NUL-terminated (substrings) look up correctly.
inline Value KeyOf(std::string_view s) { return Value(StringRefOf(s)); }

}  // namespace berth::json
