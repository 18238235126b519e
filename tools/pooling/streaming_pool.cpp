#include "streaming_pool.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "heed/common/check.h"
#include "heed/common/cpu_dispatch.h"
#include "heed/common/error.h"
#include "heed/common/simd.h"
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

// Steps are taken kBlock at a time, the block's activations laid out [W][kBlock]: every
// operation of the inner loops over the W units is then one 16-lane vector across the block's
// steps (one zmm register with AVX-512), the scores need no horizontal sums, and the weighted sum
// and the gradients accumulate per lane, summed across lanes once per sequence.
constexpr int64_t kBlock = 16;
using Lanes = simd::Floats;
static_assert(simd::kLanes == kBlock);
using simd::splat;
HEED_INLINE float lane_sum(const Lanes& x) {
  return simd::sum(x);
}

// `count` Lanes on a 64-byte boundary: the AVX-512 build stores them with aligned moves. Not
// alignof(Lanes), nor std::vector<Lanes>: in the baseline build, where this runs, GCC aligns the
// 64-byte vector type to 16 only.
class LaneBuffer {
 public:
  explicit LaneBuffer(int64_t count) : storage_(size_t((count + 1) * kBlock), 0.f) {
    constexpr std::uintptr_t kAlign = kBlock * sizeof(float);
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    data_ = reinterpret_cast<Lanes*>((address + kAlign - 1) & ~(kAlign - 1));
  }
  Lanes* data() { return data_; }

 private:
  std::vector<float> storage_;
  Lanes* data_;
};

// Per-chunk scratch: the block's activations and the per-lane accumulators, [W] Lanes each.
struct Scratch {
  LaneBuffer h, acc, d_step_weight0, d_step_weight1, d_step_bias, d_score_weight;
  std::vector<float> d_score_bias;  // [max_length] for the positional score
  explicit Scratch(int64_t width, int64_t bias_size)
      : h(width),
        acc(width),
        d_step_weight0(width),
        d_step_weight1(width),
        d_step_bias(width),
        d_score_weight(width),
        d_score_bias(size_t(bias_size)) {}
};

// One block of `count` ≤ kBlock steps from step t0 of sequence n: its inputs (0 past count),
// h into s.h, and the scores' pre-activations z (lanes past count are garbage, never used).
struct Block {
  Lanes x0{}, x1{}, z{};
  int64_t count = 0;
};

HEED_INLINE Block step_block(const Pass& p, int64_t n, int64_t t0, int64_t len, Lanes* h) {
  Block blk;
  blk.count = std::min(kBlock, len - t0);
  for (int64_t b = 0; b < blk.count; ++b) {
    const float* x = p.inputs + ((t0 + b) * p.count + n) * 2;
    blk.x0[b] = x[0];
    blk.x1[b] = x[1];
  }
  const StreamingPoolWeights& w = *p.weights;
  const bool score = p.kind != ScoreKind::kMean;
  if (score) {
    if (p.kind == ScoreKind::kPositionalTanh) {
      for (int64_t b = 0; b < blk.count; ++b) blk.z[b] = w.score_bias[t0 + b];
    } else {
      blk.z = splat(w.score_bias[0]);
    }
  }
  for (int64_t j = 0; j < p.width; ++j) {
    const Lanes pre =
        w.step_weight[2 * j] * blk.x0 + w.step_weight[2 * j + 1] * blk.x1 + w.step_bias[j];
    h[j] = pre > 0.f ? pre : kLeakySlope * pre;
    if (score) blk.z += w.score_weight[j] * h[j];
  }
  return blk;
}

// e = f(z) for the block's lanes, and tanh(z) (the scaled score's derivative needs it).
HEED_INLINE Lanes block_scores(const Pass& p, const Block& blk, Lanes* th) {
  if (p.kind == ScoreKind::kLinear) {
    *th = Lanes{};
    return blk.z;
  }
  *th = simd::tanh(blk.z);
  return p.kind == ScoreKind::kScaledTanh ? *p.weights->score_scale * *th : *th;
}

// The lanes at or past count, set to value (a block at a sequence's end is short).
HEED_INLINE Lanes mask_tail(Lanes x, int64_t count, float value) {
  for (int64_t b = count; b < kBlock; ++b) x[b] = value;
  return x;
}

HEED_INLINE void forward_chunk(const Pass& p, int64_t first, int64_t last, Scratch& s) {
  const int64_t w = p.width;
  Lanes* h = s.h.data();
  Lanes* acc = s.acc.data();
  for (int64_t n = first; n < last; ++n) {
    const int64_t len = p.lengths[n];
    std::fill(acc, acc + w, Lanes{});
    float max = -std::numeric_limits<float>::infinity();
    double sum = 0;
    for (int64_t t0 = 0; t0 < len; t0 += kBlock) {
      const Block blk = step_block(p, n, t0, len, h);
      Lanes weight;
      if (p.kind == ScoreKind::kMean) {
        weight = mask_tail(splat(1.f), blk.count, 0.f);
      } else {
        Lanes th;
        const Lanes e = mask_tail(block_scores(p, blk, &th), blk.count,
                                  -std::numeric_limits<float>::infinity());
        float block_max = e[0];
        for (int64_t b = 1; b < kBlock; ++b) block_max = std::max(block_max, e[b]);
        if (block_max > max) {  // online softmax: rescale what was summed against the old maximum
          const float rescale = simd::exp_nonpositive(splat(max - block_max))[0];
          for (int64_t j = 0; j < w; ++j) acc[j] *= rescale;
          sum *= double(rescale);
          max = block_max;
        }
        weight = simd::exp_nonpositive(e - max);  // 0 in the masked lanes
        sum += double(lane_sum(weight));
      }
      for (int64_t j = 0; j < w; ++j) acc[j] += weight * h[j];
    }
    const float scale = p.kind == ScoreKind::kMean ? 1.f / float(len) : float(1.0 / sum);
    float* c = p.pooled + n * w;
    for (int64_t j = 0; j < w; ++j) c[j] = lane_sum(acc[j]) * scale;
    p.max[n] = max;
    p.sum[n] = float(sum);
  }
}

