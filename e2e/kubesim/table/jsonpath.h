// e2e/kubesim/table/jsonpath.h
//
// The JSONPath subset that CRD additionalPrinterColumns use, evaluated the way client-go's
// jsonpath package does with AllowMissingKeys(true) — which is how the apiextensions table
// convertor runs it:
//   .status.phase   .metadata.labels['app.kubernetes.io/name']   .spec.containers[0].image
//   .items[*].name  .items[-1]  .items[1:3]  .items[0,2]  .*  ..name
//   .status.conditions[?(@.type=="Ready")].status   [?(@.replicas>=2)]   [?(@.ready)]
// A missing key yields no result (not an error). Indexing a non-array, an index out of bounds, or
// comparing values of different kinds is an evaluation error; the table shows an empty cell.
// Example:
//   Result<JsonPath> p = ParseJsonPath(".status.phase");
//   if (!p) return Reject(p.error().message);           // at CRD create time
//   auto values = p->Find(object);                       // at table time
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "clientgo-shim/base/result.h"

namespace berth::kubesim::table {

struct JsonPathStep;  // private representation, see jsonpath.cc

// JsonPath is a parsed, immutable path. Cheap to copy (shares its steps).
class JsonPath {
 public:
  // Parse reads a path, with or without the surrounding braces kubectl templates use
  // ("{.status.phase}" == ".status.phase") and an optional leading "$".
  // Errors: kInvalidArgument describing the first problem and its offset.
  static Result<JsonPath> Parse(std::string_view expression);

  // Find returns every value the path selects from root, in document order. The pointers point
  // into root. Errors: kInvalidArgument for evaluation errors (see the header comment).
  Result<std::vector<const rapidjson::Value*>> Find(const rapidjson::Value& root) const;

  // source is the expression as given to Parse.
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::shared_ptr<const std::vector<JsonPathStep>> steps_;
};

// ParseJsonPath is JsonPath::Parse, for API code that validates CRD printer columns.
Result<JsonPath> ParseJsonPath(std::string_view expression);

}  // namespace berth::kubesim::table
