#include "clientgo-shim/api/deletion_cost.h"

#include <charconv>

namespace berth::shim {

Result<int32_t> ParsePodDeletionCost(std::string_view text) {
  auto invalid = [&] {
    return MakeError(ErrorCode::kInvalidArgument, "invalid value \"" + std::string(text) + "\": must be a 32bit integer");
  };
  // Upstream's validFirstDigit: '-', a lone "0", or 1-9. Go's ParseInt then accepts "-08" as -8.
  if (text.empty()) return invalid();
  char first = text[0];
  if (!(first == '-' || text == "0" || (first >= '1' && first <= '9'))) return invalid();
  int32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (ec != std::errc{} || end != text.data() + text.size()) return invalid();
  return value;
}

std::string FormatPodDeletionCost(int32_t cost) { return std::to_string(cost); }

}  // namespace berth::shim
