// One seeded random source per process; components derive their own streams from it.
#pragma once

#include <cstdint>
#include <random>

namespace heed {

using Rng = std::mt19937_64;

// A generator for a named stream of a seed, so that adding a consumer does not shift others.
Rng make_rng(std::uint64_t seed, std::uint64_t stream = 0);

}  // namespace heed
