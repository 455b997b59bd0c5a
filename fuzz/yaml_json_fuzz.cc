// fuzz/yaml_json_fuzz.cc — YamlToJsonDocuments (clientgo-shim/api/yaml_json): libyaml events into
// RapidJSON, with go-yaml's scalar rules, anchors, merge keys and the alias and depth bounds.
// Properties: no crash; a rejection says what failed in go-yaml's or encoding/json's words; every
// accepted document is a non-null value whose JSON text parses back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/base/json.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto docs = berth::shim::YamlToJsonDocuments(berth::fuzz::AsText(data, size));
  if (!docs) {
    const std::string& message = docs.error().message;
    FUZZ_CHECK(message.starts_with("yaml: ") || message.starts_with("json: ") ||
               message.starts_with("error converting YAML to JSON: "));
    return 0;
  }
  for (const auto& doc : *docs) {
    FUZZ_CHECK(!doc.IsNull());
    FUZZ_CHECK(berth::json::Parse(berth::json::Serialize(doc)).has_value());
  }
  return 0;
}
