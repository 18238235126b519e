#include "streaming_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/common/check.h"
#include "heed/common/cpu_dispatch.h"
#include "heed/common/error.h"
#include "leaky_relu.h"

namespace heed::pooling {

ScoreKind parse_score_kind(const std::string& name) {
  if (name == "tanh") return ScoreKind::kTanh;
  if (name == "linear") return ScoreKind::kLinear;
  if (name == "scaled-tanh") return ScoreKind::kScaledTanh;
  if (name == "positional-tanh") return ScoreKind::kPositionalTanh;
  if (name == "mean") return ScoreKind::kMean;
  throw ConfigError("unknown score '" + name +
                    "' (tanh, linear, scaled-tanh, positional-tanh or mean)");
}

std::string to_string(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::kTanh:
      return "tanh";
    case ScoreKind::kLinear:
      return "linear";
    case ScoreKind::kScaledTanh:
      return "scaled-tanh";
    case ScoreKind::kPositionalTanh:
      return "positional-tanh";
    case ScoreKind::kMean:
      return "mean";
  }
  return "?";
}

namespace {

// Sequences per chunk of work: enough chunks for two threads to balance, few enough that the
// per-chunk gradient buffers stay small. Fixed, so that the reduction order never changes.
constexpr int64_t kChunks = 16;

// Everything one pass needs; the per-chunk bodies below read it.
struct Pass {
  ScoreKind kind;
  int64_t width, steps, count;
  const StreamingPoolWeights* weights;
  const float* inputs;
  const int64_t* lengths;
  float* max;  // [N]
  float* sum;  // [N]
  float* pooled;
  const float* d_pooled;
};

// The per-chunk gradient sums, in double: a chunk adds up to 16 sequences of 10⁴ steps.
struct ChunkGrads {
  std::vector<double> step_weight, step_bias, score_weight, score_bias;
  double score_scale = 0;
};

// h = leaky(W_s x + b_s) for one step; keeps the pre-activation for the backward pass.
HEED_INLINE void step_layer(const Pass& p, float x0, float x1, float* pre, float* h) {
  const float* w = p.weights->step_weight;
  const float* b = p.weights->step_bias;
  for (int64_t j = 0; j < p.width; ++j) {
    pre[j] = w[2 * j] * x0 + w[2 * j + 1] * x1 + b[j];
    h[j] = pre[j] > 0.f ? pre[j] : kLeakySlope * pre[j];
  }
}

HEED_INLINE float dot(const float* a, const float* b, int64_t n) {
  float s = 0.f;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < n; ++j) s += a[j] * b[j];
  return s;
}

// The score e of one step from h, and tanh(w·h + b) (the scaled score's derivative needs it).
HEED_INLINE float step_score(const Pass& p, const float* h, int64_t t, float* tanh_out) {
  const StreamingPoolWeights& w = *p.weights;
  const float bias = w.score_bias[p.kind == ScoreKind::kPositionalTanh ? t : 0];
  const float z = dot(w.score_weight, h, p.width) + bias;
  if (p.kind == ScoreKind::kLinear) {
    *tanh_out = 0.f;
    return z;
  }
  const float th = std::tanh(z);
  *tanh_out = th;
  return p.kind == ScoreKind::kScaledTanh ? *w.score_scale * th : th;
}

