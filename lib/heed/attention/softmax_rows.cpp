// The vectorised, threaded softmax rows (softmax_rows.h). Each body is compiled three times —
// AVX-512F+FMA, AVX2+FMA and the baseline — and the OpenMP loops stay in baseline code, calling
// the chosen variant per row (as additive_scores.cpp does).
#include "heed/attention/softmax_rows.h"

#include <algorithm>

#include "heed/common/simd.h"

namespace heed::attention {
namespace {

using namespace simd;

HEED_INLINE Doubles widen(const Floats& x) {
  return __builtin_convertvector(x, Doubles);
}

HEED_INLINE void softmax_row_body(float* row, int64_t width, Span span) {
  std::fill(row, row + span.begin, 0.f);
  std::fill(row + span.end, row + width, 0.f);
  float* x = row + span.begin;
  const int64_t n = span.end - span.begin, whole = n / kLanes * kLanes;
  float mx = x[0];
  if (whole > 0) {
    Floats m = load(x);
    for (int64_t i = kLanes; i < whole; i += kLanes) {
      const Floats v = load(x + i);
      m = v > m ? v : m;
    }
    for (int64_t lane = 0; lane < kLanes; ++lane) mx = std::max(mx, m[lane]);
  }
  for (int64_t i = whole; i < n; ++i) mx = std::max(mx, x[i]);
  Doubles z = {};
  for (int64_t i = 0; i < whole; i += kLanes) {
    const Floats e = exp_nonpositive(load(x + i) - mx);
    store(x + i, e);
    z += widen(e);
  }
  if (whole < n) {
    const int64_t rest = n - whole;
    const Floats e = exp_nonpositive(load_part(x + whole, rest) - mx);
    store_part(x + whole, e, rest);
    z += widen(first_lanes(rest) ? e : Floats{});
  }
  const float inv = static_cast<float>(1.0 / sum(z));
  for (int64_t i = 0; i < whole; i += kLanes) store(x + i, load(x + i) * inv);
  for (int64_t i = whole; i < n; ++i) x[i] *= inv;
}

// d e = a ⊙ (d a − Σ a·d a), in double: d a − Σ a·d a cancels where the weights are flat, and a
// bias whose gradient sums such rows sees every rounding.
HEED_INLINE void softmax_row_backward_body(const float* a, float* g, int64_t width) {
  const int64_t whole = width / kLanes * kLanes;
  Doubles dot_lanes = {};
  for (int64_t i = 0; i < whole; i += kLanes) dot_lanes += widen(load(a + i)) * widen(load(g + i));
  double dot = sum(dot_lanes);
  for (int64_t i = whole; i < width; ++i) dot += double(a[i]) * double(g[i]);
  for (int64_t i = 0; i < whole; i += kLanes) {
    const Doubles d = widen(load(a + i)) * (widen(load(g + i)) - dot);
    store(g + i, __builtin_convertvector(d, Floats));
  }
  for (int64_t i = whole; i < width; ++i) {
    g[i] = static_cast<float>(double(a[i]) * (double(g[i]) - dot));
  }
}

using RowFn = void (*)(float*, int64_t, Span);
using RowBackwardFn = void (*)(const float*, float*, int64_t);

#define HEED_SOFTMAX_VARIANT(suffix, target)                                       \
  target void softmax_row_##suffix(float* row, int64_t width, Span span) {         \
    softmax_row_body(row, width, span);                                            \
  }                                                                                \
  target void softmax_row_backward_##suffix(const float* a, float* g, int64_t w) { \
    softmax_row_backward_body(a, g, w);                                            \
  }

HEED_SOFTMAX_VARIANT(avx512, HEED_TARGET_AVX512)
HEED_SOFTMAX_VARIANT(avx2, HEED_TARGET_AVX2)
HEED_SOFTMAX_VARIANT(baseline, )

struct Variant {
  RowFn row;
  RowBackwardFn row_backward;
};

const Variant& variant() {
  static const Variant by_level[] = {{softmax_row_avx512, softmax_row_backward_avx512},
                                     {softmax_row_avx2, softmax_row_backward_avx2},
                                     {softmax_row_baseline, softmax_row_backward_baseline}};
  return by_level[cpu_level()];
}

}  // namespace

void softmax_rows(float* rows, int64_t count, int64_t width, const Span* spans) {
  const RowFn row = variant().row;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < count; ++r) row(rows + r * width, width, spans[r]);
}

void softmax_rows_backward(const float* weights, float* d, int64_t count, int64_t width) {
  const RowBackwardFn row = variant().row_backward;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < count; ++r) row(weights + r * width, d + r * width, width);
}

}  // namespace heed::attention
