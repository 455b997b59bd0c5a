// clientgo-shim/api/yaml_json.h
//
// YAML ⇄ JSON as Kubernetes tooling does it. YAML input (manifests, kubectl apply -f) becomes
// RapidJSON documents with sigs.k8s.io/yaml's scalar rules (go-yaml v2, YAML 1.1 flavoured):
// untagged plain scalars resolve to null (""/~/null), booleans (true/false, yes/no, on/off, y/n
// in their three casings), integers (decimal, 0x hex, 0o/leading-0 octal, 0b binary, "_"
// separators), floats; quoted scalars always stay strings; map keys become strings ("yes" → "true").
// JSON output is rendered as YAML the way kubectl -o yaml prints it (sorted keys, indentless
// sequences, strings that would read back as another type double-quoted).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// YamlToJsonDocuments converts a multi-document YAML stream; empty (or null) documents are
// skipped. Errors: kInvalidArgument, "yaml: line L, column C: <reason>" for syntax errors
// (1-based), and go-yaml/sigs.k8s.io/yaml wording for conversion errors such as
// "yaml: cannot decode !!str `abc` as a !!int" or "json: unsupported value: NaN".
Result<std::vector<rapidjson::Document>> YamlToJsonDocuments(std::string_view yaml);

// YamlToJson converts a single-document YAML text; an empty text yields a JSON null.
// Errors: as YamlToJsonDocuments, plus kInvalidArgument when the stream has several documents.
Result<rapidjson::Document> YamlToJson(std::string_view yaml);

// JsonToYaml renders a JSON value as block YAML ending in a newline, like kubectl -o yaml
// (sigs.k8s.io/yaml.JSONToYAML): keys in go-yaml's order, multi-line strings as literal blocks,
// empty containers as {} and []. Long lines are not folded (go-yaml folds at 80 columns), and
// strings that are not valid UTF-8 are not preserved (go-yaml would write them as !!binary).
std::string JsonToYaml(const rapidjson::Value& value);

}  // namespace berth::shim
