// clientgo-shim/config/token_file.h
//
// CachedFileToken: a bearer token read from a file (a kubeconfig tokenFile, the in-cluster
// service-account token) and re-read every `period`, because projected service-account tokens
// rotate (kubelet refreshes them at 80% of a 10 min default lifetime; client-go re-reads every
// minute). A failed re-read keeps serving the last good token, as client-go does.
// Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

class CachedFileToken {
 public:
  using Clock = std::chrono::steady_clock;

  // Open reads the file once. Errors: kInvalidArgument "cannot read <path>: <reason>" or
  // "<path>: token file is empty".
  static Result<std::shared_ptr<CachedFileToken>> Open(std::string path,
                                                       std::chrono::milliseconds period);

  // Token returns the cached token, re-reading the file when `period` has passed since the last
  // read (whitespace around the token is trimmed).
  std::string Token();

  // AsSource wraps Token() for RestConfig::token_source (keeps this object alive).
  static std::function<std::string()> AsSource(std::shared_ptr<CachedFileToken> token);

 private:
  CachedFileToken(std::string path, std::chrono::milliseconds period)
      : path_(std::move(path)), period_(period) {}
  Status Reload();  // requires mu_

  std::mutex mu_;
  const std::string path_;
  const std::chrono::milliseconds period_;
  std::string token_;
  Clock::time_point read_at_;
};

// TrimToken strips surrounding spaces, tabs and newlines.
std::string TrimToken(std::string_view text);

}  // namespace berth::shim
