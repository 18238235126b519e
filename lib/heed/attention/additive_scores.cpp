// The fused additive score kernel (additive_scores.h).
//
// Vectorised over A (contiguous in wq, p, v and the gradients), 16 lanes at a time, and compiled
// three times — AVX-512F+FMA, AVX2+FMA and the baseline — with
// the variant picked once at run time from the CPU's features (__builtin_cpu_supports): the
// library is never built for one machine (no -march=native), and GCC's target_clones cannot
// ask for AVX-512F and FMA together in one clone. The OpenMP loops stay in baseline code and
// call the chosen variant per task, so no parallel region is outlined from ISA-specific code.
#include "heed/attention/additive_scores.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "heed/common/check.h"
#include "heed/common/simd.h"

namespace heed::attention {
namespace {

using namespace simd;

// Source positions per task: a block's rows of p and d_p (2·32·A floats, 128 KiB at A = 512)
// stay in cache while every query of the sentence passes over them.
constexpr int64_t kBlock = 32;

HEED_INLINE float tanh_one(float x) {
  return tanh(splat(x))[0];
}

// Σ_k v_k tanh(wq_k + p_k).
HEED_INLINE float score_one(const float* wq, const float* p, const float* v, int64_t a) {
  Floats sum = {};
  int64_t k = 0;
  for (; k + kLanes <= a; k += kLanes) {
    sum += load(v + k) * tanh(load(wq + k) + load(p + k));
  }
  if (k < a) {  // v's missing lanes are 0
    const int64_t rest = a - k;
    sum += load_part(v + k, rest) * tanh(load_part(wq + k, rest) + load_part(p + k, rest));
  }
  return simd::sum(sum);
}

// scores of sentence b's rows at source positions [s0, s1).
HEED_INLINE void score_block_body(const AdditiveScoreShape& shape, const float* wq_all,
                                  const float* p_all, const float* v, const Span* spans, int64_t b,
                                  int64_t s0, int64_t s1, float* scores) {
  const int64_t n = shape.batch, s_len = shape.source, a = shape.dim;
  const int64_t p_n = shape.key_rows ? shape.key_batch : n;
  const int64_t p_b = shape.key_rows ? shape.key_rows[b] : b;
  for (int64_t t = 0; t < shape.queries; ++t) {
    const int64_t row = b * shape.queries + t;
    const float* wq = wq_all + (t * n + b) * a;
    float* out = scores + row * s_len;
    const int64_t lo = std::max(s0, spans[row].begin), hi = std::min(s1, spans[row].end);
    for (int64_t s = s0; s < s1; ++s) {
      out[s] = s < lo || s >= hi ? 0.f : score_one(wq, p_all + (s * p_n + p_b) * a, v, a);
    }
  }
}

// One (query, position) pair's gradients, lanes [k, k + count) (count ≤ kLanes).
template <bool kWhole>
HEED_INLINE void backward_lanes(const float* wq, const float* p, const float* v, float de,
                                int64_t k, int64_t count, float* d_wq, float* d_p, float* dv) {
  auto in = [&](const float* x) { return kWhole ? load(x + k) : load_part(x + k, count); };
  auto out = [&](float* x, const Floats& value) {
    if (kWhole) {
      store(x + k, value);
    } else {
      store_part(x + k, value, count);
    }
  };
  const Floats h = tanh(in(wq) + in(p));
  out(dv, in(dv) + de * h);
  const Floats pre = de * in(v) * (1.f - h * h);
  out(d_p, in(d_p) + pre);
  out(d_wq, in(d_wq) + pre);
}

// Every gradient of sentence b: its rows of d_wq (overwritten), its rows of d_p and its own dv
// (both added to).
HEED_INLINE void backward_sentence_body(const AdditiveScoreShape& shape, const float* wq_all,
                                        const float* p_all, const float* v, const Span* spans,
                                        const float* d_scores, int64_t b, float* d_wq_all,
                                        float* d_p_all, float* dv) {
  const int64_t n = shape.batch, s_len = shape.source, a = shape.dim;
  const int64_t whole = a / kLanes * kLanes;
  for (int64_t t = 0; t < shape.queries; ++t) {
    std::fill_n(d_wq_all + (t * n + b) * a, a, 0.f);
  }
  for (int64_t s0 = 0; s0 < s_len; s0 += kBlock) {
    const int64_t s1 = std::min(s0 + kBlock, s_len);
    for (int64_t t = 0; t < shape.queries; ++t) {
      const int64_t row = b * shape.queries + t;
      const float* wq = wq_all + (t * n + b) * a;
      float* d_wq = d_wq_all + (t * n + b) * a;
      const int64_t lo = std::max(s0, spans[row].begin), hi = std::min(s1, spans[row].end);
      for (int64_t s = lo; s < hi; ++s) {
        const float de = d_scores[row * s_len + s];
        if (de == 0.f) continue;  // every term would be 0
        const float* p = p_all + (s * n + b) * a;
        float* d_p = d_p_all + (s * n + b) * a;
        for (int64_t k = 0; k < whole; k += kLanes) {
          backward_lanes<true>(wq, p, v, de, k, kLanes, d_wq, d_p, dv);
        }
        if (whole < a) backward_lanes<false>(wq, p, v, de, whole, a - whole, d_wq, d_p, dv);
      }
    }
  }
}

using ScoreBlockFn = void (*)(const AdditiveScoreShape&, const float*, const float*, const float*,
                              const Span*, int64_t, int64_t, int64_t, float*);
using BackwardSentenceFn = void (*)(const AdditiveScoreShape&, const float*, const float*,
                                    const float*, const Span*, const float*, int64_t, float*,
                                    float*, float*);

#define HEED_ADDITIVE_VARIANT(suffix, target)                                                    \
  target void score_block_##suffix(const AdditiveScoreShape& shape, const float* wq,             \
                                   const float* p, const float* v, const Span* spans, int64_t b, \
                                   int64_t s0, int64_t s1, float* scores) {                      \
    score_block_body(shape, wq, p, v, spans, b, s0, s1, scores);                                 \
  }                                                                                              \
  target void backward_sentence_##suffix(                                                        \
      const AdditiveScoreShape& shape, const float* wq, const float* p, const float* v,          \
      const Span* spans, const float* d_scores, int64_t b, float* d_wq, float* d_p, float* dv) { \
    backward_sentence_body(shape, wq, p, v, spans, d_scores, b, d_wq, d_p, dv);                  \
  }                                                                                              \
  target float tanh_##suffix(float x) {                                                          \
    return tanh_one(x);                                                                          \
  }

