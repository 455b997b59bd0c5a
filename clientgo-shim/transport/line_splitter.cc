// clientgo-shim/transport/line_splitter.cc
#include "clientgo-shim/transport/line_splitter.h"

namespace berth::shim {
namespace {

std::string_view StripCr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

Result<bool> LineSplitter::Feed(std::string_view data,
                                const std::function<bool(std::string_view)>& on_line) {
  while (!data.empty()) {
    const size_t nl = data.find('\n');
    if (nl == std::string_view::npos) {
      if (partial_.size() + data.size() > max_line_) {
        partial_.clear();
        return MakeError(ErrorCode::kDecode, "stream line longer than " +
                                                 std::to_string(max_line_) + " bytes");
      }
      partial_.append(data);
      return true;
    }
    std::string_view piece = data.substr(0, nl);
    data.remove_prefix(nl + 1);
    std::string_view line;
    if (partial_.empty()) {
      line = StripCr(piece);  // fast path: no copy when a whole line sits in one read
    } else {
      if (partial_.size() + piece.size() > max_line_) {
        partial_.clear();
        return MakeError(ErrorCode::kDecode, "stream line longer than " +
                                                 std::to_string(max_line_) + " bytes");
      }
      partial_.append(piece);
      line = StripCr(partial_);
    }
    bool go_on = true;
    if (!line.empty()) go_on = on_line(line);
    partial_.clear();
    if (!go_on) return false;
  }
  return true;
}

bool LineSplitter::Finish(const std::function<bool(std::string_view)>& on_line) {
  if (partial_.empty()) return true;
  std::string last = std::move(partial_);
  partial_.clear();
  std::string_view line = StripCr(last);
  return line.empty() ? true : on_line(line);
}

}  // namespace berth::shim
