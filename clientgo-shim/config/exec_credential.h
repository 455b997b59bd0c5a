// clientgo-shim/config/exec_credential.h
//
// kubeconfig exec credential plugins (client.authentication.k8s.io v1 / v1beta1): run the
// configured command with its args and env plus KUBERNETES_EXEC_INFO (an ExecCredential with
// spec.interactive=false), read the ExecCredential it prints, and cache the token until its
// expirationTimestamp (or until a 401 invalidates it, as client-go re-execs on 401).
// Thread-safety: ExecCredentialSource may be used from any thread; one plugin run at a time.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

// ExecConfig: the user.exec stanza of a kubeconfig.
struct ExecConfig {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string api_version;  // "client.authentication.k8s.io/v1" or ".../v1beta1"
  std::string install_hint;
  std::string interactive_mode;  // "Never", "IfAvailable", "Always" (berth never prompts)
  std::string where;             // for messages: "kubeconfig /x/config: users[0].user.exec"
};

// ExecCredential: what the plugin returned.
struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiry;
};

// ParseExecCredential reads the plugin's stdout. Errors: kInvalidArgument naming the problem
// (not JSON, wrong kind/apiVersion, status missing, neither token nor certificate+key, only one
// of certificate/key, bad expirationTimestamp).
Result<ExecCredential> ParseExecCredential(std::string_view json, std::string_view api_version);

// RunExecPlugin runs the command once (PATH lookup, stdin from /dev/null) and parses its output.
// Errors: kInvalidArgument with the command, exit status, stderr excerpt and install hint.
Result<ExecCredential> RunExecPlugin(const ExecConfig& config,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(60));

class ExecCredentialSource {
 public:
  explicit ExecCredentialSource(ExecConfig config) : config_(std::move(config)) {}

  // Get returns the cached credential, running the plugin when there is none or it expires
  // within 10 s. Errors: RunExecPlugin's.
  Result<ExecCredential> Get();

  // Invalidate drops the cache so the next Get re-runs the plugin (on a 401).
  void Invalidate();

  // TokenSource/UnauthorizedHook adapt this object to RestConfig (a failed run yields "").
  static std::function<std::string()> TokenSource(std::shared_ptr<ExecCredentialSource> s);
  static std::function<void()> UnauthorizedHook(std::shared_ptr<ExecCredentialSource> s);

 private:
  std::mutex mu_;
  ExecConfig config_;
  std::optional<ExecCredential> cached_;
};

}  // namespace berth::shim
