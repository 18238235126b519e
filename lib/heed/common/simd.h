// 16-float vectors written with GCC's vector extensions, and the exp and tanh the kernels need,
// for the kernels that are compiled once per ISA and picked at run time (attention's
// additive_scores.cpp and softmax_rows.cpp, heed-pooling's streaming_pool.cpp; the dispatch is
// common/cpu_dispatch.h). One Floats is one zmm register with AVX-512, two ymm with AVX2, four
// xmm in the baseline. Memory that a kernel reads as Floats* must be 64-byte aligned, which
// alignof(Floats) does not say in the baseline build (16 there).
#pragma once

#include <cstdint>
#include <cstring>

#include "heed/common/cpu_dispatch.h"

// The 64-byte vector types never cross a call that is not inlined, so the note that their ABI
// differs with and without AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace heed::simd {

constexpr int64_t kLanes = 16;
using Floats = float __attribute__((vector_size(kLanes * sizeof(float))));
using Ints = int32_t __attribute__((vector_size(kLanes * sizeof(int32_t))));
using Doubles = double __attribute__((vector_size(kLanes * sizeof(double))));

HEED_INLINE Floats load(const float* p) {
  Floats x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
HEED_INLINE void store(float* p, const Floats& x) {
  std::memcpy(p, &x, sizeof x);
}
// The first `count` < kLanes values, the other lanes 0.
HEED_INLINE Floats load_part(const float* p, int64_t count) {
  Floats x = {};
  std::memcpy(&x, p, size_t(count) * sizeof(float));
  return x;
}
HEED_INLINE void store_part(float* p, const Floats& x, int64_t count) {
  std::memcpy(p, &x, size_t(count) * sizeof(float));
}
HEED_INLINE Floats splat(float x) {
  return Floats{} + x;
}
// Lanes 0 … count − 1 all ones, the rest 0 (a mask for ?: on Floats).
HEED_INLINE Ints first_lanes(int64_t count) {
  const Ints index = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  return index < int32_t(count);
}
HEED_INLINE float sum(const Floats& x) {
  float s = 0.f;
  for (int64_t lane = 0; lane < kLanes; ++lane) s += x[lane];
  return s;
}
HEED_INLINE double sum(const Doubles& x) {
  double s = 0.0;
  for (int64_t lane = 0; lane < kLanes; ++lane) s += x[lane];
  return s;
}

// e^x for x ≤ 0 (softmax's x − max), relative error below 2·10⁻⁷; exactly 0 below −87, where
// e^x leaves float's normal range. x = k ln 2 + r with k = round(x / ln 2), so |r| ≤ ln 2 / 2,
// ln 2 split in two so that k·ln2_hi is exact; e^r from its Taylor series through r⁷ (the rest
// is below 6·10⁻⁹ of it); 2^k built in the exponent bits. No branches, no tables.
HEED_INLINE Floats exp_nonpositive(const Floats& x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860676533018708e-6f;
  // NaN stays NaN through every step (the training's NaN checks must see it).
  const Floats clamped = x < -87.f ? splat(-87.f) : x;
  // Truncation towards zero of t − 0.5 rounds t ≤ 0 to nearest.
  const Ints k = __builtin_convertvector(clamped * kLog2e - 0.5f, Ints);
  const Floats kf = __builtin_convertvector(k, Floats);
  const Floats r = (clamped - kf * kLn2Hi) - kf * kLn2Lo;
  Floats m = splat(1.f / 5040.f);
  m = m * r + 1.f / 720.f;
  m = m * r + 1.f / 120.f;
  m = m * r + 1.f / 24.f;
  m = m * r + 1.f / 6.f;
  m = m * r + 0.5f;
  m = m * r + 1.f;
  m = m * r + 1.f;
  const Floats e = (Floats)((k + 127) << 23) * m;
  return x < -87.f ? Floats{} : e;
}

// tanh |x| = (e^u − 1)/(e^u − 1 + 2) with u = 2|x|, the sign of x put back at the end; |x| is
// clamped at 10, where tanh is 1 in float. u = k ln 2 + r with k = ⌊u / ln 2⌋, so r ∈ [0, ln 2),
// ln 2 split in two so that k·ln2_hi is exact (k ≤ 28 needs 5 bits, ln2_hi has 16). Then
// e^u − 1 = 2^k·(e^r − 1) + (2^k − 1): two non-negative terms, so nothing cancels — which is
// what keeps the relative error small near 0, where e^u − 1 ≈ u — and e^r − 1 comes from its
// Taylor series through r⁹ (the rest is < 10⁻⁸ of it). 2^k is built in the exponent bits. One
// division, no branches, no lookup tables.
HEED_INLINE Floats tanh(const Floats& x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860676533018708e-6f;
  const Ints sign = (Ints)x & int32_t(0x80000000u);
  Floats ax = (Floats)((Ints)x & 0x7fffffff);
  ax = ax < 10.f ? ax : splat(10.f);
  const Floats u = 2.f * ax;
  const Ints k = __builtin_convertvector(u * kLog2e, Ints);  // truncation: u ≥ 0
  const Floats kf = __builtin_convertvector(k, Floats);
  const Floats r = (u - kf * kLn2Hi) - kf * kLn2Lo;
  Floats m = splat(1.f / 362880.f);
  m = m * r + 1.f / 40320.f;
  m = m * r + 1.f / 5040.f;
  m = m * r + 1.f / 720.f;
  m = m * r + 1.f / 120.f;
  m = m * r + 1.f / 24.f;
  m = m * r + 1.f / 6.f;
  m = m * r + 0.5f;
  m = m * r + 1.f;
  m = m * r;  // e^r − 1
  const Floats scale = (Floats)((k + 127) << 23);
  const Floats em1 = scale * m + (scale - 1.f);
  const Floats t = em1 / (em1 + 2.f);
  return (Floats)((Ints)t | sign);
}

}  // namespace heed::simd
