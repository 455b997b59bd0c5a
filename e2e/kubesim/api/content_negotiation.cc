#include "e2e/kubesim/api/content_negotiation.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace berth::kubesim {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

struct Candidate {
  ResponseMedia media;
  double q;
  int specificity;  // 0 for */*, 1 for type/*, 2 for type/subtype
  int order;
};

}  // namespace

ResponseMedia NegotiateResponseMedia(std::string_view accept, bool protobuf_available) {
  if (Trim(accept).empty()) return ResponseMedia::kJson;
  std::vector<Candidate> candidates;
  int order = 0;
  while (!accept.empty()) {
    std::size_t comma = accept.find(',');
    std::string_view entry = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view{} : accept.substr(comma + 1);
    std::size_t semi = entry.find(';');
    std::string_view range = Trim(entry.substr(0, semi));
    std::string_view params = semi == std::string_view::npos ? std::string_view{} : entry.substr(semi + 1);
    double q = 1;
    bool has_as = false, bad_q = false;
    while (!params.empty()) {
      std::size_t next = params.find(';');
      std::string_view param = Trim(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{} : params.substr(next + 1);
      std::size_t eq = param.find('=');
      std::string_view name = Trim(param.substr(0, eq));
      std::string_view value = eq == std::string_view::npos ? std::string_view{} : Trim(param.substr(eq + 1));
      if (EqualsIgnoreCase(name, "q")) {
        std::string text(value);
        char* end = nullptr;
        q = std::strtod(text.c_str(), &end);
        bad_q = text.empty() || end != text.c_str() + text.size() || q < 0 || q > 1;
      } else if (EqualsIgnoreCase(name, "as")) {
        has_as = true;
      }
    }
    int this_order = order++;
    if (bad_q || q <= 0 || range.empty()) continue;
    Candidate c{ResponseMedia::kJson, q, 2, this_order};
    if (range == "*/*") {
      c.specificity = 0;
    } else if (EqualsIgnoreCase(range, "application/*")) {
      c.specificity = 1;
    } else if (EqualsIgnoreCase(range, "application/json") || EqualsIgnoreCase(range, "application/yaml")) {
      // JSON, with or without a transformation (as=Table is rendered by the caller).
    } else if (EqualsIgnoreCase(range, "application/vnd.kubernetes.protobuf")) {
      if (!protobuf_available || has_as) continue;
      c.media = ResponseMedia::kProtobuf;
    } else {
      continue;
    }
    candidates.push_back(c);
  }
  if (candidates.empty()) return ResponseMedia::kNotAcceptable;
  auto best = std::min_element(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.q != b.q) return a.q > b.q;
    if (a.specificity != b.specificity) return a.specificity > b.specificity;
    return a.order < b.order;
  });
  return best->media;
}

}  // namespace berth::kubesim
