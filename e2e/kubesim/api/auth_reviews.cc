// kubesim's authentication and authorization APIs, answered from its own tokens and RBAC objects:
//   POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token            TokenRequest (JSON or protobuf, as `kubectl create token` sends it)
//   POST /apis/authentication.k8s.io/v1/tokenreviews                      TokenReview
//   POST /apis/authorization.k8s.io/v1/subjectaccessreviews               SubjectAccessReview
// The kubeconfig's token is the user "kubesim-admin" in system:masters; a TokenRequest mints a
// token for system:serviceaccount:<ns>:<name> (groups system:serviceaccounts,
// system:serviceaccounts:<ns>, system:authenticated). Minted tokens are known to the review APIs
// only: kubesim's own endpoints still accept the kubeconfig's token alone.
#include <chrono>
#include <cstdio>
#include <ctime>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/api/api_server.h"
#include "e2e/kubesim/api/rbac_authorizer.h"
#include "e2e/kubesim/api/request_body.h"
#include "e2e/kubesim/api/status_errors.h"

namespace berth::kubesim {
namespace {

using rapidjson::Document;
using rapidjson::Value;

std::string Rfc3339(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Value UserValue(const rbac::UserInfo& user, Document::AllocatorType& a) {
  Value u(rapidjson::kObjectType);
  json::SetString(u, "username", user.username, a);
  if (!user.uid.empty()) json::SetString(u, "uid", user.uid, a);
  Value groups(rapidjson::kArrayType);
  for (const auto& g : user.groups) groups.PushBack(Value(g.c_str(), a), a);
  u.AddMember("groups", groups, a);
  return u;
}

}  // namespace

void ApiServer::HandleTokenRequest(const HttpRequest& request, const ParsedPath& path, ResponseSink& sink) {
  std::optional<Document> decoded = DecodeBodyOrReply(request, sink);
  if (!decoded) return;
  Document& body = *decoded;
  ObjectPtr sa = store_.Get("/serviceaccounts", path.ns, path.name);
  if (!sa) {
    sink.Send(NotFound("", "serviceaccounts", path.name));
    return;
  }
  int64_t seconds = 3600;
  if (const Value* e = json::Find(body, {"spec", "expirationSeconds"}); e && !e->IsNull()) {
    if (!e->IsInt64() || e->GetInt64() < 600) {
      sink.Send(Invalid("authentication.k8s.io", "TokenRequest", path.name,
                        {{"FieldValueInvalid", "Invalid value: " + json::Serialize(*e) +
                                                   ": may not specify a duration less than 10 minutes",
                          "spec.expirationSeconds"}}));
      return;
    }
    seconds = e->GetInt64();
  }
  std::string token = "kubesim-sa." + NewUid();
  {
    std::lock_guard lock(tokens_mu_);
    tokens_[token] = rbac::UserInfo{"system:serviceaccount:" + path.ns + ":" + path.name, sa->uid,
                                    {"system:serviceaccounts", "system:serviceaccounts:" + path.ns,
                                     "system:authenticated"}};
  }
  auto& a = body.GetAllocator();
  json::SetString(body, "apiVersion", "authentication.k8s.io/v1", a);
  json::SetString(body, "kind", "TokenRequest", a);
  Value& meta = json::EnsureObject(body, "metadata", a);
  json::SetString(meta, "name", path.name, a);
  json::SetString(meta, "namespace", path.ns, a);
  json::SetString(meta, "creationTimestamp", NowRfc3339(), a);
  Value& spec = json::EnsureObject(body, "spec", a);
  spec.RemoveMember("expirationSeconds");
  spec.AddMember("expirationSeconds", seconds, a);
  if (!json::Find(spec, {"audiences"})) {
    Value audiences(rapidjson::kArrayType);
    audiences.PushBack("https://kubernetes.default.svc.cluster.local", a);
    spec.AddMember("audiences", audiences, a);
  }
  Value status(rapidjson::kObjectType);
  json::SetString(status, "token", token, a);
  json::SetString(status, "expirationTimestamp", Rfc3339(std::chrono::system_clock::now() + std::chrono::seconds(seconds)), a);
  json::SetMember(body, "status", std::move(status), a);
  sink.Send(JsonObjectResponse(201, body));
}

void ApiServer::HandleTokenReview(const HttpRequest& request, ResponseSink& sink) {
  std::optional<Document> decoded = DecodeBodyOrReply(request, sink);
  if (!decoded) return;
  Document& body = *decoded;
  std::string token(json::GetString(body, {"spec", "token"}));
  if (token.empty()) {
    sink.Send(Invalid("authentication.k8s.io", "TokenReview", "", {{"FieldValueRequired", "Required value", "spec.token"}}));
    return;
  }
  std::optional<rbac::UserInfo> user;
  if (!options_.admin_token.empty() && token == options_.admin_token) {
    user = rbac::UserInfo{"kubesim-admin", "", {"system:masters", "system:authenticated"}};
  } else {
    std::lock_guard lock(tokens_mu_);
    if (auto it = tokens_.find(token); it != tokens_.end()) user = it->second;
  }
  auto& a = body.GetAllocator();
  json::SetString(body, "apiVersion", "authentication.k8s.io/v1", a);
  json::SetString(body, "kind", "TokenReview", a);
  Value& meta = json::EnsureObject(body, "metadata", a);
  json::SetString(meta, "creationTimestamp", NowRfc3339(), a);
  Value status(rapidjson::kObjectType);
  if (user) {
    status.AddMember("authenticated", true, a);
    status.AddMember("user", UserValue(*user, a), a);
    Value audiences(rapidjson::kArrayType);
    audiences.PushBack("https://kubernetes.default.svc.cluster.local", a);
    status.AddMember("audiences", audiences, a);
  } else {
    status.AddMember("user", Value(rapidjson::kObjectType), a);
    json::SetString(status, "error", "[invalid bearer token, token lookup failed]", a);
  }
  json::SetMember(body, "status", std::move(status), a);
  sink.Send(JsonObjectResponse(201, body));
}

void ApiServer::HandleSubjectAccessReview(const HttpRequest& request, ResponseSink& sink) {
  std::optional<Document> decoded = DecodeBodyOrReply(request, sink);
  if (!decoded) return;
  Document& body = *decoded;
  rbac::Attributes attrs;
  attrs.user.username = std::string(json::GetString(body, {"spec", "user"}));
  attrs.user.uid = std::string(json::GetString(body, {"spec", "uid"}));
  if (const Value* g = json::Find(body, {"spec", "groups"}); g && g->IsArray()) {
    for (const auto& v : g->GetArray()) {
      if (v.IsString()) attrs.user.groups.emplace_back(v.GetString());
    }
  }
  const Value* non_resource = json::Find(body, {"spec", "nonResourceAttributes"});
  const Value* resource = json::Find(body, {"spec", "resourceAttributes"});
  std::vector<StatusCause> causes;
  if (attrs.user.username.empty() && attrs.user.groups.empty()) {
    causes.push_back({"FieldValueRequired", "Required value: at least one of user or group must be specified", "spec.user"});
  }
  if ((non_resource != nullptr) == (resource != nullptr)) {
    causes.push_back({"FieldValueRequired",
                      "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified",
                      "spec.resourceAttributes"});
  }
  if (!causes.empty()) {
    sink.Send(Invalid("authorization.k8s.io", "SubjectAccessReview", "", causes));
    return;
  }
  if (non_resource) {
    attrs.non_resource = true;
    attrs.path = std::string(json::GetString(*non_resource, {"path"}));
    attrs.verb = std::string(json::GetString(*non_resource, {"verb"}));
  } else {
    attrs.verb = std::string(json::GetString(*resource, {"verb"}));
    attrs.ns = std::string(json::GetString(*resource, {"namespace"}));
    attrs.group = std::string(json::GetString(*resource, {"group"}));
    attrs.resource = std::string(json::GetString(*resource, {"resource"}));
    attrs.subresource = std::string(json::GetString(*resource, {"subresource"}));
    attrs.name = std::string(json::GetString(*resource, {"name"}));
  }
  auto parse_all = [&](const std::string& key, const std::string& ns) {
    std::vector<Document> docs;
    auto page = store_.List(key, ns, nullptr, 0, 0, "");
    for (const auto& o : page->items) {
      Document d;
      d.Parse(o->json.data(), o->json.size());
      if (!d.HasParseError()) docs.push_back(std::move(d));
    }
    return docs;
  };
  std::vector<Document> crbs = parse_all("rbac.authorization.k8s.io/clusterrolebindings", "");
  std::vector<Document> rbs = attrs.ns.empty() ? std::vector<Document>{}
                                               : parse_all("rbac.authorization.k8s.io/rolebindings", attrs.ns);
  std::vector<const Value*> crb_ptrs, rb_ptrs;
  for (const auto& d : crbs) crb_ptrs.push_back(&d);
  for (const auto& d : rbs) rb_ptrs.push_back(&d);
  std::vector<std::unique_ptr<Document>> role_docs;
  rbac::RoleLookup lookup = [&](const std::string& kind, const std::string& ns, const std::string& name) -> const Value* {
    ObjectPtr o = store_.Get(kind == "Role" ? "rbac.authorization.k8s.io/roles" : "rbac.authorization.k8s.io/clusterroles",
                             kind == "Role" ? ns : "", name);
    if (!o) return nullptr;
    auto d = std::make_unique<Document>();
    d->Parse(o->json.data(), o->json.size());
    if (d->HasParseError()) return nullptr;
    role_docs.push_back(std::move(d));
    return role_docs.back().get();
  };
  rbac::Decision decision = rbac::Authorize(attrs, crb_ptrs, rb_ptrs, lookup);
  auto& a = body.GetAllocator();
  json::SetString(body, "apiVersion", "authorization.k8s.io/v1", a);
  json::SetString(body, "kind", "SubjectAccessReview", a);
  Value& meta = json::EnsureObject(body, "metadata", a);
  json::SetString(meta, "creationTimestamp", NowRfc3339(), a);
  Value status(rapidjson::kObjectType);
  status.AddMember("allowed", decision.allowed, a);
  if (!decision.reason.empty()) json::SetString(status, "reason", decision.reason, a);
  json::SetMember(body, "status", std::move(status), a);
  sink.Send(JsonObjectResponse(201, body));
}

}  // namespace berth::kubesim
