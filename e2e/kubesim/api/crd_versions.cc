#include "e2e/kubesim/api/crd_versions.h"

#include <algorithm>
#include <optional>

#include "clientgo-shim/base/json.h"

namespace berth::kubesim {
namespace {

struct KubeVersion {
  int major = 0;
  int type = 0;  // 0 alpha, 1 beta, 2 GA: bigger is preferred
  int minor = 0;
};

// ParseNumber reads a non-empty run of digits; nullopt on anything else or overflow.
std::optional<int> ParseNumber(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// ParseKubeVersion matches ^v(\d+)(?:(alpha|beta)(\d+))?$.
std::optional<KubeVersion> ParseKubeVersion(std::string_view v) {
  if (v.size() < 2 || v[0] != 'v') return std::nullopt;
  v.remove_prefix(1);
  size_t digits = 0;
  while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') ++digits;
  auto major = ParseNumber(v.substr(0, digits));
  if (!major) return std::nullopt;
  std::string_view rest = v.substr(digits);
  if (rest.empty()) return KubeVersion{*major, 2, 0};
  int type;
  if (rest.starts_with("alpha")) {
    type = 0;
    rest.remove_prefix(5);
  } else if (rest.starts_with("beta")) {
    type = 1;
    rest.remove_prefix(4);
  } else {
    return std::nullopt;
  }
  auto minor = ParseNumber(rest);
  if (!minor) return std::nullopt;
  return KubeVersion{*major, type, *minor};
}

}  // namespace

int CompareKubeAwareVersions(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  auto va = ParseKubeVersion(a);
  auto vb = ParseKubeVersion(b);
  if (!va && !vb) return b.compare(a) < 0 ? -1 : 1;  // non-kube names: alphabetical, earlier first
  if (!va) return -1;
  if (!vb) return 1;
  if (va->type != vb->type) return va->type - vb->type;
  if (va->major != vb->major) return va->major - vb->major;
  return va->minor - vb->minor;
}

std::string DefaultDeprecationWarning(std::string_view group, std::string_view version, std::string_view kind,
                                      const std::vector<CrdVersionInfo>& versions) {
  std::string msg = std::string(group) + "/" + std::string(version) + " " + std::string(kind) + " is deprecated";
  const CrdVersionInfo* best = nullptr;
  for (const auto& v : versions) {
    if (!v.served || v.deprecated || CompareKubeAwareVersions(version, v.name) >= 0) continue;
    if (!best || CompareKubeAwareVersions(v.name, best->name) > 0) best = &v;
  }
  if (best) msg += "; use " + std::string(group) + "/" + best->name + " " + std::string(kind);
  return msg;
}

std::string StorageGroupVersion(const ResourceType& type) {
  if (!type.is_crd || type.storage_version.empty()) return type.GroupVersion();
  return type.group + "/" + type.storage_version;
}

void SetApiVersion(rapidjson::Document& object, const std::string& group_version) {
  if (!object.IsObject()) return;
  json::SetString(object, "apiVersion", group_version, object.GetAllocator());
}

std::string JsonInVersion(const ResourceType& type, const std::string& stored_json) {
  if (!type.is_crd || !type.multi_version) return stored_json;
  rapidjson::Document d;
  d.Parse(stored_json.data(), stored_json.size());
  if (d.HasParseError() || !d.IsObject() || json::GetString(d, {"apiVersion"}) == type.GroupVersion()) {
    return stored_json;
  }
  SetApiVersion(d, type.GroupVersion());
  return json::Serialize(d);
}

}  // namespace berth::kubesim
