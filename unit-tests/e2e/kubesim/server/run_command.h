// unit-tests/e2e/kubesim/server/run_command.h
//
// RunCommand: a shell command's stdout (empty when it cannot start), for tests that drive a real
// kubectl against the server.
#pragma once

#include <cstdio>
#include <string>

namespace berth::kubesim::testing {

inline std::string RunCommand(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

}  // namespace berth::kubesim::testing
