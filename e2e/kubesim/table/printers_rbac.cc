// Printers for rbac.authorization.k8s.io/v1, following kube-apiserver's printers.go: roles show
// Name and "Created At" (RFC 3339, UTC), bindings show Name, Role ("Kind/name") and Age, with
// Users, Groups and ServiceAccounts ("namespace/name") under -o wide.
#include <string>

#include "clientgo-shim/base/json.h"
#include "e2e/kubesim/table/printer_support.h"

namespace berth::kubesim::table {
namespace {

constexpr ColumnDefinition kRoleColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Created At", "date", "", kCreationTimestampDescription, 0},
};

void PrintRole(const rapidjson::Value& obj, TimePoint, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, Str(obj, {"metadata", "creationTimestamp"}), alloc);
}

constexpr ColumnDefinition kRoleBindingColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Role", "string", "",
     "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
     "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This "
     "field is immutable.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Users", "string", "", "Users in the roleBinding", 1},
    {"Groups", "string", "", "Groups in the roleBinding", 1},
    {"ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding", 1},
};

constexpr ColumnDefinition kClusterRoleBindingColumns[] = {
    {"Name", "string", "name", kNameDescription, 0},
    {"Role", "string", "",
     "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be "
     "resolved, the Authorizer must return an error. This field is immutable.", 0},
    {"Age", "string", "", kCreationTimestampDescription, 0},
    {"Users", "string", "", "Users in the clusterRoleBinding", 1},
    {"Groups", "string", "", "Groups in the clusterRoleBinding", 1},
    {"ServiceAccounts", "string", "", "ServiceAccounts in the clusterRoleBinding", 1},
};

void Append(std::string& list, std::string_view item) {
  if (!list.empty()) list += ", ";
  list += item;
}

void PrintBinding(const rapidjson::Value& obj, TimePoint now, RowOutput& row, Allocator& alloc) {
  AddCell(row, Str(obj, {"metadata", "name"}), alloc);
  AddCell(row, std::string(Str(obj, {"roleRef", "kind"})) + "/" + std::string(Str(obj, {"roleRef", "name"})), alloc);
  AddCell(row, Age(obj, now), alloc);
  std::string users, groups, service_accounts;
  if (const rapidjson::Value* subjects = Arr(obj, {"subjects"})) {
    for (const auto& s : subjects->GetArray()) {
      std::string_view kind = Str(s, {"kind"}), name = Str(s, {"name"}), ns = Str(s, {"namespace"});
      if (kind == "User") {
        Append(users, name);
      } else if (kind == "Group") {
        Append(groups, name);
      } else if (kind == "ServiceAccount") {
        Append(service_accounts, ns.empty() ? std::string(name) : std::string(ns) + "/" + std::string(name));
      }
    }
  }
  AddCell(row, users, alloc);
  AddCell(row, groups, alloc);
  AddCell(row, service_accounts, alloc);
}

constexpr BuiltinPrinter kRbacPrinters[] = {
    {"rbac.authorization.k8s.io", "roles", kRoleColumns, PrintRole},
    {"rbac.authorization.k8s.io", "clusterroles", kRoleColumns, PrintRole},
    {"rbac.authorization.k8s.io", "rolebindings", kRoleBindingColumns, PrintBinding},
    {"rbac.authorization.k8s.io", "clusterrolebindings", kClusterRoleBindingColumns, PrintBinding},
};

}  // namespace

std::span<const BuiltinPrinter> RbacPrinters() { return kRbacPrinters; }

}  // namespace berth::kubesim::table
