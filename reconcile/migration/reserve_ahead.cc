#include "reconcile/migration/reserve_ahead.h"

#include <algorithm>

namespace berth::reconcile::migration {

std::vector<std::string> JobsToReserveAhead(const ReserveAheadInput& in) {
  std::vector<std::string> out;
  // The count covers the whole line; the first in line are part of it (the larger, if a caller's
  // count lags its line).
  const int64_t in_line = std::count_if(in.first_in_line.begin(), in.first_in_line.end(),
                                        [](const HeldInLine& h) { return h.has_reservation; });
  int64_t room = in.in_flight - std::max<int64_t>(in.reserved_while_held, in_line);
  const size_t window = static_cast<size_t>(std::max<int64_t>(in.in_flight, 0));
  for (size_t i = 0; i < in.first_in_line.size() && i < window && room > 0; ++i) {
    if (in.first_in_line[i].has_reservation) continue;
    out.push_back(in.first_in_line[i].name);
    --room;
  }
  return out;
}

std::vector<std::string> ReservedAheadGoFirst(const std::vector<AheadInLine>& ahead_in_line,
                                              const std::string& node_name, size_t max) {
  std::vector<std::string> out;
  for (const AheadInLine& a : ahead_in_line) {
    if (out.size() >= max) break;
    if (a.has_reservation && !a.admitted && !a.paused && a.node_name == node_name) out.push_back(a.name);
  }
  return out;
}

}  // namespace berth::reconcile::migration
