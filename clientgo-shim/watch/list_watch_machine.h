// clientgo-shim/watch/list_watch_machine.h
//
// ListWatchMachine: the reflector's decisions as a pure state machine (sans-IO, like kube-rs's
// watcher step function). It says what to request next; the reflector performs the request and
// reports the outcome back. No I/O, no threads: every transition is unit-testable.
//
//   kListing ──(last page)──▶ kWatching ──(clean end)──▶ kWatching (resume from last RV)
//      ▲  │(error: backoff, restart at page 1;           │(410 / Expired / too-large RV:
//      │  │ 410 on a continue: one unpaginated list)     │  backoff, then relist)
//      └──┴──────────────────────────────────────────────┘(other error: backoff, resume watch;
//                                                           relist if no RV is known)
// Requests (client-go reflector / pager defaults):
//  - LIST: limit=500 and continue=<token> for later pages; no resourceVersion (a consistent,
//    most-recent read, kube-rs's default ListSemantic). After a 410 on a continue token the
//    pager's FullListIfExpired fallback: one list without limit.
//  - WATCH: watch=true, resourceVersion=<last seen>, allowWatchBookmarks=true,
//    timeoutSeconds uniform in [min, 2×min) with min = 300 s (client-go minWatchTimeout).
//  - label/field selectors and the Accept header go on both.
// Every event's resourceVersion (BOOKMARK included) becomes the resume point. A watch that ends
// cleanly in under 1 s with no event is treated as an error ("very short watch"), so a server
// that closes watches at once is not hammered.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/transport/rest_client.h"
#include "clientgo-shim/watch/backoff.h"

namespace berth::shim {

// kDefaultPageSize: client-go tools/pager defaultPageSize (kube-rs watcher page_size 500).
inline constexpr int kDefaultPageSize = 500;
// kMinWatchTimeout: client-go reflector defaultMinWatchTimeout (5 min).
inline constexpr std::chrono::seconds kMinWatchTimeout{300};

// ListWatchOptions: what to list and watch. Each field says its default.
struct ListWatchOptions {
  std::string path;            // collection path, e.g. "/api/v1/pods". Required.
  std::string label_selector;  // "app=web". Default: "" (everything).
  std::string field_selector;  // "spec.nodeName=n1". Default: "".
  int page_size = kDefaultPageSize;  // <= 0: unpaginated. Default: 500.
  std::chrono::seconds min_watch_timeout = kMinWatchTimeout;  // Default: 300 s.
  BackoffOptions backoff;      // Default: client-go's 800 ms → 30 s.
  // Accept header of the list and watch requests; the reflector decodes each answer by its
  // Content-Type. "application/vnd.kubernetes.protobuf, application/json" asks for protobuf with
  // JSON as the fallback (built-in types only). Default: "application/json".
  std::string accept = "application/json";
};

// Action: what the driver must do next.
struct Action {
  enum Kind { kList, kWatch, kWait } kind = kList;
  RestRequest request;                // kList, kWatch
  std::chrono::milliseconds wait{0};  // kWait
};

// IsRelistError: 410 Gone, reason Expired/Gone, or the "too large resource version" error.
bool IsRelistError(const Error& error);

class ListWatchMachine {
 public:
  enum class Phase { kListing, kWatching };

  // `clock` and `rng` must outlive the machine.
  ListWatchMachine(ListWatchOptions options, const Clock& clock, Rng& rng);

  // Next returns the next action. A pending backoff comes first as a kWait; after it the
  // machine asks for the list or watch it was going to do.
  Action Next();

  // OnListPage: a page arrived. Returns true when it was the last one (no continue token); the
  // list's resourceVersion then becomes the watch start point.
  bool OnListPage(std::string_view list_resource_version, std::string_view continue_token);
  // EndsList: whether a page with this continue token would be the list's last (what
  // OnListPage would return), asked before the page's items are decoded.
  bool EndsList(std::string_view continue_token) const;
  // OnListFailed: the LIST (any page) failed.
  void OnListFailed(const Error& error);
  // OnWatchEvent: an event (or bookmark) with this resourceVersion was received.
  void OnWatchEvent(std::string_view resource_version);
  // OnWatchEnded: the watch stream ended; `result` is its error (an ERROR event included) or
  // success for a clean end (server timeout, dropped connection closed cleanly).
  void OnWatchEnded(const Status& result);

  Phase phase() const { return phase_; }
  // ResourceVersion: the last seen RV (the resume point); "" before the first list completes.
  const std::string& ResourceVersion() const { return resource_version_; }
  // Page is the 1-based number of the page the next list request asks for.
  int Page() const { return page_; }

 private:
  RestRequest ListRequest() const;
  RestRequest WatchRequest();
  void StartRelist();
  void ScheduleBackoff(const Error& error);

  ListWatchOptions options_;
  const Clock& clock_;
  Rng& rng_;
  Backoff backoff_;
  Phase phase_ = Phase::kListing;
  std::string resource_version_;
  std::string continue_;
  int page_ = 1;
  bool unpaginated_fallback_ = false;
  std::optional<std::chrono::milliseconds> pending_wait_;
  SteadyTime watch_started_{};
  int events_this_watch_ = 0;
};

}  // namespace berth::shim