HEED_ADDITIVE_VARIANT(avx512, HEED_TARGET_AVX512)
HEED_ADDITIVE_VARIANT(avx2, HEED_TARGET_AVX2)
HEED_ADDITIVE_VARIANT(baseline, )

struct Variant {
  ScoreBlockFn score_block;
  BackwardSentenceFn backward_sentence;
  float (*tanh)(float);
};

const Variant& variant() {
  static const Variant by_level[] = {
      {score_block_avx512, backward_sentence_avx512, tanh_avx512},
      {score_block_avx2, backward_sentence_avx2, tanh_avx2},
      {score_block_baseline, backward_sentence_baseline, tanh_baseline}};
  return by_level[cpu_level()];
}

}  // namespace

void additive_scores(const AdditiveScoreShape& shape, const float* wq, const float* p,
                     const float* v, const std::vector<Span>& spans, float* scores) {
  const Variant& kernel = variant();
  const int64_t blocks = (shape.source + kBlock - 1) / kBlock;
  const int64_t tasks = shape.batch * blocks;
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t b = task / blocks, s0 = (task % blocks) * kBlock;
    kernel.score_block(shape, wq, p, v, spans.data(), b, s0, std::min(s0 + kBlock, shape.source),
                       scores);
  }
}

void additive_scores_backward(const AdditiveScoreShape& shape, const float* wq, const float* p,
                              const float* v, const std::vector<Span>& spans, const float* d_scores,
                              float* d_wq, float* d_p, float* dv) {
  HEED_CHECK(shape.key_rows == nullptr, "additive scores: a shared key side has no backward");
  const Variant& kernel = variant();
  const int64_t n = shape.batch, a = shape.dim;
  // One dv per sentence, summed in sentence order afterwards: the same sums whatever the thread
  // count (a d_p row belongs to one sentence, so it needs no such care).
  std::vector<float> dv_sentence(size_t(n * a), 0.f);
#pragma omp parallel for schedule(dynamic, 1)
  for (int64_t b = 0; b < n; ++b) {
    kernel.backward_sentence(shape, wq, p, v, spans.data(), d_scores, b, d_wq, d_p,
                             dv_sentence.data() + b * a);
  }
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t k = 0; k < a; ++k) dv[k] += dv_sentence[size_t(b * a + k)];
  }
}

float additive_tanh(float x) {
  return variant().tanh(x);
}

const char* additive_scores_isa() {
  return cpu_level_name();
}

}  // namespace heed::attention
