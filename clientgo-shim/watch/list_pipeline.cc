#include "clientgo-shim/watch/list_pipeline.h"

#include <algorithm>
#include <iterator>

namespace berth::shim {

ListPipeline::ListPipeline(int workers, int max_in_flight, PageDecoder decode)
    : decode_(std::move(decode)), max_in_flight_(static_cast<size_t>(std::max(1, max_in_flight))) {
  workers_.reserve(static_cast<size_t>(std::max(0, workers)));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { Work(); });
}

ListPipeline::~ListPipeline() {
  Cancel();
  for (std::thread& t : workers_) t.join();  // pages being decoded finish first
}

void ListPipeline::Cancel() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    for (size_t index : queue_) {
      pages_[index].body = std::string();
      pages_[index].result = std::unexpected(Error{ErrorCode::kInternal, "list cancelled", 0, {}, {}});
      if (!first_failed_ || index < *first_failed_) first_failed_ = index;
      --in_flight_;
    }
    queue_.clear();
  }
  work_cv_.notify_all();
  done_cv_.notify_all();
}

void ListPipeline::Submit(std::string body) {
  std::unique_lock lock(mu_);
  const size_t index = pages_.size();
  pages_.emplace_back();
  if (workers_.empty()) {
    lock.unlock();
    Decode(index, std::move(body));
    return;
  }
  done_cv_.wait(lock, [this] { return in_flight_ < max_in_flight_; });
  pages_[index].body = std::move(body);
  queue_.push_back(index);
  ++in_flight_;
  lock.unlock();
  work_cv_.notify_one();
}

void ListPipeline::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const size_t index = queue_.front();
    queue_.pop_front();
    std::string body = std::move(pages_[index].body);
    lock.unlock();
    Decode(index, std::move(body));
    lock.lock();
  }
}

void ListPipeline::Decode(size_t index, std::string body) {
  // A page after a failed one is useless: the list restarts from page 1.
  bool skip;
  {
    std::lock_guard lock(mu_);
    skip = first_failed_ && *first_failed_ < index;
  }
  std::optional<Result<DecodedPage>> result;
  if (!skip) result = decode_(body);
  body = std::string();  // the raw page goes before the next is taken
  {
    std::lock_guard lock(mu_);
    if (skip) {
      result = std::unexpected(Error{ErrorCode::kDecode, "skipped after an earlier page failed", 0, {}, {}});
    }
    if (!*result && (!first_failed_ || index < *first_failed_)) first_failed_ = index;
    pages_[index].result = std::move(result);
    if (!workers_.empty()) --in_flight_;
  }
  done_cv_.notify_all();
}

std::optional<Error> ListPipeline::FirstError() const {
  std::lock_guard lock(mu_);
  if (!first_failed_) return std::nullopt;
  return pages_[*first_failed_].result->error();
}

Result<DecodedPage> ListPipeline::Finish() {
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [this] { return in_flight_ == 0; });
  if (first_failed_) return std::unexpected(pages_[*first_failed_].result->error());
  DecodedPage all;
  size_t total = 0;
  for (const Page& p : pages_) total += (*p.result)->objects.size();
  all.objects.reserve(total);
  for (Page& p : pages_) {
    DecodedPage& page = **p.result;
    all.dropped += page.dropped;
    std::move(page.objects.begin(), page.objects.end(), std::back_inserter(all.objects));
    page.objects = {};
  }
  return all;
}

}  // namespace berth::shim
