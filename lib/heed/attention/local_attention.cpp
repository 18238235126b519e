#include "heed/attention/local_attention.h"

#include <algorithm>
#include <utility>

namespace heed::attention {

using tensor::Shape;
using tensor::Tensor;

namespace {

// Σ a_j·b_j over n floats in eight independent partial sums, which the compiler turns into
// vector instructions (a single running sum would be one long dependency chain).
float dot_product(const float* a, const float* b, int64_t n) {
  float partial[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int l = 0; l < 8; ++l) partial[l] += a[j + l] * b[j + l];
  }
  float sum = 0.f;
  for (; j < n; ++j) sum += a[j] * b[j];
  for (const float p : partial) sum += p;
  return sum;
}

}  // namespace

OptionSpec window_option() {
  return OptionSpec{"window", true, 10, 1, 1000, "half width D of the local window [p - D, p + D]"};
}

AttentionFlops local_flops(const AttentionShape& shape, const AttentionConfig& config) {
  const int64_t span = std::min(2 * option_int(config.options, "window") + 1, shape.source_length);
  AttentionFlops flops;
  add_key_projection_flops(flops, shape, config.key_size, config.query_size);
  add_product_flops(flops, shape, span, config.query_size, config.key_size);
  return flops;
}

LocalAttention::LocalAttention(std::string name, const AttentionConfig& config,
                               layers::ParameterStore& store, const std::string& prefix)
    : ScoredAttention(std::move(name), config),
      weight_(store.add(prefix + "weight", Shape{config.query_size, config.key_size})),
      linear_(config.key_size, config.query_size, config.precision) {
  linear_.set_weights(weight_.value, nullptr);
  window_ = option_int(config.options, "window");
}

void LocalAttention::precompute(bool training) {
  projected_.resize(Shape{source_length(), batch(), config_.query_size});
  linear_.forward(keys_, projected_);  // [S, N, Q] = h_s·W_aᵀ
  if (training) {
    d_projected_.resize(projected_.shape());
    d_projected_.zero();
  }
}

void LocalAttention::score(const Tensor& query, int64_t, const std::vector<Span>& spans,
                           Tensor& scores, AttentionTape*) {
  const int64_t tq = query.dim(0), n = batch(), s = source_length(), q = config_.query_size;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t t = 0; t < tq; ++t) {
      const int64_t r = b * tq + t;
      const float* qr = query.data() + (t * n + b) * q;
      for (int64_t i = spans[size_t(r)].begin; i < spans[size_t(r)].end; ++i) {
        scores.data()[r * s + i] = dot_product(qr, projected_.data() + (i * n + b) * q, q);
      }
    }
  }
}

void LocalAttention::score_backward(AttentionTape& tape, const Tensor& d_scores, Tensor& d_query) {
  const int64_t tq = tape.query.dim(0), n = batch(), s = source_length(), q = config_.query_size;
  d_query.zero();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t t = 0; t < tq; ++t) {
      const int64_t r = b * tq + t;
      const float* qr = tape.query.data() + (t * n + b) * q;
      float* dq = d_query.data() + (t * n + b) * q;
      for (int64_t i = tape.spans[size_t(r)].begin; i < tape.spans[size_t(r)].end; ++i) {
        const float de = d_scores.data()[r * s + i];
        const float* p = projected_.data() + (i * n + b) * q;
        float* dp = d_projected_.data() + (i * n + b) * q;
        for (int64_t j = 0; j < q; ++j) {
          dq[j] += de * p[j];
          dp[j] += de * qr[j];
        }
      }
    }
  }
}

void LocalAttention::precompute_backward(Tensor& d_keys) {
  linear_.backward(keys_, d_projected_, &d_keys, weight_.grad, nullptr, /*accumulate_dx=*/true);
}

void LocalAttention::select_precomputed(const std::vector<int64_t>&, const KeySelection& keys) {
  select_key_side(projected_, keys, select_scratch_);
}

}  // namespace heed::attention
