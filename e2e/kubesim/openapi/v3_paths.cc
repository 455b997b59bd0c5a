// e2e/kubesim/openapi/v3_paths.cc
#include "e2e/kubesim/openapi/v3_paths.h"

#include <algorithm>
#include <string_view>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/openapi/builtin_schemas.h"
#include "e2e/kubesim/openapi/names.h"

namespace berth::kubesim::openapi {
namespace {

using rapidjson::Value;
using Alloc = rapidjson::Document::AllocatorType;

constexpr std::string_view kStatusDef = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
constexpr std::string_view kDeleteOptionsDef = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
constexpr std::string_view kPatchDef = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
constexpr std::string_view kScaleDef = "io.k8s.api.autoscaling.v1.Scale";
constexpr std::string_view kEvictionDef = "io.k8s.api.policy.v1.Eviction";
constexpr std::string_view kBindingDef = "io.k8s.api.core.v1.Binding";

constexpr std::string_view kFieldValidationDescription =
    "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) "
    "containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown "
    "fields that are silently dropped from the object, and will ignore all but the last duplicate field "
    "that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a "
    "warning via the standard warning response header for each unknown field that is dropped from the "
    "object, and for each duplicate field that is encountered. The request will still succeed if there "
    "are no other errors, and will only persist the last of any duplicate fields. This is the default in "
    "v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be "
    "dropped from the object, or if any duplicate fields are present. The error returned from the server "
    "will contain all unknown and duplicate fields encountered.";

struct Gvk {
  std::string_view group, version, kind;
};

// Builder keeps the allocator and the resource's naming at hand while writing operations.
class Builder {
 public:
  Builder(const ResourceInfo& r, Alloc& a) : r_(r), a_(a) {}

  Value Str(std::string_view s) { return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a_); }

  void Set(Value& obj, std::string_view key, Value v) { json::SetMember(obj, key, std::move(v), a_); }

  Value Ref(std::string_view def) {
    Value v(rapidjson::kObjectType);
    Set(v, "$ref", Str(std::string(kV3RefPrefix) + std::string(def)));
    return v;
  }

  Value Param(std::string_view name, std::string_view in, std::string_view description,
              std::string_view type = "string", bool required = false) {
    Value p(rapidjson::kObjectType);
    Set(p, "name", Str(name));
    Set(p, "in", Str(in));
    if (!description.empty()) Set(p, "description", Str(description));
    if (required) Set(p, "required", Value(true));
    Value schema(rapidjson::kObjectType);
    Set(schema, "type", Str(type));
    if (in == "query") Set(schema, "uniqueItems", Value(true));
    Set(p, "schema", std::move(schema));
    return p;
  }

  Value Params(std::initializer_list<std::string_view> names) {
    Value list(rapidjson::kArrayType);
    for (std::string_view n : names) list.PushBack(QueryParam(n), a_);
    return list;
  }

  Value QueryParam(std::string_view n) {
    if (n == "fieldValidation") return Param(n, "query", kFieldValidationDescription);
    if (n == "dryRun") {
      return Param(n, "query",
                   "When present, indicates that modifications should not be persisted. Valid values are: "
                   "- All: all dry run stages will be processed");
    }
    if (n == "fieldManager") {
      return Param(n, "query",
                   "fieldManager is a name associated with the actor or entity that is making these changes.");
    }
    if (n == "force") return Param(n, "query", "Force is going to \"force\" Apply requests.", "boolean");
    if (n == "limit" || n == "timeoutSeconds" || n == "gracePeriodSeconds") {
      return Param(n, "query", "", "integer");
    }
    if (n == "watch" || n == "allowWatchBookmarks" || n == "sendInitialEvents") {
      return Param(n, "query", "", "boolean");
    }
    if (n == "labelSelector") {
      return Param(n, "query", "A selector to restrict the list of returned objects by their labels. "
                               "Defaults to everything.");
    }
    if (n == "fieldSelector") {
      return Param(n, "query", "A selector to restrict the list of returned objects by their fields. "
                               "Defaults to everything.");
    }
    return Param(n, "query", "");
  }

  // Content returns {"content": {type: {"schema": ref}}} for the JSON and YAML media types.
  Value Content(std::string_view def, bool watch_stream = false) {
    Value content(rapidjson::kObjectType);
    Set(content, "application/json", SchemaOf(def));
    Set(content, "application/yaml", SchemaOf(def));
    if (watch_stream) Set(content, "application/json;stream=watch", SchemaOf(def));
    return content;
  }

  Value SchemaOf(std::string_view def) {
    Value v(rapidjson::kObjectType);
    Set(v, "schema", Ref(def));
    return v;
  }

  Value Response(std::string_view description, std::string_view def) {
    Value resp(rapidjson::kObjectType);
    Set(resp, "description", Str(description));
    Set(resp, "content", Content(def));
    return resp;
  }

