// controllers/common/bool_flag.cc — see bool_flag.h.
#include "controllers/common/bool_flag.h"

namespace berth::controllers {

BoolFlagMatch TakeBoolFlag(const std::vector<std::string>& args, size_t& i, std::string_view name, bool& out,
                           std::string& error) {
  const std::string& a = args[i];
  if (a == name) {
    out = true;
    if (i + 1 < args.size() && (args[i + 1] == "true" || args[i + 1] == "false")) {
      out = args[++i] == "true";
    }
    return BoolFlagMatch::kTaken;
  }
  if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
    const std::string_view value = std::string_view(a).substr(name.size() + 1);
    if (auto parsed = ParseGoBool(value)) {
      out = *parsed;
      return BoolFlagMatch::kTaken;
    }
    error = "invalid boolean value \"" + std::string(value) + "\" for " + std::string(name);
    return BoolFlagMatch::kInvalid;
  }
  return BoolFlagMatch::kNotMine;
}

}  // namespace berth::controllers
