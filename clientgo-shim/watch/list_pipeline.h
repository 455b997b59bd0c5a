// clientgo-shim/watch/list_pipeline.h
//
// ListPipeline: decodes the pages of one paginated LIST on a few worker threads while the
// reflector fetches the next page, and hands the objects back in page order. The reflector
// finds each page's continue token with a cheap scan (ScanListMetadata), submits the raw body
// here and requests the next page at once; decoding (parse, transform, pack) overlaps the
// network and uses more than one core.
//   fetch p1 ─ submit ─ fetch p2 ─ submit ─ fetch p3 ─ submit ─ … ─ Finish (objects p1, p2, …)
//                └ worker: decode p1   └ worker: decode p2   (any order, any worker)
// Memory: at most `max_in_flight` raw pages are queued or being decoded; Submit blocks until a
// slot frees (a decode takes milliseconds, so the wait is bounded by one page's decode).
// Decoded objects are kept per page until Finish, as the sequential reflector kept its list.
// Errors: the first failed page is reported by FirstError() (so the fetcher stops requesting)
// and by Finish(); the other pages' objects are dropped.
// Threads: the workers start in the constructor and are joined by the destructor, which first
// cancels (drops pages not yet started): destroying the pipeline leaves no thread behind.
// Thread-safety: Submit/FirstError/Finish from one owner thread; the decoder runs on workers
// (or on the owner when workers == 0) and must be safe to call concurrently.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "clientgo-shim/base/result.h"
#include "clientgo-shim/cache/cached_object.h"

namespace berth::shim {

// DecodedPage: one page's cacheable objects, in the page's order.
struct DecodedPage {
  std::vector<ObjectPtr> objects;
  uint64_t dropped = 0;  // items the transform rejected or that could not be cached
};

// PageDecoder turns one raw LIST body into objects; it may rewrite `body` (in-situ parsing).
using PageDecoder = std::function<Result<DecodedPage>(std::string& body)>;

class ListPipeline {
 public:
  // `workers` threads decode (0: Submit decodes on the caller's thread, no pipelining);
  // `max_in_flight` (≥ 1) bounds the raw pages queued or being decoded.
  ListPipeline(int workers, int max_in_flight, PageDecoder decode);
  ~ListPipeline();
  ListPipeline(const ListPipeline&) = delete;
  ListPipeline& operator=(const ListPipeline&) = delete;

  // Submit queues the next page (pages are numbered in submission order).
  void Submit(std::string body);
  // FirstError: the error of the lowest-numbered page that failed so far, if any.
  std::optional<Error> FirstError() const;
  // Finish waits for every submitted page and returns all objects in page order (within a page,
  // in item order), or the first failed page's error.
  Result<DecodedPage> Finish();

  // Cancel drops the pages no worker has started (they fail as kInternal "list cancelled") and
  // lets the workers exit once their current page is done. Submit must not follow.
  void Cancel();

  size_t Submitted() const { return pages_.size(); }

 private:
  struct Page {
    std::string body;
    std::optional<Result<DecodedPage>> result;  // set once decoded
  };
  void Work();
  void Decode(size_t index, std::string body);  // stores the result under the lock

  const PageDecoder decode_;
  const size_t max_in_flight_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;  // workers: a page was queued, or stopping
  std::condition_variable done_cv_;  // owner: a page was decoded
  std::deque<size_t> queue_;         // indexes of pages waiting for a worker
  std::deque<Page> pages_;           // every submitted page (a deque: references stay valid)
  size_t in_flight_ = 0;             // queued + being decoded
  std::optional<size_t> first_failed_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace berth::shim
