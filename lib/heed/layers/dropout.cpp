#include "heed/layers/dropout.h"

#include <string>

#include "heed/common/check.h"
#include "heed/common/error.h"

namespace heed::layers {

Dropout::Dropout(float p, int64_t unit) : p_(p), unit_(unit) {
  if (!(p >= 0.f && p < 1.f)) {
    throw ConfigError("dropout must be in [0, 1), got " + std::to_string(p));
  }
  if (unit < 1) throw ConfigError("dropout unit must be at least 1, got " + std::to_string(unit));
}

void Dropout::forward(tensor::Tensor& x, Rng* rng) {
  active_ = rng != nullptr && p_ > 0.f;
  if (!active_) return;
  const size_t unit = static_cast<size_t>(unit_);
  HEED_CHECK(static_cast<size_t>(x.numel()) % unit == 0, "dropout: size not a multiple of unit");
  const size_t n = static_cast<size_t>(x.numel()) / unit;
  mask_.resize(n);
  // xorshift64* seeded from the caller's stream: ~10× cheaper than mt19937 per value.
  uint64_t state = (*rng)() | 1u;
  const float keep_scale = 1.f / (1.f - p_);
  const uint32_t threshold = static_cast<uint32_t>(static_cast<double>(p_) * 4294967296.0);
  float* v = x.data();
  for (size_t i = 0; i < n; ++i) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    const uint32_t r = static_cast<uint32_t>((state * 2685821657736338717ull) >> 32);
    mask_[i] = r >= threshold ? keep_scale : 0.f;
    for (size_t j = 0; j < unit; ++j) v[i * unit + j] *= mask_[i];
  }
}

void Dropout::backward(tensor::Tensor& dx) const {
  if (!active_) return;
  const size_t unit = static_cast<size_t>(unit_);
  HEED_CHECK(static_cast<size_t>(dx.numel()) == mask_.size() * unit,
             "dropout backward: shape changed");
  float* d = dx.data();
  for (size_t i = 0; i < mask_.size(); ++i) {
    for (size_t j = 0; j < unit; ++j) d[i * unit + j] *= mask_[i];
  }
}

}  // namespace heed::layers
