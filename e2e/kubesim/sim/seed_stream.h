// e2e/kubesim/sim/seed_stream.h
//
// Reads kubesim's --seed-file one object at a time, never holding a whole-file parse tree, so a
// 150,000-pod cluster loads in seconds and in little memory. Formats, sniffed as kubectl's
// YAMLOrJSONDecoder does (the first non-blank byte `{` means JSON):
//   - JSON: objects one after another (concatenated or newline-separated). An object whose kind
//     ends in "List" ("List", "PodList", ...) is not built whole: a SAX pass hands each element
//     of its `items` array on as its own document, so a 225 MB List costs one pod's DOM at a time.
//     Items read before the List's "kind" (kubectl -o json puts it after "items") wait as text
//     until the kind is known, then are parsed one by one.
//   - YAML: documents split at `---` lines and converted one by one (sigs.k8s.io/yaml rules, the
//     shim's YamlToJson); a document that starts with `{` goes through the JSON path above.
// Empty documents (blank or comments only) are skipped and not counted. Items of a typed list ("PodList") without apiVersion/kind get the
// list's apiVersion and the kind without "List", as kube-apiserver's lists omit them.
// Errors name the document (1-based), the item and the byte offset; the first error stops the
// stream (the caller fails start-up rather than run with part of the file).
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim {

// SeedPosition: where an object came from, for error messages.
struct SeedPosition {
  size_t document = 0;       // 1-based document (JSON value or YAML document) in the stream
  int64_t item = -1;         // index in the document's `items` when it is a List, else -1
  uint64_t byte_offset = 0;  // of the object's first byte (the document's, for YAML)
  size_t line = 0;           // YAML: the document's first line (1-based); 0 for JSON
  std::string Describe() const;  // "document 3 (line 40), items[17], byte offset 5120"
};

// SeedSink receives each object in stream order; an error stops the stream and is returned
// prefixed with the object's position.
using SeedSink = std::function<Status(rapidjson::Document object, const SeedPosition& at)>;

// StreamSeedObjects reads `in` to its end and hands every object to `sink`. `source` names the
// input in errors (the file path). Errors: kInvalidArgument "<source>: document D, byte offset B:
// <reason>" for malformed JSON/YAML, a document that is not an object, or an item that is not an
// object; the sink's own errors with the same prefix.
Status StreamSeedObjects(std::istream& in, const std::string& source, const SeedSink& sink);

}  // namespace berth::kubesim
