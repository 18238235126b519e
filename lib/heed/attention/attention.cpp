#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "heed/attention/scored_attention.h"
#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::attention {

using onednn::MatMulOptions;
using onednn::MatrixRef;
using tensor::Shape;
using tensor::Tensor;

void gather_batch(const Tensor& src, const std::vector<int64_t>& rows, Tensor& dst) {
  const int64_t s = src.dim(0), n = src.dim(1), c = src.dim(2);
  const int64_t m = static_cast<int64_t>(rows.size());
  dst.resize(Shape{s, m, c});
  for (int64_t t = 0; t < s; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      std::memcpy(dst.data() + (t * m + i) * c, src.data() + (t * n + rows[size_t(i)]) * c,
                  sizeof(float) * size_t(c));
    }
  }
}

void regather_batch(Tensor& t, const std::vector<int64_t>& rows, Tensor& scratch) {
  gather_batch(t, rows, scratch);
  std::swap(t, scratch);
}

void require_equal_sizes(const std::string& name, const AttentionConfig& config) {
  if (config.query_size != config.key_size) {
    throw ConfigError("attention '" + name + "' needs the decoder state size (" +
                      std::to_string(config.query_size) + ") to equal the encoder output size (" +
                      std::to_string(config.key_size) + ")");
  }
}

ScoredAttention::ScoredAttention(std::string name, const AttentionConfig& config)
    : config_(config),
      name_(std::move(name)),
      context_mm_(config.precision),
      d_weights_mm_(config.precision),
      d_keys_mm_(config.precision) {}

void ScoredAttention::prepare(const Tensor& keys, const std::vector<int64_t>& lengths,
                              bool training) {
  HEED_CHECK(keys.rank() == 3 && keys.dim(2) == config_.key_size, "attention: keys shape");
  HEED_CHECK(static_cast<int64_t>(lengths.size()) == keys.dim(1), "attention: lengths");
  for (const int64_t len : lengths) {
    HEED_CHECK(len >= 1 && len <= keys.dim(0), "attention: lengths must be in [1, S]");
  }
  keys_ = keys.view(keys.shape());
  key_buffer_ = -1;
  lengths_ = lengths;
  training_ = training;
  if (training) {
    d_keys_.resize(keys.shape());
    d_keys_.zero();
  }
  precompute(training);
  keys_changed();
}

void ScoredAttention::forward(const Tensor& query, Tensor& context, Tensor* weights,
                              AttentionTape* tape) {
  const int64_t tq = query.dim(0), n = batch(), s = source_length();
  HEED_CHECK(query.dim(1) == n && query.dim(2) == config_.query_size, "attention: query shape");
  Tensor& a = tape ? tape->weights : scores_;
  a.resize(Shape{n, tq, s});
  score(query, a, tape);
  // Masked softmax over each sentence's own positions; padding gets exactly 0 (as −1e9 would).
  for (int64_t b = 0; b < n; ++b) {
    const int64_t len = lengths_[size_t(b)];
    for (int64_t q = 0; q < tq; ++q) {
      float* row = a.data() + (b * tq + q) * s;
      float mx = row[0];
      for (int64_t i = 1; i < len; ++i) mx = std::max(mx, row[i]);
      double z = 0;
      for (int64_t i = 0; i < len; ++i) {
        row[i] = std::exp(row[i] - mx);
        z += static_cast<double>(row[i]);
      }
      const float inv = static_cast<float>(1.0 / z);
      for (int64_t i = 0; i < len; ++i) row[i] *= inv;
      for (int64_t i = len; i < s; ++i) row[i] = 0.f;
    }
  }
  if (tape) tape->query = query.view(query.shape());
  context.resize(Shape{tq, n, config_.key_size});
  context_mm_.run(MatrixRef::of(a), MatrixRef::time_major(keys_), MatrixRef::time_major(context),
                  key_side_options());
  if (weights) {
    weights->resize(a.shape());
    std::memcpy(weights->data(), a.data(), a.bytes());
  }
}

