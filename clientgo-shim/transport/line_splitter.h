// clientgo-shim/transport/line_splitter.h
//
// Watch framing: a streaming body is back-to-back JSON objects, each followed by '\n', and chunk
// boundaries do not line up with events. LineSplitter is fed byte buffers as they arrive and
// hands out complete lines, keeping a partial line until its newline comes. Pure; one per stream.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "clientgo-shim/base/result.h"

namespace berth::shim {

class LineSplitter {
 public:
  // A line longer than this is refused (a runaway body, not a watch event). 128 MiB.
  static constexpr size_t kDefaultMaxLine = size_t{128} << 20;

  explicit LineSplitter(size_t max_line = kDefaultMaxLine) : max_line_(max_line) {}

  // Feed appends `data` and calls on_line for every complete line (without "\n" or "\r\n");
  // empty lines are skipped. Stops early when on_line returns false.
  // Returns: true to go on, false when on_line asked to stop.
  // Errors: kDecode when a partial line grows beyond max_line.
  Result<bool> Feed(std::string_view data, const std::function<bool(std::string_view)>& on_line);

  // Finish delivers a last line that had no trailing newline (tolerated at end of body).
  // Returns what on_line returned, or true when nothing was pending.
  bool Finish(const std::function<bool(std::string_view)>& on_line);

  // Pending is the number of buffered bytes of an unfinished line.
  size_t Pending() const { return partial_.size(); }

 private:
  size_t max_line_;
  std::string partial_;
};

}  // namespace berth::shim
