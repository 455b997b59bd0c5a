// clientgo-shim/transport/fenced_rest_client.cc — see fenced_rest_client.h.
#include "clientgo-shim/transport/fenced_rest_client.h"

#include "clientgo-shim/base/log.h"

namespace berth::shim {
namespace {

// Refused logs a fenced write. A paused leader that resumes may refuse a burst of writes before
// the manager exits; each is one line, so the log shows exactly what was held back.
void LogRefused(const RestRequest& r, const Error& e) {
  log::Warn("fence", "write refused: this process is not the leader",
            {{"method", r.method}, {"path", r.path}, {"reason", e.message}});
}

}  // namespace

FencedRestClient::FencedRestClient(RestClientPtr inner, std::shared_ptr<const WriteFence> fence)
    : inner_(std::move(inner)), fence_(std::move(fence)) {}

Result<RestResponse> FencedRestClient::Do(const RestRequest& request) {
  if (!IsMutatingMethod(request.method)) return inner_->Do(request);
  if (Status open = fence_->CheckWrite(); !open) {
    LogRefused(request, open.error());
    return std::unexpected(open.error());
  }
  RestRequest fenced = request;
  fenced.fence = fence_;
  auto r = inner_->Do(fenced);
  if (!r && r.error().code == ErrorCode::kFenced) LogRefused(request, r.error());
  return r;
}

Status FencedRestClient::Stream(const RestRequest& request,
                                const std::function<bool(std::string_view line)>& on_line,
                                const std::atomic<bool>* cancel) {
  if (!IsMutatingMethod(request.method)) return inner_->Stream(request, on_line, cancel);
  if (Status open = fence_->CheckWrite(); !open) {
    LogRefused(request, open.error());
    return open;
  }
  RestRequest fenced = request;
  fenced.fence = fence_;
  Status s = inner_->Stream(fenced, on_line, cancel);
  if (!s && s.error().code == ErrorCode::kFenced) LogRefused(request, s.error());
  return s;
}

}  // namespace berth::shim
