// clientgo-shim/config/token_file.cc
#include "clientgo-shim/config/token_file.h"

#include "clientgo-shim/config/file_util.h"

namespace berth::shim {

std::string TrimToken(std::string_view text) {
  const char* ws = " \t\r\n";
  const size_t b = text.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const size_t e = text.find_last_not_of(ws);
  return std::string(text.substr(b, e - b + 1));
}

Result<std::shared_ptr<CachedFileToken>> CachedFileToken::Open(std::string path,
                                                               std::chrono::milliseconds period) {
  std::shared_ptr<CachedFileToken> t(new CachedFileToken(std::move(path), period));
  std::lock_guard<std::mutex> lock(t->mu_);
  Status st = t->Reload();
  if (!st) return std::unexpected(st.error());
  return t;
}

Status CachedFileToken::Reload() {
  auto text = ReadFileToString(path_);
  if (!text) return std::unexpected(text.error());
  std::string token = TrimToken(*text);
  if (token.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, path_ + ": token file is empty");
  }
  token_ = std::move(token);
  read_at_ = Clock::now();
  return {};
}

std::string CachedFileToken::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  if (Clock::now() - read_at_ >= period_) {
    // On failure keep the last token; the server will say 401 if it really expired.
    if (!Reload()) read_at_ = Clock::now();
  }
  return token_;
}

std::function<std::string()> CachedFileToken::AsSource(std::shared_ptr<CachedFileToken> token) {
  return [token = std::move(token)] { return token->Token(); };
}

}  // namespace berth::shim
