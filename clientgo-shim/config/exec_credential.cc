// clientgo-shim/config/exec_credential.cc
#include "clientgo-shim/config/exec_credential.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "clientgo-shim/api/timestamp.h"
#include "clientgo-shim/base/json.h"

extern char** environ;

namespace berth::shim {
namespace {

constexpr size_t kMaxOutput = 1 << 20;
constexpr auto kExpiryLeeway = std::chrono::seconds(10);

std::unexpected<Error> Invalid(std::string message) {
  return MakeError(ErrorCode::kInvalidArgument, std::move(message));
}

std::string ExecInfo(const std::string& api_version) {
  const std::string version = api_version.empty() ? "client.authentication.k8s.io/v1" : api_version;
  return R"({"kind":"ExecCredential","apiVersion":")" + version +
         R"(","spec":{"interactive":false}})";
}

struct Pipe {
  int fds[2] = {-1, -1};
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void CloseEnd(int i) {
    if (fds[i] >= 0) ::close(fds[i]);
    fds[i] = -1;
  }
};

}  // namespace

Result<ExecCredential> ParseExecCredential(std::string_view text, std::string_view api_version) {
  auto doc = json::Parse(text);
  if (!doc) return Invalid("decoding stdout: " + doc.error().message);
  if (!doc->IsObject()) return Invalid("decoding stdout: not a JSON object");
  if (json::GetString(*doc, {"kind"}) != "ExecCredential") {
    return Invalid("decoding stdout: kind is \"" + std::string(json::GetString(*doc, {"kind"})) +
                   "\", want \"ExecCredential\"");
  }
  const std::string_view got_version = json::GetString(*doc, {"apiVersion"});
  if (!api_version.empty() && got_version != api_version) {
    return Invalid("exec plugin is configured to use API version " + std::string(api_version) +
                   ", plugin returned version " + std::string(got_version));
  }
  const json::Value* status = json::Member(*doc, "status");
  if (status == nullptr || !status->IsObject()) {
    return Invalid("exec plugin didn't return a status field");
  }
  ExecCredential out;
  out.token = std::string(json::GetString(*status, {"token"}));
  out.client_cert_pem = std::string(json::GetString(*status, {"clientCertificateData"}));
  out.client_key_pem = std::string(json::GetString(*status, {"clientKeyData"}));
  if (out.token.empty() && out.client_cert_pem.empty() && out.client_key_pem.empty()) {
    return Invalid("exec plugin didn't return a token or cert/key pair");
  }
  if (out.client_cert_pem.empty() != out.client_key_pem.empty()) {
    return Invalid(out.client_cert_pem.empty()
                       ? "exec plugin returned only clientKeyData"
                       : "exec plugin returned only clientCertificateData");
  }
  const std::string_view expiry = json::GetString(*status, {"expirationTimestamp"});
  if (!expiry.empty()) {
    auto t = ParseTimestamp(expiry);
    if (!t) return Invalid("status.expirationTimestamp: " + t.error().message);
    out.expiry = std::chrono::time_point_cast<std::chrono::system_clock::duration>(*t);
  }
  return out;
}

Result<ExecCredential> RunExecPlugin(const ExecConfig& config, std::chrono::milliseconds timeout) {
  const std::string who = config.where.empty() ? "exec plugin" : config.where;
  auto fail = [&](std::string why) {
    std::string m = who + ": " + config.command + ": " + why;
    if (!config.install_hint.empty()) m += "\n" + config.install_hint;
    return Invalid(std::move(m));
  };
  if (config.command.empty()) return fail("no command");

  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool overridden = name == "KUBERNETES_EXEC_INFO";
    for (const auto& [k, v] : config.env) overridden = overridden || name == k;
    if (!overridden) env_strings.emplace_back(entry);
  }
  for (const auto& [k, v] : config.env) env_strings.push_back(k + "=" + v);
  env_strings.push_back("KUBERNETES_EXEC_INFO=" + ExecInfo(config.api_version));
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = {config.command};
  argv_strings.insert(argv_strings.end(), config.args.begin(), config.args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  Pipe out, err;
  if (::pipe2(out.fds, O_CLOEXEC) != 0 || ::pipe2(err.fds, O_CLOEXEC) != 0) {
    return fail(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fds[1], 2);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, config.command.c_str(), &actions, nullptr, argv.data(),
                                envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return fail(std::string("cannot run: ") + std::strerror(rc));
  out.CloseEnd(1);
  err.CloseEnd(1);

  std::string stdout_text, stderr_text;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  while (out.fds[0] >= 0 || err.fds[0] >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfds[2] = {{out.fds[0], POLLIN, 0}, {err.fds[0], POLLIN, 0}};
    if (::poll(pfds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000))) < 0 &&
        errno != EINTR) {
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (pfds[i].fd < 0 || pfds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(pfds[i].fd, buf, sizeof buf);
      std::string& sink = i == 0 ? stdout_text : stderr_text;
      if (n <= 0) {
        (i == 0 ? out : err).CloseEnd(0);
      } else if (sink.size() < kMaxOutput) {
        sink.append(buf, static_cast<size_t>(n));
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return fail("timed out after " + std::to_string(timeout.count()) + "ms");
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    std::string why = WIFEXITED(wstatus) ? "exit status " + std::to_string(WEXITSTATUS(wstatus))
                                         : "killed by signal " + std::to_string(WTERMSIG(wstatus));
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127) why += " (command not found?)";
    if (!stderr_text.empty()) why += ": " + stderr_text.substr(0, 512);
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    return fail(why);
  }
  auto cred = ParseExecCredential(stdout_text, config.api_version);
  if (!cred) return fail(cred.error().message);
  return cred;
}

Result<ExecCredential> ExecCredentialSource::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && (!cached_->expiry ||
                  std::chrono::system_clock::now() + kExpiryLeeway < *cached_->expiry)) {
    return *cached_;
  }
  auto cred = RunExecPlugin(config_);
  if (!cred) return cred;
  cached_ = *cred;
  return cred;
}

void ExecCredentialSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  cached_.reset();
}

std::function<std::string()> ExecCredentialSource::TokenSource(
    std::shared_ptr<ExecCredentialSource> s) {
  return [s = std::move(s)] {
    auto cred = s->Get();
    return cred ? cred->token : std::string();
  };
}

std::function<void()> ExecCredentialSource::UnauthorizedHook(
    std::shared_ptr<ExecCredentialSource> s) {
  return [s = std::move(s)] { s->Invalidate(); };
}

}  // namespace berth::shim
