// clientgo-shim/metrics/probes.cc — see probes.h.
#include "clientgo-shim/metrics/probes.h"

#include <set>
#include <sstream>
#include <vector>

namespace berth::shim {
namespace {

HttpServerReply TextReply(int status, std::string body) {
  HttpServerReply r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return r;
}

std::set<std::string> ExcludedChecks(const HttpServerRequest& request) {
  // Our query map keeps one value per key; a comma-separated list is accepted too.
  std::set<std::string> out;
  auto it = request.query.find("exclude");
  if (it == request.query.end()) return out;
  std::stringstream ss(it->second);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.insert(item);
  }
  return out;
}

// OneLine keeps a check's reason on its own line of the probe body.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text.empty() ? "unknown reason" : text;
}

}  // namespace

Status PingCheck() { return {}; }

void HealthChecks::AddCheck(const std::string& name, Check check) {
  std::lock_guard<std::mutex> l(mu_);
  checks_[name] = std::move(check);
}

bool HealthChecks::AllPass() const {
  std::map<std::string, Check> checks;
  {
    std::lock_guard<std::mutex> l(mu_);
    checks = checks_;
  }
  for (const auto& [name, check] : checks) {
    if (!check()) return false;
  }
  return true;
}

HttpServerReply HealthChecks::Serve(const HttpServerRequest& request,
                                    const std::string& sub) const {
  std::map<std::string, Check> checks;
  {
    std::lock_guard<std::mutex> l(mu_);
    checks = checks_;
  }
  if (checks.empty()) checks["ping"] = PingCheck;
  if (!sub.empty()) {
    auto it = checks.find(sub);
    if (it == checks.end()) return TextReply(404, "404 page not found\n");
    Status s = it->second();
    if (!s) return TextReply(500, "internal server error: " + s.error().message + "\n");
    return TextReply(200, "ok");
  }
  std::set<std::string> excluded = ExcludedChecks(request);
  struct Part {
    std::string name;
    bool healthy;
    bool excluded;
    std::string reason;  // why a failed check failed
  };
  std::vector<Part> parts;  // std::map iteration: already sorted by name
  bool failed = false;
  for (const auto& [name, check] : checks) {
    if (excluded.erase(name) > 0) {
      parts.push_back({name, true, true, {}});
      continue;
    }
    Status s = check();
    failed = failed || !s;
    parts.push_back({name, s.has_value(), false, s ? std::string() : OneLine(s.error().message)});
  }
  const bool verbose = request.query.contains("verbose");
  if (!failed && !verbose) return TextReply(200, "ok");
  std::string body;
  for (const Part& p : parts) {
    if (p.excluded) body += "[+]" + p.name + " excluded: ok\n";
    else if (p.healthy) body += "[+]" + p.name + " ok\n";
    else if (verbose) body += "[-]" + p.name + " failed: " + p.reason + "\n";
    else body += "[-]" + p.name + " failed: reason withheld\n";
  }
  if (!excluded.empty()) {
    body += "warn: some health checks cannot be excluded: no matches for ";
    bool first = true;
    for (const auto& e : excluded) {
      body += (first ? "" : ",") + ("\"" + e + "\"");
      first = false;
    }
    body += "\n";
  }
  body += failed ? "healthz check failed\n" : "healthz check passed\n";
  return TextReply(failed ? 500 : 200, std::move(body));
}

void ServeProbes(HttpServer& server, const HealthChecks& healthz, const HealthChecks& readyz) {
  for (auto [path, checks] : {std::pair{std::string("/healthz"), &healthz},
                              std::pair{std::string("/readyz"), &readyz}}) {
    server.Handle(path, [checks](const HttpServerRequest& r) { return checks->Serve(r, ""); });
    const std::string prefix = path + "/";
    server.Handle(prefix, [checks, prefix](const HttpServerRequest& r) {
      return checks->Serve(r, r.path.substr(prefix.size()));
    });
  }
}

HttpHandler MetricsHandler(const Registry& registry) {
  return [&registry](const HttpServerRequest&) {
    HttpServerReply r;
    r.content_type = std::string(kTextContentType);
    r.body = registry.Render();
    return r;
  };
}

void ServeMetrics(HttpServer& server, const Registry& registry) { server.Handle("/metrics", MetricsHandler(registry)); }

}  // namespace berth::shim