  Value Responses(std::initializer_list<std::pair<std::string_view, std::string_view>> codes) {
    Value out(rapidjson::kObjectType);
    for (const auto& [code, def] : codes) {
      std::string_view text = code == "200" ? "OK" : code == "201" ? "Created" : "Accepted";
      Set(out, code, Response(text, def));
    }
    Value unauthorized(rapidjson::kObjectType);
    Set(unauthorized, "description", Str("Unauthorized"));
    Set(out, "401", std::move(unauthorized));
    return out;
  }

  Value Body(std::string_view def) {
    Value body(rapidjson::kObjectType);
    Set(body, "content", Content(def));
    Set(body, "required", Value(true));
    return body;
  }

  Value PatchBody() {
    Value content(rapidjson::kObjectType);
    Set(content, "application/apply-patch+yaml", SchemaOf(kPatchDef));
    Set(content, "application/json-patch+json", SchemaOf(kPatchDef));
    Set(content, "application/merge-patch+json", SchemaOf(kPatchDef));
    if (r_.schema == nullptr) Set(content, "application/strategic-merge-patch+json", SchemaOf(kPatchDef));
    Value body(rapidjson::kObjectType);
    Set(body, "content", std::move(content));
    Set(body, "required", Value(true));
    return body;
  }

  Value GvkValue(const Gvk& gvk) {
    Value v(rapidjson::kObjectType);
    Set(v, "group", Str(gvk.group));
    Set(v, "kind", Str(gvk.kind));
    Set(v, "version", Str(gvk.version));
    return v;
  }

  Value Operation(std::string_view description, std::string id, std::string_view action, const Gvk& gvk,
                  Value params, Value responses) {
    Value op(rapidjson::kObjectType);
    Set(op, "description", Str(description));
    Set(op, "operationId", Str(id));
    if (!params.Empty()) Set(op, "parameters", std::move(params));
    Set(op, "responses", std::move(responses));
    Set(op, "x-kubernetes-action", Str(action));
    Set(op, "x-kubernetes-group-version-kind", GvkValue(gvk));
    return op;
  }

  // PathItem starts a path with its path-level parameters (namespace, name, pretty).
  Value PathItem(bool with_namespace, bool with_name) {
    Value item(rapidjson::kObjectType);
    Value params(rapidjson::kArrayType);
    if (with_name) {
      std::string desc = "name of the " + r_.kind;
      params.PushBack(Param("name", "path", desc, "string", true), a_);
    }
    if (with_namespace) {
      params.PushBack(Param("namespace", "path", "object name and auth scope, such as for teams and projects",
                            "string", true),
                      a_);
    }
    params.PushBack(Param("pretty", "query", "If 'true', then the output is pretty printed."), a_);
    Set(item, "parameters", std::move(params));
    return item;
  }

  std::string Id(std::string_view verb, std::string_view suffix = {}, bool all_namespaces = false) {
    std::string id = std::string(verb) + OperationGroupVersion(r_.group, r_.version);
    if (r_.namespaced && !all_namespaces) id += "Namespaced";
    id += r_.kind;
    id += suffix;
    if (all_namespaces) id += "ForAllNamespaces";
    return id;
  }

  bool Has(std::string_view verb) const {
    return std::find(r_.verbs.begin(), r_.verbs.end(), verb) != r_.verbs.end();
  }
  bool HasSub(std::string_view sub) const {
    return std::find(r_.subresources.begin(), r_.subresources.end(), sub) != r_.subresources.end();
  }

  const ResourceInfo& r_;
  Alloc& a_;
};

void AddPath(Value& paths, const std::string& path, Value item, Alloc& a) {
  if (item.MemberCount() > 1) json::SetMember(paths, path, std::move(item), a);  // more than "parameters"
}

// AddObjectOps writes get/put/patch on an item path for an object of definition `def`.
void AddObjectOps(Builder& b, Value& item, std::string_view def, const Gvk& gvk, std::string_view suffix,
                  std::string_view what) {
  if (b.Has("get")) {
    b.Set(item, "get",
          b.Operation("read " + std::string(what) + " of the specified " + b.r_.kind, b.Id("read", suffix), "get",
                      gvk, Value(rapidjson::kArrayType), b.Responses({{"200", def}})));
  }
  if (b.Has("update")) {
    Value op = b.Operation("replace " + std::string(what) + " of the specified " + b.r_.kind,
                           b.Id("replace", suffix), "put", gvk,
                           b.Params({"dryRun", "fieldManager", "fieldValidation"}),
                           b.Responses({{"200", def}, {"201", def}}));
    b.Set(op, "requestBody", b.Body(def));
    b.Set(item, "put", std::move(op));
  }
  if (b.Has("patch")) {
    Value op = b.Operation("partially update " + std::string(what) + " of the specified " + b.r_.kind,
                           b.Id("patch", suffix), "patch", gvk,
                           b.Params({"dryRun", "fieldManager", "fieldValidation", "force"}),
                           b.Responses({{"200", def}, {"201", def}}));
    b.Set(op, "requestBody", b.PatchBody());
    b.Set(item, "patch", std::move(op));
  }
}

}  // namespace