HEED_INLINE void backward_chunk(const Pass& p, int64_t first, int64_t last, Scratch& s,
                                ChunkGrads& g) {
  const int64_t w = p.width;
  const StreamingPoolWeights& weights = *p.weights;
  const bool score = p.kind != ScoreKind::kMean;
  const bool positional = p.kind == ScoreKind::kPositionalTanh;
  Lanes* h = s.h.data();
  Lanes* dw0 = s.d_step_weight0.data();
  Lanes* dw1 = s.d_step_weight1.data();
  Lanes* dsb = s.d_step_bias.data();
  Lanes* dsw = s.d_score_weight.data();
  for (int64_t n = first; n < last; ++n) {
    const int64_t len = p.lengths[n];
    const float* dc = p.d_pooled + n * w;
    // Σ_k α_k (dc·h_k) = dc·c: the softmax's backward needs it before the pass.
    float dc_c = 0.f;
    for (int64_t j = 0; j < w; ++j) dc_c += dc[j] * p.pooled[n * w + j];
    for (Lanes* v : {dw0, dw1, dsb, dsw}) std::fill(v, v + w, Lanes{});
    Lanes d_bias{}, d_scale{};
    for (int64_t t0 = 0; t0 < len; t0 += kBlock) {
      const Block blk = step_block(p, n, t0, len, h);
      Lanes alpha, dz{}, tanh_lanes;
      if (!score) {
        alpha = mask_tail(splat(1.f / float(len)), blk.count, 0.f);
      } else {
        const Lanes e = mask_tail(block_scores(p, blk, &tanh_lanes), blk.count,
                                  -std::numeric_limits<float>::infinity());
        alpha = simd::exp_nonpositive(e - p.max[n]) / p.sum[n];
        Lanes dc_h{};
        for (int64_t j = 0; j < w; ++j) dc_h += dc[j] * h[j];
        const Lanes de = alpha * (dc_h - dc_c);  // 0 past the block's steps, as alpha
        if (p.kind == ScoreKind::kLinear) {
          dz = de;
        } else if (p.kind == ScoreKind::kScaledTanh) {
          d_scale += de * tanh_lanes;
          dz = de * *weights.score_scale * (1.f - tanh_lanes * tanh_lanes);
        } else {
          dz = de * (1.f - tanh_lanes * tanh_lanes);
        }
        if (positional) {
          for (int64_t b = 0; b < blk.count; ++b) s.d_score_bias[size_t(t0 + b)] += dz[b];
        } else {
          d_bias += dz;
        }
      }
      for (int64_t j = 0; j < w; ++j) {
        Lanes dh = alpha * dc[j];
        if (score) {
          dh += dz * weights.score_weight[j];
          dsw[j] += dz * h[j];
        }
        // leaky keeps the pre-activation's sign: h > 0 exactly where the pre-activation is.
        const Lanes dpre = h[j] > 0.f ? dh : kLeakySlope * dh;
        dw0[j] += dpre * blk.x0;
        dw1[j] += dpre * blk.x1;
        dsb[j] += dpre;
      }
    }
    for (int64_t j = 0; j < w; ++j) {
      g.step_weight[size_t(2 * j)] += double(lane_sum(dw0[j]));
      g.step_weight[size_t(2 * j + 1)] += double(lane_sum(dw1[j]));
      g.step_bias[size_t(j)] += double(lane_sum(dsb[j]));
    }
    if (!score) continue;
    for (int64_t j = 0; j < w; ++j) g.score_weight[size_t(j)] += double(lane_sum(dsw[j]));
    if (positional) {
      for (int64_t t = 0; t < len; ++t) {
        g.score_bias[size_t(t)] += double(s.d_score_bias[size_t(t)]);
        s.d_score_bias[size_t(t)] = 0.f;
      }
    } else {
      g.score_bias[0] += double(lane_sum(d_bias));
    }
    g.score_scale += double(lane_sum(d_scale));
  }
}

// One build per ISA (common/cpu_dispatch.h); the OpenMP loop stays in baseline code.
HEED_TARGET_AVX512 void forward_avx512(const Pass& p, int64_t a, int64_t b, Scratch& s) {
  forward_chunk(p, a, b, s);
}
HEED_TARGET_AVX2 void forward_avx2(const Pass& p, int64_t a, int64_t b, Scratch& s) {
  forward_chunk(p, a, b, s);
}
void forward_baseline(const Pass& p, int64_t a, int64_t b, Scratch& s) {
  forward_chunk(p, a, b, s);
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

using ForwardChunk = void (*)(const Pass&, int64_t, int64_t, Scratch&);
using BackwardChunk = void (*)(const Pass&, int64_t, int64_t, Scratch&, ChunkGrads&);
constexpr ForwardChunk kForward[] = {forward_avx512, forward_avx2, forward_baseline};
constexpr BackwardChunk kBackward[] = {backward_avx512, backward_avx2, backward_baseline};

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
    Scratch scratch(width_, 0);
    const auto [first, last] = chunk_range(c, count);
    body(pass, first, last, scratch);
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
    Scratch s(width_, bias_size);
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
