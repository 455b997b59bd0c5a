// clientgo-shim/config/kubeconfig.cc
#include "clientgo-shim/config/kubeconfig.h"

#include <map>
#include <memory>
#include <optional>

#include "clientgo-shim/api/yaml_json.h"
#include "clientgo-shim/base/encoding.h"
#include "clientgo-shim/base/json.h"
#include "clientgo-shim/config/exec_credential.h"
#include "clientgo-shim/config/file_util.h"
#include "clientgo-shim/config/token_file.h"

namespace berth::shim {
namespace {

std::unexpected<Error> Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

// One parsed file.
struct File {
  std::string path;
  std::string dir;
  json::Document doc;
};

// Entry: a named cluster/user/context and where it came from.
struct Entry {
  const json::Value* body = nullptr;  // the "cluster"/"user"/"context" object (may be null)
  const File* file = nullptr;
  std::string field;                  // "users[0].user"
  std::string Where() const { return "kubeconfig " + file->path + ": " + field; }
};

struct Merged {
  std::vector<std::unique_ptr<File>> files;
  std::string current_context;
  const File* current_context_file = nullptr;
  std::map<std::string, Entry> clusters, users, contexts;
};

// StringField reads obj[key] as a string ("" when absent or null).
Result<std::string> StringField(const json::Value* obj, const char* key, const std::string& where) {
  if (obj == nullptr) return std::string();
  const json::Value* v = json::Member(*obj, key);
  if (v == nullptr || v->IsNull()) return std::string();
  if (!v->IsString()) return Invalid(where + "." + key + ": must be a string");
  return std::string(v->GetString(), v->GetStringLength());
}

Result<bool> BoolField(const json::Value* obj, const char* key, const std::string& where) {
  if (obj == nullptr) return false;
  const json::Value* v = json::Member(*obj, key);
  if (v == nullptr || v->IsNull()) return false;
  if (!v->IsBool()) return Invalid(where + "." + key + ": must be a boolean");
  return v->GetBool();
}

// AddEntries merges file.doc[list] (e.g. "clusters", each {name, cluster}) into `into`.
Status AddEntries(const File& file, const char* list, const char* body_key,
                  std::map<std::string, Entry>& into) {
  const json::Value* items = json::Member(file.doc, list);
  if (items == nullptr || items->IsNull()) return {};
  const std::string prefix = "kubeconfig " + file.path + ": ";
  if (!items->IsArray()) return Invalid(prefix + list + ": must be a list");
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const std::string field = std::string(list) + "[" + std::to_string(i) + "]";
    const json::Value& item = (*items)[i];
    if (!item.IsObject()) return Invalid(prefix + field + ": must be an object");
    const json::Value* name = json::Member(item, "name");
    if (name == nullptr || !name->IsString() || name->GetStringLength() == 0) {
      return Invalid(prefix + field + ".name: required");
    }
    const json::Value* body = json::Member(item, body_key);
    if (body != nullptr && !body->IsNull() && !body->IsObject()) {
      return Invalid(prefix + field + "." + body_key + ": must be an object");
    }
    // The first definition of a name wins, across files as within one.
    into.emplace(name->GetString(),
                 Entry{body != nullptr && body->IsObject() ? body : nullptr, &file,
                       field + "." + body_key});
  }
  return {};
}

Status AddFile(std::unique_ptr<File> file, Merged& merged) {
  const std::string prefix = "kubeconfig " + file->path + ": ";
  if (file->doc.IsNull()) {
    merged.files.push_back(std::move(file));
    return {};
  }
  if (!file->doc.IsObject()) return Invalid(prefix + "not a kubeconfig (top level is not a map)");
  if (const json::Value* kind = json::Member(file->doc, "kind");
      kind != nullptr && kind->IsString() && kind->GetStringLength() > 0 &&
      std::string_view(kind->GetString()) != "Config") {
    return Invalid(prefix + "kind: \"" + std::string(kind->GetString()) + "\" is not Config");
  }
  auto current = StringField(&file->doc, "current-context", prefix.substr(0, prefix.size() - 2));
  if (!current) return Invalid(prefix + "current-context: must be a string");
  if (merged.current_context.empty() && !current->empty()) {
    merged.current_context = *current;
    merged.current_context_file = file.get();
  }
  if (Status st = AddEntries(*file, "clusters", "cluster", merged.clusters); !st) return st;
  if (Status st = AddEntries(*file, "users", "user", merged.users); !st) return st;
  if (Status st = AddEntries(*file, "contexts", "context", merged.contexts); !st) return st;
  merged.files.push_back(std::move(file));
  return {};
}

Result<std::unique_ptr<File>> ParseFile(std::string_view text, const std::string& path) {
  auto file = std::make_unique<File>();
  file->path = path;
  file->dir = DirName(path);
  auto doc = YamlToJson(text);
  if (!doc) return Invalid("kubeconfig " + path + ": " + doc.error().message);
  file->doc = std::move(*doc);
  return file;
}

// DataOrFile reads `<key>-data` (base64) or else `<key>` (a path), returning the bytes.
Result<std::string> DataOrFile(const Entry& e, const std::string& data_key,
                               const std::string& file_key) {
  const std::string where = e.Where();
  auto data = StringField(e.body, data_key.c_str(), where);
  if (!data) return data;
  if (!data->empty()) {
    // Standard padded base64 (encoding/json []byte); wrapped text is tolerated.
    auto decoded = Base64Decode(*data, {.skip_whitespace = true});
    if (!decoded) return Invalid(where + "." + data_key + ": " + decoded.error().message);
    return decoded;
  }
  auto path = StringField(e.body, file_key.c_str(), where);
  if (!path) return path;
  if (path->empty()) return std::string();
  auto text = ReadFileToString(ResolvePath(e.file->dir, *path));
  if (!text) return Invalid(where + "." + file_key + ": " + text.error().message);
  return text;
}

Result<ExecConfig> ReadExec(const Entry& user, const json::Value& exec) {
  const std::string where = user.Where() + ".exec";
  if (!exec.IsObject()) return Invalid(where + ": must be an object");
  ExecConfig c;
  c.where = where;
  auto command = StringField(&exec, "command", where);
  if (!command) return std::unexpected(command.error());
  if (command->empty()) return Invalid(where + ".command: required");
  c.command = *command;
  auto version = StringField(&exec, "apiVersion", where);
  if (!version) return std::unexpected(version.error());
  if (*version != "client.authentication.k8s.io/v1" &&
      *version != "client.authentication.k8s.io/v1beta1") {
    return Invalid(where + ".apiVersion: \"" + *version +
                   "\" is not client.authentication.k8s.io/v1 or v1beta1");
  }
  c.api_version = *version;
  if (auto hint = StringField(&exec, "installHint", where); hint) c.install_hint = *hint;
  if (auto mode = StringField(&exec, "interactiveMode", where); mode) c.interactive_mode = *mode;
  if (const json::Value* args = json::Member(exec, "args"); args != nullptr && !args->IsNull()) {
    if (!args->IsArray()) return Invalid(where + ".args: must be a list of strings");
    for (const json::Value& a : args->GetArray()) {
      if (!a.IsString()) return Invalid(where + ".args: must be a list of strings");
      c.args.emplace_back(a.GetString(), a.GetStringLength());
    }
  }
  if (const json::Value* env = json::Member(exec, "env"); env != nullptr && !env->IsNull()) {
    if (!env->IsArray()) return Invalid(where + ".env: must be a list of {name, value}");
    for (rapidjson::SizeType i = 0; i < env->Size(); ++i) {
      const std::string item = where + ".env[" + std::to_string(i) + "]";
      auto name = StringField(&(*env)[i], "name", item);
      auto value = StringField(&(*env)[i], "value", item);
      if (!(*env)[i].IsObject() || !name || name->empty()) return Invalid(item + ".name: required");
      if (!value) return std::unexpected(value.error());
      c.env.emplace_back(*name, *value);
    }
  }
  return c;
}

Status ApplyCluster(const Entry& cluster, RestConfig& config) {
  const std::string where = cluster.Where();
  auto server = StringField(cluster.body, "server", where);
  if (!server) return std::unexpected(server.error());
  if (server->empty()) return Invalid(where + ".server: required");
  config.server = *server;
  auto insecure = BoolField(cluster.body, "insecure-skip-tls-verify", where);
  if (!insecure) return std::unexpected(insecure.error());
  config.insecure_skip_tls_verify = *insecure;
  auto name = StringField(cluster.body, "tls-server-name", where);
  if (!name) return std::unexpected(name.error());
  config.tls_server_name = *name;
  auto ca = DataOrFile(cluster, "certificate-authority-data", "certificate-authority");
  if (!ca) return std::unexpected(ca.error());
  if (config.insecure_skip_tls_verify && !ca->empty()) {
    // clientcmd's validation refuses this combination too.
    return Invalid(where + ".insecure-skip-tls-verify: specifying a root certificates file with "
                           "the insecure flag is not allowed");
  }
  config.ca_pem = *ca;
  return {};
}

Status ApplyUser(const Entry& user, const KubeconfigOptions& options, RestConfig& config) {
  const std::string where = user.Where();
  if (user.body == nullptr) return {};
  if (json::Member(*user.body, "auth-provider") != nullptr &&
      !json::Member(*user.body, "auth-provider")->IsNull()) {
    return Invalid(where + ".auth-provider: not supported; use an exec credential plugin");
  }
  auto cert = DataOrFile(user, "client-certificate-data", "client-certificate");
  if (!cert) return std::unexpected(cert.error());
  auto key = DataOrFile(user, "client-key-data", "client-key");
  if (!key) return std::unexpected(key.error());
  if (cert->empty() != key->empty()) {
    return Invalid(where + (cert->empty() ? ".client-key: given without client-certificate"
                                          : ".client-certificate: given without client-key"));
  }
  config.client_cert_pem = *cert;
  config.client_key_pem = *key;

  auto token = StringField(user.body, "token", where);
  if (!token) return std::unexpected(token.error());
  if (!token->empty()) {
    config.token_source = [t = *token] { return t; };
  }
  auto token_file = StringField(user.body, "tokenFile", where);
  if (!token_file) return std::unexpected(token_file.error());
  if (!token_file->empty()) {
    // As client-go: a readable tokenFile takes precedence over token.
    auto cached = CachedFileToken::Open(ResolvePath(user.file->dir, *token_file),
                                        options.token_file_period);
    if (!cached) return Invalid(where + ".tokenFile: " + cached.error().message);
    config.token_source = CachedFileToken::AsSource(*cached);
  }
  const json::Value* exec = json::Member(*user.body, "exec");
  if (exec != nullptr && !exec->IsNull()) {
    auto exec_config = ReadExec(user, *exec);
    if (!exec_config) return std::unexpected(exec_config.error());
    auto source = std::make_shared<ExecCredentialSource>(std::move(*exec_config));
    if (options.run_exec_plugins) {
      auto cred = source->Get();
      if (!cred) return std::unexpected(cred.error());
      if (!cred->client_cert_pem.empty() && config.client_cert_pem.empty()) {
        config.client_cert_pem = cred->client_cert_pem;
        config.client_key_pem = cred->client_key_pem;
      }
    }
    if (!token->empty() || !token_file->empty()) return {};  // static credentials win
    config.token_source = ExecCredentialSource::TokenSource(source);
    config.on_unauthorized = ExecCredentialSource::UnauthorizedHook(source);
  }
  return {};
}

Result<RestConfig> Resolve(const Merged& merged, const KubeconfigOptions& options) {
  const File* first = merged.files.empty() ? nullptr : merged.files.front().get();
  const std::string prefix = "kubeconfig " + (first ? first->path : std::string("?")) + ": ";
  std::string context_name = options.context;
  if (context_name.empty()) {
    if (merged.current_context.empty()) {
      return Invalid(prefix + "current-context is not set and no context was chosen");
    }
    context_name = merged.current_context;
  }
  auto ctx = merged.contexts.find(context_name);
  if (ctx == merged.contexts.end()) {
    const std::string p = options.context.empty() && merged.current_context_file != nullptr
                              ? "kubeconfig " + merged.current_context_file->path + ": "
                              : prefix;
    return Invalid(p + "context \"" + context_name + "\" not found");
  }
  const Entry& context = ctx->second;
  auto cluster_name = StringField(context.body, "cluster", context.Where());
  if (!cluster_name) return std::unexpected(cluster_name.error());
  if (cluster_name->empty()) return Invalid(context.Where() + ".cluster: required");
  auto cluster = merged.clusters.find(*cluster_name);
  if (cluster == merged.clusters.end()) {
    return Invalid(context.Where() + ".cluster: cluster \"" + *cluster_name + "\" not found");
  }
  auto user_name = StringField(context.body, "user", context.Where());
  if (!user_name) return std::unexpected(user_name.error());
  auto ns = StringField(context.body, "namespace", context.Where());
  if (!ns) return std::unexpected(ns.error());

  RestConfig config;
  config.source = "kubeconfig " + context.file->path + ", context \"" + context_name + "\"";
  if (!ns->empty()) config.default_namespace = *ns;
  if (Status st = ApplyCluster(cluster->second, config); !st) return std::unexpected(st.error());
  if (!user_name->empty()) {
    auto user = merged.users.find(*user_name);
    if (user == merged.users.end()) {
      return Invalid(context.Where() + ".user: user \"" + *user_name + "\" not found");
    }
    if (Status st = ApplyUser(user->second, options, config); !st) {
      return std::unexpected(st.error());
    }
  }
  return config;
}

}  // namespace

Result<RestConfig> LoadKubeconfig(const std::vector<std::string>& paths,
                                  const KubeconfigOptions& options) {
  if (paths.empty()) return Invalid("kubeconfig: no file given");
  Merged merged;
  for (const std::string& path : paths) {
    auto text = ReadFileToString(path);
    if (!text) return Invalid("kubeconfig " + path + ": " + text.error().message);
    auto file = ParseFile(*text, path);
    if (!file) return std::unexpected(file.error());
    if (Status st = AddFile(std::move(*file), merged); !st) return std::unexpected(st.error());
  }
  return Resolve(merged, options);
}

Result<RestConfig> ParseKubeconfig(std::string_view text, const std::string& path,
                                   const KubeconfigOptions& options) {
  Merged merged;
  auto file = ParseFile(text, path);
  if (!file) return std::unexpected(file.error());
  if (Status st = AddFile(std::move(*file), merged); !st) return std::unexpected(st.error());
  return Resolve(merged, options);
}

}  // namespace berth::shim