HEED_INLINE void forward_chunk(const Pass& p, int64_t first, int64_t last, float* pre, float* h,
                               float* acc) {
  const int64_t w = p.width;
  for (int64_t n = first; n < last; ++n) {
    const int64_t len = p.lengths[n];
    std::fill(acc, acc + w, 0.f);
    float max = -std::numeric_limits<float>::infinity();
    double sum = 0;
    for (int64_t t = 0; t < len; ++t) {
      const float* x = p.inputs + (t * p.count + n) * 2;
      step_layer(p, x[0], x[1], pre, h);
      if (p.kind == ScoreKind::kMean) {
        for (int64_t j = 0; j < w; ++j) acc[j] += h[j];
        continue;
      }
      float th;
      const float e = step_score(p, h, t, &th);
      if (e > max) {  // online softmax: rescale what was summed against the old maximum
        const float rescale = std::exp(max - e);
        for (int64_t j = 0; j < w; ++j) acc[j] *= rescale;
        sum *= double(rescale);
        max = e;
      }
      const float weight = std::exp(e - max);
      sum += double(weight);
      for (int64_t j = 0; j < w; ++j) acc[j] += weight * h[j];
    }
    const float scale = p.kind == ScoreKind::kMean ? 1.f / float(len) : float(1.0 / sum);
    float* c = p.pooled + n * w;
    for (int64_t j = 0; j < w; ++j) c[j] = acc[j] * scale;
    p.max[n] = max;
    p.sum[n] = float(sum);
  }
}

// Scratch per chunk: pre, h, dh and the per-sequence gradient sums, each W floats (score bias:
// one per position for the positional score).
struct Scratch {
  std::vector<float> pre, h, dh, d_step_weight, d_step_bias, d_score_weight, d_score_bias;
};

HEED_INLINE void backward_chunk(const Pass& p, int64_t first, int64_t last, Scratch& s,
                                ChunkGrads& g) {
  const int64_t w = p.width;
  const StreamingPoolWeights& weights = *p.weights;
  const bool positional = p.kind == ScoreKind::kPositionalTanh;
  float* pre = s.pre.data();
  float* h = s.h.data();
  float* dh = s.dh.data();
  float* dsw = s.d_step_weight.data();
  float* dsb = s.d_step_bias.data();
  float* dw = s.d_score_weight.data();
  for (int64_t n = first; n < last; ++n) {
    const int64_t len = p.lengths[n];
    const float* dc = p.d_pooled + n * w;
    // Σ_k α_k (dc·h_k) = dc·c: the softmax's backward needs it before the pass.
    const float dc_c = dot(dc, p.pooled + n * w, w);
    std::fill(dsw, dsw + 2 * w, 0.f);
    std::fill(dsb, dsb + w, 0.f);
    std::fill(dw, dw + w, 0.f);
    float d_bias = 0.f, d_scale = 0.f;
    for (int64_t t = 0; t < len; ++t) {
      const float* x = p.inputs + (t * p.count + n) * 2;
      step_layer(p, x[0], x[1], pre, h);
      if (p.kind == ScoreKind::kMean) {
        const float alpha = 1.f / float(len);
        for (int64_t j = 0; j < w; ++j) dh[j] = alpha * dc[j];
      } else {
        float th;
        const float e = step_score(p, h, t, &th);
        const float alpha = std::exp(e - p.max[n]) / p.sum[n];
        const float de = alpha * (dot(dc, h, w) - dc_c);
        float dz = de;
        if (p.kind == ScoreKind::kScaledTanh) {
          d_scale += de * th;
          dz = de * *weights.score_scale * (1.f - th * th);
        } else if (p.kind != ScoreKind::kLinear) {
          dz = de * (1.f - th * th);
        }
        if (positional) {
          s.d_score_bias[size_t(t)] += dz;
        } else {
          d_bias += dz;
        }
        for (int64_t j = 0; j < w; ++j) {
          dw[j] += dz * h[j];
          dh[j] = alpha * dc[j] + dz * weights.score_weight[j];
        }
      }
      for (int64_t j = 0; j < w; ++j) {
        const float dpre = pre[j] > 0.f ? dh[j] : kLeakySlope * dh[j];
        dsw[2 * j] += dpre * x[0];
        dsw[2 * j + 1] += dpre * x[1];
        dsb[j] += dpre;
      }
    }
    for (int64_t j = 0; j < 2 * w; ++j) g.step_weight[size_t(j)] += double(dsw[j]);
    for (int64_t j = 0; j < w; ++j) g.step_bias[size_t(j)] += double(dsb[j]);
    if (p.kind == ScoreKind::kMean) continue;
    for (int64_t j = 0; j < w; ++j) g.score_weight[size_t(j)] += double(dw[j]);
    if (positional) {
      for (int64_t t = 0; t < len; ++t) {
        g.score_bias[size_t(t)] += double(s.d_score_bias[size_t(t)]);
        s.d_score_bias[size_t(t)] = 0.f;
      }
    } else {
      g.score_bias[0] += double(d_bias);
    }
    g.score_scale += double(d_scale);
  }
}

