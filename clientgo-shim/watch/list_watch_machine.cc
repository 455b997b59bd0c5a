#include "clientgo-shim/watch/list_watch_machine.h"

#include <algorithm>

namespace berth::shim {

bool IsRelistError(const Error& error) {
  if (error.code == ErrorCode::kGone || error.http_status == 410) return true;
  if (error.reason == "Expired" || error.reason == "Gone") return true;
  // Older servers report a too-large RV as a Timeout whose cause says so; newer ones with cause
  // type ResourceVersionTooLarge. Either way the message carries the phrase.
  std::string lower = error.message;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("too large resource version") != std::string::npos ||
         lower.find("resourceversiontoolarge") != std::string::npos;
}

ListWatchMachine::ListWatchMachine(ListWatchOptions options, const Clock& clock, Rng& rng)
    : options_(std::move(options)),
      clock_(clock),
      rng_(rng),
      backoff_(options_.backoff, clock, rng) {}

Action ListWatchMachine::Next() {
  Action a;
  if (pending_wait_) {
    a.kind = Action::kWait;
    a.wait = *pending_wait_;
    pending_wait_.reset();
    return a;
  }
  if (phase_ == Phase::kListing) {
    a.kind = Action::kList;
    a.request = ListRequest();
  } else {
    a.kind = Action::kWatch;
    a.request = WatchRequest();
  }
  return a;
}

RestRequest ListWatchMachine::ListRequest() const {
  RestRequest r;
  r.path = options_.path;
  if (!options_.accept.empty()) r.accept = options_.accept;
  if (!options_.label_selector.empty()) r.query["labelSelector"] = options_.label_selector;
  if (!options_.field_selector.empty()) r.query["fieldSelector"] = options_.field_selector;
  if (options_.page_size > 0 && !unpaginated_fallback_) {
    r.query["limit"] = std::to_string(options_.page_size);
    if (!continue_.empty()) r.query["continue"] = continue_;
  }
  return r;
}

RestRequest ListWatchMachine::WatchRequest() {
  RestRequest r;
  r.path = options_.path;
  if (!options_.accept.empty()) r.accept = options_.accept;
  if (!options_.label_selector.empty()) r.query["labelSelector"] = options_.label_selector;
  if (!options_.field_selector.empty()) r.query["fieldSelector"] = options_.field_selector;
  r.query["watch"] = "true";
  r.query["resourceVersion"] = resource_version_;
  r.query["allowWatchBookmarks"] = "true";
  // Uniform in [min, 2×min): spreads the reconnects of many clients.
  if (const int64_t min = options_.min_watch_timeout.count(); min > 0) {
    const auto extra = static_cast<int64_t>(rng_.Uniform() * static_cast<double>(min));
    r.query["timeoutSeconds"] = std::to_string(min + std::min(extra, min - 1));
  }
  watch_started_ = clock_.Now();
  events_this_watch_ = 0;
  return r;
}

bool ListWatchMachine::EndsList(std::string_view continue_token) const {
  return continue_token.empty() || options_.page_size <= 0 || unpaginated_fallback_;
}

bool ListWatchMachine::OnListPage(std::string_view list_resource_version,
                                  std::string_view continue_token) {
  if (!EndsList(continue_token)) {
    continue_ = std::string(continue_token);
    ++page_;
    return false;
  }
  resource_version_ = std::string(list_resource_version);
  continue_.clear();
  page_ = 1;
  unpaginated_fallback_ = false;
  phase_ = Phase::kWatching;
  return true;
}

void ListWatchMachine::OnListFailed(const Error& error) {
  if (page_ > 1 && IsRelistError(error)) {
    // The continue token expired mid-list: client-go's pager retries once with a full list.
    unpaginated_fallback_ = true;
    continue_.clear();
    page_ = 1;
    return;
  }
  continue_.clear();
  page_ = 1;
  ScheduleBackoff(error);
}

void ListWatchMachine::OnWatchEvent(std::string_view resource_version) {
  ++events_this_watch_;
  if (!resource_version.empty()) resource_version_ = std::string(resource_version);
}

void ListWatchMachine::OnWatchEnded(const Status& result) {
  if (result) {
    const auto lived = clock_.Now() - watch_started_;
    if (events_this_watch_ == 0 && lived < std::chrono::seconds(1)) {
      ScheduleBackoff(Error{ErrorCode::kTransport, "very short watch", 0, {}, {}});
    }
    return;  // resume from resource_version_
  }
  if (IsRelistError(result.error()) || resource_version_.empty()) StartRelist();
  ScheduleBackoff(result.error());
}

void ListWatchMachine::StartRelist() {
  phase_ = Phase::kListing;
  continue_.clear();
  page_ = 1;
  unpaginated_fallback_ = false;
}

void ListWatchMachine::ScheduleBackoff(const Error& error) {
  std::chrono::milliseconds wait = backoff_.Next();
  // A server that says when to come back (429 Retry-After) is honoured, within the cap.
  if (error.retry_after && *error.retry_after > wait) {
    wait = std::min(*error.retry_after, options_.backoff.cap);
  }
  pending_wait_ = wait;
}

}  // namespace berth::shim
