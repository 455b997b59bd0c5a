// clientgo-shim/client/object_client.cc — see object_client.h.
#include "clientgo-shim/client/object_client.h"

#include <random>
#include <thread>

namespace berth::shim {

std::string ResourcePath(const ResourceRef& ref, std::string_view subresource) {
  std::string p = ref.group.empty() ? "/api/" + ref.version
                                    : "/apis/" + ref.group + "/" + ref.version;
  if (!ref.ns.empty()) p += "/namespaces/" + ref.ns;
  p += "/" + ref.resource;
  if (!ref.name.empty()) p += "/" + ref.name;
  if (!subresource.empty()) p += "/" + std::string(subresource);
  return p;
}

ObjectClient::ObjectClient(RestClientPtr rest, std::chrono::milliseconds timeout)
    : rest_(std::move(rest)), timeout_(timeout) {}

Result<json::Document> ObjectClient::Send(RestRequest request, const std::string& what) const {
  request.timeout = timeout_;
  auto response = rest_->Do(request);
  if (!response) {
    Error e = response.error();
    if (e.message.find(what) == std::string::npos) e.message = what + ": " + e.message;
    return std::unexpected(std::move(e));
  }
  auto doc = json::Parse(response->body);
  if (!doc) {
    return MakeError(ErrorCode::kDecode, what + ": response body: " + doc.error().message);
  }
  return std::move(*doc);
}

Result<json::Document> ObjectClient::Get(const ResourceRef& ref) const {
  RestRequest r;
  r.method = "GET";
  r.path = ResourcePath(ref);
  return Send(std::move(r), "GET " + ResourcePath(ref));
}

Result<json::Document> ObjectClient::List(const ResourceRef& ref, const ListOptions& o) const {
  RestRequest r;
  r.method = "GET";
  r.path = ResourcePath(ref);
  if (!o.label_selector.empty()) r.query["labelSelector"] = o.label_selector;
  if (!o.field_selector.empty()) r.query["fieldSelector"] = o.field_selector;
  if (!o.resource_version.empty()) r.query["resourceVersion"] = o.resource_version;
  if (!o.continue_token.empty()) r.query["continue"] = o.continue_token;
  if (o.limit > 0) r.query["limit"] = std::to_string(o.limit);
  return Send(std::move(r), "LIST " + r.path);
}

Result<json::Document> ObjectClient::Create(const ResourceRef& ref,
                                            const json::Value& object) const {
  ResourceRef collection = ref;
  collection.name.clear();
  RestRequest r;
  r.method = "POST";
  r.path = ResourcePath(collection);
  r.body = json::Serialize(object);
  return Send(std::move(r), "POST " + ResourcePath(collection));
}

Result<json::Document> ObjectClient::Update(const ResourceRef& ref,
                                            const json::Value& object) const {
  RestRequest r;
  r.method = "PUT";
  r.path = ResourcePath(ref);
  r.body = json::Serialize(object);
  return Send(std::move(r), "PUT " + ResourcePath(ref));
}

Result<json::Document> ObjectClient::UpdateStatus(const ResourceRef& ref,
                                                  const json::Value& object) const {
  RestRequest r;
  r.method = "PUT";
  r.path = ResourcePath(ref, "status");
  r.body = json::Serialize(object);
  return Send(std::move(r), "PUT " + r.path);
}

Result<json::Document> ObjectClient::Patch(const ResourceRef& ref, std::string_view patch,
                                           std::string_view content_type,
                                           std::string_view subresource) const {
  RestRequest r;
  r.method = "PATCH";
  r.path = ResourcePath(ref, subresource);
  r.body = std::string(patch);
  r.content_type = std::string(content_type);
  return Send(std::move(r), "PATCH " + r.path);
}

Result<json::Document> ObjectClient::MergePatch(const ResourceRef& ref, const json::Value& patch,
                                                std::string_view subresource) const {
  return Patch(ref, json::Serialize(patch), kMergePatch, subresource);
}

Status ObjectClient::Delete(const ResourceRef& ref) const {
  RestRequest r;
  r.method = "DELETE";
  r.path = ResourcePath(ref);
  r.timeout = timeout_;
  auto response = rest_->Do(r);
  if (!response) {
    Error e = response.error();
    e.message = "DELETE " + r.path + ": " + e.message;
    return std::unexpected(std::move(e));
  }
  return {};
}

Result<json::Document> ObjectClient::UpdateWithRetry(const ResourceRef& ref,
                                                     const Mutation& mutate,
                                                     std::string_view subresource,
                                                     ConflictRetry retry) const {
  thread_local std::mt19937 rng{std::random_device{}()};
  std::optional<Error> last;
  for (int attempt = 0; attempt < std::max(1, retry.steps); ++attempt) {
    if (attempt > 0) {
      std::uniform_real_distribution<double> extra(0.0, retry.jitter);
      const auto wait = std::chrono::duration<double, std::milli>(retry.delay.count() *
                                                                  (1.0 + extra(rng)));
      // A real wait between attempts (not test synchronisation): it spaces out racing writers.
      std::this_thread::sleep_for(wait);
    }
    auto current = Get(ref);
    if (!current) return current;
    auto change = mutate(*current);
    if (!change) return std::unexpected(change.error());
    if (!*change) return current;
    auto written = subresource == "status" ? UpdateStatus(ref, *current) : Update(ref, *current);
    if (written || written.error().code != ErrorCode::kConflict) return written;
    last = written.error();
  }
  return std::unexpected(*last);
}

}  // namespace berth::shim