// One build per ISA (common/cpu_dispatch.h); the OpenMP loop stays in baseline code.
HEED_TARGET_AVX512 void forward_avx512(const Pass& p, int64_t a, int64_t b, float* pre, float* h,
                                       float* acc) {
  forward_chunk(p, a, b, pre, h, acc);
}
HEED_TARGET_AVX2 void forward_avx2(const Pass& p, int64_t a, int64_t b, float* pre, float* h,
                                   float* acc) {
  forward_chunk(p, a, b, pre, h, acc);
}
void forward_baseline(const Pass& p, int64_t a, int64_t b, float* pre, float* h, float* acc) {
  forward_chunk(p, a, b, pre, h, acc);
}
HEED_TARGET_AVX512 void backward_avx512(const Pass& p, int64_t a, int64_t b, Scratch& s,
                                        ChunkGrads& g) {
  backward_chunk(p, a, b, s, g);
}
HEED_TARGET_AVX2 void backward_avx2(const Pass& p, int64_t a, int64_t b, Scratch& s,
                                    ChunkGrads& g) {
  backward_chunk(p, a, b, s, g);
}
void backward_baseline(const Pass& p, int64_t a, int64_t b, Scratch& s, ChunkGrads& g) {
  backward_chunk(p, a, b, s, g);
}

using ForwardChunk = void (*)(const Pass&, int64_t, int64_t, float*, float*, float*);
using BackwardChunk = void (*)(const Pass&, int64_t, int64_t, Scratch&, ChunkGrads&);
constexpr ForwardChunk kForward[] = {forward_avx512, forward_avx2, forward_baseline};
constexpr BackwardChunk kBackward[] = {backward_avx512, backward_avx2, backward_baseline};

// [first, last) of chunk c of count sequences split into kChunks near-equal parts.
std::pair<int64_t, int64_t> chunk_range(int64_t c, int64_t count) {
  return {c * count / kChunks, (c + 1) * count / kChunks};
}

}  // namespace

StreamingPool::StreamingPool(ScoreKind kind, int64_t width, int64_t max_length)
    : kind_(kind), width_(width), max_length_(max_length) {
  if (width < 1 || max_length < 1) throw ConfigError("streaming pool: width and length ≥ 1");
}

int64_t StreamingPool::score_bias_size() const {
  return kind_ == ScoreKind::kPositionalTanh ? max_length_ : 1;
}

void StreamingPool::forward(const StreamingPoolWeights& weights, const float* inputs, int64_t steps,
                            int64_t count, const std::vector<int64_t>& lengths, float* pooled) {
  HEED_CHECK(weights.width == width_, "streaming pool: width");
  HEED_CHECK(steps <= max_length_, "streaming pool: longer than the model's length");
  HEED_CHECK(int64_t(lengths.size()) == count, "streaming pool: lengths");
  for (int64_t len : lengths) HEED_CHECK(len >= 1 && len <= steps, "streaming pool: a length");
  inputs_ = inputs;
  steps_ = steps;
  count_ = count;
  lengths_ = lengths;
  max_.assign(size_t(count), 0.f);
  sum_.assign(size_t(count), 0.f);
  const Pass pass{kind_,           width_,      steps,       count,  &weights, inputs,
                  lengths_.data(), max_.data(), sum_.data(), pooled, nullptr};
  const ForwardChunk body = kForward[cpu_level()];
#pragma omp parallel for schedule(dynamic)
  for (int64_t c = 0; c < kChunks; ++c) {
    std::vector<float> scratch(size_t(3 * width_));
    const auto [first, last] = chunk_range(c, count);
    body(pass, first, last, scratch.data(), scratch.data() + width_, scratch.data() + 2 * width_);
  }
}

