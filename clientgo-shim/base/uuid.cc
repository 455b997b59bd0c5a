// clientgo-shim/base/uuid.cc — see uuid.h.
#include "clientgo-shim/base/uuid.h"

#include <cstdint>
#include <cstdio>

namespace berth {

std::string UuidV4(std::mt19937_64& rng) {
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xFFFFFFFFFFFF0FFFull) | 0x0000000000004000ull;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return buf;
}

std::string RandomUuidV4() {
  thread_local std::mt19937_64 rng = [] {
    std::random_device rd;
    return std::mt19937_64((static_cast<uint64_t>(rd()) << 32) ^ rd());
  }();
  return UuidV4(rng);
}

}  // namespace berth
