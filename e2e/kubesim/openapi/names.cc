// e2e/kubesim/openapi/names.cc
#include "e2e/kubesim/openapi/names.h"

#include <cctype>
#include <vector>

namespace berth::kubesim::openapi {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

// Capitalize turns "stable.example-x" into "StableExampleX": each dot- or dash-separated word
// gets an upper-case first letter.
std::string Capitalize(std::string_view s) {
  std::string out;
  bool upper = true;
  for (char c : s) {
    if (c == '.' || c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

}  // namespace

std::string GroupVersionPath(std::string_view group, std::string_view version) {
  if (group.empty()) return "api/" + std::string(version);
  return "apis/" + std::string(group) + "/" + std::string(version);
}

std::optional<std::pair<std::string, std::string>> ParseGroupVersionPath(std::string_view path) {
  std::vector<std::string_view> parts = Split(path, '/');
  for (std::string_view p : parts) {
    if (p.empty()) return std::nullopt;
  }
  if (parts.size() == 2 && parts[0] == "api") return std::make_pair(std::string(), std::string(parts[1]));
  if (parts.size() == 3 && parts[0] == "apis") {
    return std::make_pair(std::string(parts[1]), std::string(parts[2]));
  }
  return std::nullopt;
}

std::string CrdDefinitionName(std::string_view group, std::string_view version, std::string_view kind) {
  std::vector<std::string_view> parts = Split(group, '.');
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!out.empty()) out += '.';
    out += *it;
  }
  return out + "." + std::string(version) + "." + std::string(kind);
}

std::string OperationGroupVersion(std::string_view group, std::string_view version) {
  constexpr std::string_view kK8sSuffix = ".k8s.io";
  std::string_view g = group;
  if (g.empty()) g = "core";
  if (g.ends_with(kK8sSuffix)) g.remove_suffix(kK8sSuffix.size());
  return Capitalize(g) + Capitalize(version);
}

}  // namespace berth::kubesim::openapi