void StreamingPool::backward(const StreamingPoolWeights& weights, const float* inputs,
                             const float* pooled, const float* d_pooled,
                             const StreamingPoolGrads& grads) {
  HEED_CHECK(inputs == inputs_ && !lengths_.empty(), "streaming pool: backward before forward");
  const Pass pass{kind_,   width_,          steps_,      count_,      &weights,
                  inputs,  lengths_.data(), max_.data(), sum_.data(), const_cast<float*>(pooled),
                  d_pooled};
  const int64_t bias_size = score_bias_size();
  std::vector<ChunkGrads> chunk_grads(kChunks);
  const BackwardChunk body = kBackward[cpu_level()];
#pragma omp parallel for schedule(dynamic)
  for (int64_t c = 0; c < kChunks; ++c) {
    ChunkGrads& g = chunk_grads[size_t(c)];
    g.step_weight.assign(size_t(2 * width_), 0.0);
    g.step_bias.assign(size_t(width_), 0.0);
    g.score_weight.assign(size_t(width_), 0.0);
    g.score_bias.assign(size_t(bias_size), 0.0);
    Scratch s;
    for (auto* v : {&s.pre, &s.h, &s.dh, &s.d_step_bias, &s.d_score_weight}) {
      v->assign(size_t(width_), 0.f);
    }
    s.d_step_weight.assign(size_t(2 * width_), 0.f);
    s.d_score_bias.assign(size_t(bias_size), 0.f);
    const auto [first, last] = chunk_range(c, count_);
    body(pass, first, last, s, g);
  }
  // In chunk order, whatever the number of threads.
  for (const ChunkGrads& g : chunk_grads) {
    for (int64_t j = 0; j < 2 * width_; ++j)
      grads.step_weight[j] += float(g.step_weight[size_t(j)]);
    for (int64_t j = 0; j < width_; ++j) grads.step_bias[j] += float(g.step_bias[size_t(j)]);
    if (!has_score()) continue;
    for (int64_t j = 0; j < width_; ++j) grads.score_weight[j] += float(g.score_weight[size_t(j)]);
    for (int64_t j = 0; j < bias_size; ++j) grads.score_bias[j] += float(g.score_bias[size_t(j)]);
    if (kind_ == ScoreKind::kScaledTanh) *grads.score_scale += float(g.score_scale);
  }
}

std::vector<float> StreamingPool::weights_of_last_forward(
    const StreamingPoolWeights& weights) const {
  HEED_CHECK(!lengths_.empty(), "streaming pool: no forward yet");
  std::vector<float> alpha(size_t(count_ * steps_), 0.f);
  std::vector<float> pre(static_cast<size_t>(width_)), h(static_cast<size_t>(width_));
  const Pass pass{kind_,           width_,  steps_,  count_,  &weights, inputs_,
                  lengths_.data(), nullptr, nullptr, nullptr, nullptr};
  for (int64_t n = 0; n < count_; ++n) {
    const int64_t len = lengths_[size_t(n)];
    for (int64_t t = 0; t < len; ++t) {
      float a = 1.f / float(len);
      if (has_score()) {
        const float* x = inputs_ + (t * count_ + n) * 2;
        step_layer(pass, x[0], x[1], pre.data(), h.data());
        float th;
        a = std::exp(step_score(pass, h.data(), t, &th) - max_[size_t(n)]) / sum_[size_t(n)];
      }
      alpha[size_t(n * steps_ + t)] = a;
    }
  }
  return alpha;
}

}  // namespace heed::pooling