void ScoredAttention::backward(AttentionTape& tape, const Tensor& d_context, Tensor& d_query) {
  HEED_CHECK(training_, "attention backward without a training prepare");
  const Tensor& a = tape.weights;
  const int64_t n = a.dim(0), tq = a.dim(1), s = a.dim(2);
  // d a = d c · Vᵀ; d V += aᵀ · d c.
  d_weights_.resize(a.shape());
  d_weights_mm_.run(MatrixRef::time_major(d_context), MatrixRef::time_major(keys_).transposed(),
                    MatrixRef::of(d_weights_));
  MatMulOptions accumulate;
  accumulate.accumulate = true;
  d_keys_mm_.run(MatrixRef::of(a).transposed(), MatrixRef::time_major(d_context),
                 MatrixRef::time_major(d_keys_), accumulate);
  // Softmax backward in place: d e = a ⊙ (d a − Σ a·d a); padding stays 0.
  for (int64_t r = 0; r < n * tq; ++r) {
    const float* w = a.data() + r * s;
    float* d = d_weights_.data() + r * s;
    double dot = 0;
    for (int64_t i = 0; i < s; ++i) dot += static_cast<double>(w[i]) * static_cast<double>(d[i]);
    const float sum = static_cast<float>(dot);
    for (int64_t i = 0; i < s; ++i) d[i] = w[i] * (d[i] - sum);
  }
  d_query.resize(tape.query.shape());
  score_backward(tape, d_weights_, d_query);
}

void ScoredAttention::finish_backward(Tensor& d_keys) {
  HEED_CHECK(training_, "attention backward without a training prepare");
  tensor::add(d_keys, d_keys_, d_keys);
  precompute_backward(d_keys);
}

void ScoredAttention::select(const std::vector<int64_t>& rows) {
  const int64_t n = batch();
  for (const int64_t r : rows) HEED_CHECK(r >= 0 && r < n, "attention: select row out of range");
  // The target buffer is not viewed by keys_ (which views the other one or the caller's keys),
  // so resize() reuses it.
  const int target = key_buffer_ == 0 ? 1 : 0;
  Tensor& buffer = key_buffers_[target];
  gather_batch(keys_, rows, buffer);
  keys_ = buffer.view(buffer.shape());
  key_buffer_ = target;
  selected_lengths_.resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) selected_lengths_[i] = lengths_[size_t(rows[i])];
  std::swap(lengths_, selected_lengths_);
  training_ = false;
  select_precomputed(rows);
  keys_changed();
}

ProductAttention::ProductAttention(std::string name, const AttentionConfig& config, float alpha)
    : ScoredAttention(std::move(name), config),
      alpha_(alpha),
      score_mm_(config.precision),
      d_query_mm_(config.precision),
      d_proj_mm_(config.precision) {}

void ProductAttention::score(const Tensor& query, Tensor& scores, AttentionTape*) {
  MatMulOptions options = key_side_options();
  options.alpha = alpha_;
  score_mm_.run(MatrixRef::time_major(query), MatrixRef::time_major(projected_keys()).transposed(),
                MatrixRef::of(scores), options);
}

void ProductAttention::score_backward(AttentionTape& tape, const Tensor& d_scores,
                                      Tensor& d_query) {
  MatMulOptions scaled;
  scaled.alpha = alpha_;
  d_query_mm_.run(MatrixRef::of(d_scores), MatrixRef::time_major(projected_keys()),
                  MatrixRef::time_major(d_query), scaled);
  MatMulOptions accumulate = scaled;
  accumulate.accumulate = true;
  d_proj_mm_.run(MatrixRef::of(d_scores).transposed(), MatrixRef::time_major(tape.query),
                 MatrixRef::time_major(projected_grad()), accumulate);
}

}  // namespace heed::attention
