// clientgo-shim/base/go_bool.cc — see go_bool.h.
#include "clientgo-shim/base/go_bool.h"

namespace berth {

std::optional<bool> ParseGoBool(std::string_view text) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) return false;
  }
  return std::nullopt;
}

}  // namespace berth