void AddResourcePaths(const ResourceInfo& r, const ResourceDefinitions& defs, Value& paths, Alloc& a) {
  Builder b(r, a);
  const Gvk gvk{r.group, r.version, r.kind};
  std::string base = "/" + GroupVersionPath(r.group, r.version);
  std::string collection = base + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural;
  std::string item_path = collection + "/{name}";

  Value coll = b.PathItem(r.namespaced, false);
  if (b.Has("list")) {
    Value op = b.Operation("list or watch objects of kind " + r.kind, b.Id("list"), "list", gvk,
                           b.Params({"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit",
                                     "resourceVersion", "resourceVersionMatch", "sendInitialEvents",
                                     "timeoutSeconds", "watch"}),
                           Value(rapidjson::kObjectType));
    Value ok = b.Response("OK", defs.list);
    b.Set(ok["content"], "application/json;stream=watch", b.SchemaOf(defs.list));
    b.Set(op["responses"], "200", std::move(ok));
    Value unauthorized(rapidjson::kObjectType);
    b.Set(unauthorized, "description", b.Str("Unauthorized"));
    b.Set(op["responses"], "401", std::move(unauthorized));
    b.Set(coll, "get", std::move(op));
  }
  if (b.Has("create")) {
    Value op = b.Operation("create " + r.kind, b.Id("create"), "post", gvk,
                           b.Params({"dryRun", "fieldManager", "fieldValidation"}),
                           b.Responses({{"200", defs.kind}, {"201", defs.kind}, {"202", defs.kind}}));
    b.Set(op, "requestBody", b.Body(defs.kind));
    b.Set(coll, "post", std::move(op));
  }
  if (b.Has("deletecollection")) {
    Value op = b.Operation("delete collection of " + r.kind, b.Id("deletecollection"), "deletecollection", gvk,
                           b.Params({"continue", "dryRun", "fieldSelector", "gracePeriodSeconds", "labelSelector",
                                     "limit", "propagationPolicy", "resourceVersion", "timeoutSeconds"}),
                           b.Responses({{"200", kStatusDef}}));
    b.Set(op, "requestBody", b.Body(kDeleteOptionsDef));
    b.Set(coll, "delete", std::move(op));
  }
  AddPath(paths, collection, std::move(coll), a);

  Value item = b.PathItem(r.namespaced, true);
  AddObjectOps(b, item, defs.kind, gvk, "", r.kind);
  if (b.Has("delete")) {
    Value op = b.Operation("delete " + r.kind, b.Id("delete"), "delete", gvk,
                           b.Params({"dryRun", "gracePeriodSeconds", "propagationPolicy"}),
                           b.Responses({{"200", kStatusDef}, {"202", kStatusDef}}));
    b.Set(op, "requestBody", b.Body(kDeleteOptionsDef));
    b.Set(item, "delete", std::move(op));
  }
  AddPath(paths, item_path, std::move(item), a);

  if (r.namespaced && b.Has("list")) {
    Value all = b.PathItem(false, false);
    Value op = b.Operation("list or watch objects of kind " + r.kind, b.Id("list", "", true), "list", gvk,
                           b.Params({"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit",
                                     "resourceVersion", "resourceVersionMatch", "sendInitialEvents",
                                     "timeoutSeconds", "watch"}),
                           b.Responses({{"200", defs.list}}));
    b.Set(all, "get", std::move(op));
    AddPath(paths, base + "/" + r.plural, std::move(all), a);
  }

  if (b.HasSub("status")) {
    Value sub = b.PathItem(r.namespaced, true);
    AddObjectOps(b, sub, defs.kind, gvk, "Status", "status");
    AddPath(paths, item_path + "/status", std::move(sub), a);
  }
  if (b.HasSub("scale")) {
    Value sub = b.PathItem(r.namespaced, true);
    AddObjectOps(b, sub, kScaleDef, Gvk{"autoscaling", "v1", "Scale"}, "Scale", "scale");
    AddPath(paths, item_path + "/scale", std::move(sub), a);
  }
  // binding and eviction are create-only subresources of pods.
  struct CreateSub {
    std::string_view name, def, suffix;
    Gvk gvk;
  };
  for (const CreateSub& cs : {CreateSub{"binding", kBindingDef, "Binding", {"", "v1", "Binding"}},
                              CreateSub{"eviction", kEvictionDef, "Eviction", {"policy", "v1", "Eviction"}}}) {
    if (!b.HasSub(cs.name)) continue;
    Value sub = b.PathItem(r.namespaced, true);
    Value op = b.Operation("create " + std::string(cs.suffix) + " of a " + r.kind, b.Id("create", cs.suffix),
                           "post", cs.gvk, b.Params({"dryRun", "fieldManager", "fieldValidation"}),
                           b.Responses({{"200", cs.def}, {"201", cs.def}, {"202", cs.def}}));
    b.Set(op, "requestBody", b.Body(cs.def));
    b.Set(sub, "post", std::move(op));
    AddPath(paths, item_path + "/" + std::string(cs.name), std::move(sub), a);
  }
}

}  // namespace berth::kubesim::openapi
