// clientgo-shim/base/uuid.h
//
// Version-4 (random) UUIDs in the canonical 8-4-4-4-12 form, as Go's uuid.NewUUID gives them: the
// leader-election identity, Event names, reconcileIDs.
#pragma once

#include <random>
#include <string>

namespace berth {

// UuidV4 draws one from `rng` (deterministic for a seeded rng, which tests use).
std::string UuidV4(std::mt19937_64& rng);

// RandomUuidV4 draws one from a per-thread generator seeded from std::random_device.
std::string RandomUuidV4();

}  // namespace berth
