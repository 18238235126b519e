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

namespace {

// t's rows rows[i] moved to place i within t's buffer, t [S, N, C] → [S, M, C]: writing
// (s, i) at s·M + i only ever overwrites what was read already, since every read (s', j) at
// s'·N + j with j = rows[i'] >= i' and M <= N comes at or after the write in that order.
void gather_in_place(Tensor& t, const std::vector<int64_t>& rows) {
  const int64_t s = t.dim(0), n = t.dim(1), c = t.dim(2);
  const int64_t m = static_cast<int64_t>(rows.size());
  float* p = t.data();
  for (int64_t step = 0; step < s; ++step) {
    for (int64_t i = 0; i < m; ++i) {
      const int64_t from = (step * n + rows[size_t(i)]) * c, to = (step * m + i) * c;
      if (from != to) std::memmove(p + to, p + from, sizeof(float) * size_t(c));
    }
  }
  t.resize(Shape{s, m, c});  // smaller: the same buffer, its first S·M·C floats
}

}  // namespace

void KeySideRows::reset(size_t rows) {
  prepared_rows_ = rows;
  origins_.resize(rows);
  for (size_t i = 0; i < rows; ++i) origins_[i] = int64_t(i);
  slot_origins_ = origins_;
  row_slots_ = origins_;
  row_places_.assign(rows, 0);
  largest_group_ = 1;
}

const KeySelection& KeySideRows::select(const std::vector<int64_t>& rows, bool owned, bool shared) {
  new_origins_.resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) new_origins_[i] = origins_[size_t(rows[i])];
  new_slot_origins_.clear();
  row_slots_.resize(rows.size());
  row_places_.resize(rows.size());
  largest_group_ = 1;
  int64_t place = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!shared || i == 0 || new_origins_[i] != new_origins_[i - 1]) {
      new_slot_origins_.push_back(new_origins_[i]);
      place = 0;
    }
    row_slots_[i] = int64_t(new_slot_origins_.size()) - 1;
    row_places_[i] = place;
    largest_group_ = std::max(largest_group_, ++place);
  }
  std::swap(origins_, new_origins_);
  plan_.moved = new_slot_origins_ != slot_origins_;
  if (!plan_.moved) return plan_;
  last_slot_of_origin_.assign(prepared_rows_, -1);
  for (size_t j = 0; j < slot_origins_.size(); ++j)
    last_slot_of_origin_[size_t(slot_origins_[j])] = int64_t(j);
  plan_.rows.resize(new_slot_origins_.size());
  plan_.in_place = owned;
  for (size_t j = 0; j < new_slot_origins_.size(); ++j) {
    plan_.rows[j] = last_slot_of_origin_[size_t(new_slot_origins_[j])];
    plan_.in_place = plan_.in_place && plan_.rows[j] >= int64_t(j);
  }
  std::swap(slot_origins_, new_slot_origins_);
  return plan_;
}

void select_key_side(Tensor& t, const KeySelection& selection, Tensor& scratch) {
  if (!selection.moved) return;
  if (selection.in_place) {
    gather_in_place(t, selection.rows);
  } else {
    regather_batch(t, selection.rows, scratch);
  }
}

void check_keys(const Tensor& keys, const std::vector<int64_t>& lengths, int64_t key_size) {
  HEED_CHECK(keys.rank() == 3 && keys.dim(2) == key_size, "attention: keys shape");
  HEED_CHECK(static_cast<int64_t>(lengths.size()) == keys.dim(1), "attention: lengths");
  for (const int64_t len : lengths) {
    HEED_CHECK(len >= 1 && len <= keys.dim(0), "attention: lengths must be in [1, S]");
  }
}

void select_lengths(std::vector<int64_t>& lengths, const std::vector<int64_t>& rows,
                    std::vector<int64_t>& scratch) {
  const int64_t n = static_cast<int64_t>(lengths.size());
  scratch.resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    HEED_CHECK(rows[i] >= 0 && rows[i] < n, "attention: select row out of range");
    scratch[i] = lengths[size_t(rows[i])];
  }
  std::swap(lengths, scratch);
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
      shares_key_side_(attention_info(name_).traits.shares_key_side),
      // The score and context products run in f32 at every precision: stepped (input feeding,
      // decoding) they are N products of one query row each, where the bf16 kernel and its
      // conversions took 2–3× the f32 time (docs/benchmarks.md, "bf16 attention products").
      context_mm_(onednn::Precision::kF32),
      d_weights_mm_(onednn::Precision::kF32),
      d_keys_mm_(onednn::Precision::kF32) {}

void ScoredAttention::prepare(const Tensor& keys, const std::vector<int64_t>& lengths,
                              bool training) {
  check_keys(keys, lengths, config_.key_size);
  keys_ = keys.view(keys.shape());
  key_buffer_ = -1;
  key_rows_.reset(lengths.size());
  grouped_ = false;
  lengths_ = lengths;
  training_ = training;
  if (training) {
    d_keys_.resize(keys.shape());
    d_keys_.zero();
    kept_weights_.reset(keys.dim(0));
    kept_d_context_.reset(config_.key_size);
  }
  precompute(training);
  keys_changed();
}

void ScoredAttention::forward(const Tensor& query, int64_t step, Tensor& context, Tensor* weights,
                              AttentionTape* tape) {
  const int64_t tq = query.dim(0), n = batch(), s = source_length();
  HEED_CHECK(query.dim(1) == n && query.dim(2) == config_.query_size, "attention: query shape");
  HEED_CHECK(!grouped_ || tq == 1, "attention: a shared key side takes one query per row");
  AttentionTape& t = tape ? *tape : inference_;
  t.step = step;
  Tensor& a = tape ? tape->weights : scores_;
  a.resize(Shape{n, tq, s});
  // Each row's span: the sentence, or the window around the mechanism's centre.
  t.spans.resize(size_t(n * tq));
  if (window_ >= 0) {
    t.centres.resize(Shape{n, tq});
    centres(query, step, t.centres.data(), tape);
  }
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t q = 0; q < tq; ++q) {
      const int64_t r = b * tq + q, len = lengths_[size_t(b)];
      t.spans[size_t(r)] =
          window_ >= 0 ? window_span(double(t.centres.data()[r]), window_, len) : Span{0, len};
    }
  }
  score(query, step, t.spans, a, tape);
  normalize_rows(config_.normalizer, a.data(), n * tq, s, t.spans.data());
  if (gaussian_sigma_ > 0.f) {
    t.normalized.resize(a.shape());
    gaussian_weighting(a.data(), t.normalized.data(), n * tq, s, t.spans.data(), t.centres.data(),
                       gaussian_sigma_);
  }
  weights_formed(a, tape);
  if (tape) tape->query = query.view(query.shape());
  context.resize(Shape{tq, n, config_.key_size});
  if (window_ >= 0) {
    // Only the window's keys: the per-step cost does not grow with the source length.
    windowed_context(a, t.spans, context);
  } else if (grouped_) {
    grouped_product(context_mm_, a, MatrixRef::time_major(keys_), context, key_side_options());
  } else {
    context_mm_.run(MatrixRef::of(a), MatrixRef::time_major(keys_), MatrixRef::time_major(context),
                    key_side_options());
  }
  if (weights) {
    weights->resize(a.shape());
    std::memcpy(weights->data(), a.data(), a.bytes());
  }
}

void ScoredAttention::windowed_context(const Tensor& a, const std::vector<Span>& spans,
                                       Tensor& context) const {
  const int64_t n = a.dim(0), tq = a.dim(1), s = a.dim(2), k = config_.key_size;
  context.zero();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t q = 0; q < tq; ++q) {
      const int64_t r = b * tq + q;
      const float* w = a.data() + r * s;
      float* c = context.data() + (q * n + b) * k;
      for (int64_t i = spans[size_t(r)].begin; i < spans[size_t(r)].end; ++i) {
        const float* h = keys_.data() + (i * n + b) * k;
        for (int64_t j = 0; j < k; ++j) c[j] += w[i] * h[j];
      }
    }
  }
}

void ScoredAttention::windowed_context_backward(const Tensor& a, const std::vector<Span>& spans,
                                                const Tensor& d_context) {
  const int64_t n = a.dim(0), tq = a.dim(1), s = a.dim(2), k = config_.key_size;
  d_weights_.zero();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t q = 0; q < tq; ++q) {
      const int64_t r = b * tq + q;
      const float* w = a.data() + r * s;
      const float* dc = d_context.data() + (q * n + b) * k;
      float* dw = d_weights_.data() + r * s;
      for (int64_t i = spans[size_t(r)].begin; i < spans[size_t(r)].end; ++i) {
        const float* h = keys_.data() + (i * n + b) * k;
        float* dh = d_keys_.data() + (i * n + b) * k;
        float dot = 0.f;
        for (int64_t j = 0; j < k; ++j) {
          dot += dc[j] * h[j];
          dh[j] += w[i] * dc[j];
        }
        dw[i] = dot;
      }
    }
  }
}

void ScoredAttention::backward(AttentionTape& tape, const Tensor& d_context, Tensor& d_query) {
  HEED_CHECK(training_, "attention backward without a training prepare");
  const Tensor& a = tape.weights;
  const int64_t n = a.dim(0), tq = a.dim(1), s = a.dim(2);
  d_weights_.resize(a.shape());
  if (window_ >= 0) {
    windowed_context_backward(a, tape.spans, d_context);
  } else {
    // d a = d c · Vᵀ; d V += aᵀ · d c.
    d_weights_mm_.run(MatrixRef::time_major(d_context), MatrixRef::time_major(keys_).transposed(),
                      MatrixRef::of(d_weights_));
    if (tq == 1) {  // a step: kept for finish_backward
      kept_weights_.append(a.raw(), n);
      kept_d_context_.append(d_context.raw(), n);
    } else {
      MatMulOptions accumulate;
      accumulate.accumulate = true;
      d_keys_mm_.run(MatrixRef::of(a).transposed(), MatrixRef::time_major(d_context),
                     MatrixRef::time_major(d_keys_), accumulate);
    }
  }
  if (tape.d_weights) tensor::axpy(1.f, *tape.d_weights, d_weights_);
  weights_backward(tape, d_weights_);
  d_centres_.assign(size_t(n * tq), 0.f);
  const Tensor* normalized = &a;
  if (gaussian_sigma_ > 0.f) {
    gaussian_weighting_backward(d_weights_.data(), tape.normalized.data(), n * tq, s,
                                tape.spans.data(), tape.centres.data(), gaussian_sigma_,
                                d_centres_.data());
    normalized = &tape.normalized;
  }
  normalize_rows_backward(config_.normalizer, normalized->data(), d_weights_.data(), n * tq, s);
  d_query.resize(tape.query.shape());
  score_backward(tape, d_weights_, d_query);
  if (window_ >= 0) centres_backward(tape, d_centres_.data(), d_query);
}

void ScoredAttention::finish_backward(Tensor& d_keys) {
  HEED_CHECK(training_, "attention backward without a training prepare");
  if (kept_weights_.rows() > 0) {
    // d V [S, N, K] += Σ_steps aᵀ·d c: per sentence, [S, steps]·[steps, K].
    const int64_t n = keys_.dim(1), steps = kept_weights_.rows() / n;
    const Tensor a = kept_weights_.view().view(Shape{steps, n, keys_.dim(0)});
    const Tensor d_context = kept_d_context_.view().view(Shape{steps, n, config_.key_size});
    MatMulOptions accumulate;
    accumulate.accumulate = true;
    d_keys_mm_.run(MatrixRef::time_major(a).transposed(), MatrixRef::time_major(d_context),
                   MatrixRef::time_major(d_keys_), accumulate);
  }
  kept_weights_.clear();
  kept_d_context_.clear();
  tensor::add(d_keys, d_keys_, d_keys);
  precompute_backward(d_keys);
}

void ScoredAttention::select(const std::vector<int64_t>& rows) {
  select_lengths(lengths_, rows, selected_lengths_);
  // The caller's keys are never written: in place only in a buffer of this object's.
  const bool shared = shares_key_side();
  HEED_CHECK(!shared || window_ < 0, "attention: a windowed mechanism cannot share its key side");
  const KeySelection& keys = key_rows_.select(rows, /*owned=*/key_buffer_ >= 0, shared);
  if (keys.moved && keys.in_place) {
    Tensor& buffer = key_buffers_[key_buffer_];
    keys_ = Tensor();  // the buffer's only owner again, so that it shrinks where it is
    gather_in_place(buffer, keys.rows);
    keys_ = buffer.view(buffer.shape());
  } else if (keys.moved) {
    // The other buffer is not viewed by keys_ (which views this one or the caller's keys), so
    // resize() reuses it.
    const int target = key_buffer_ == 0 ? 1 : 0;
    Tensor& buffer = key_buffers_[target];
    gather_batch(keys_, keys.rows, buffer);
    keys_ = buffer.view(buffer.shape());
    key_buffer_ = target;
  }
  training_ = false;
  grouped_ = shared;
  select_precomputed(rows, keys);
  if (keys.moved) keys_changed();
}

void ScoredAttention::grouped_product(onednn::MatMul& mm, const Tensor& x, const MatrixRef& b,
                                      Tensor& out, const MatMulOptions& options) {
  const std::vector<int64_t>& slots = key_rows_.row_slots();
  const std::vector<int64_t>& places = key_rows_.row_places();
  const int64_t rows = batch(), j_count = keys_.dim(1), g = key_rows_.largest_group();
  const int64_t width = x.numel() / std::max<int64_t>(rows, 1), c = b.cols;
  HEED_CHECK(x.numel() == rows * width && b.batch == j_count && b.rows == width,
             "attention: grouped product shapes");
  padded_in_.resize(Shape{j_count, g, width});
  padded_in_.zero();
  padded_out_.resize(Shape{j_count, g, c});
  // Row i is row places[i] of its slot's matrix.
  const auto padded = [&](int64_t i) { return slots[size_t(i)] * g + places[size_t(i)]; };
  for (int64_t i = 0; i < rows; ++i) {
    std::memcpy(padded_in_.data() + padded(i) * width, x.data() + i * width,
                sizeof(float) * size_t(width));
  }
  mm.run(MatrixRef::of(padded_in_), b, MatrixRef::of(padded_out_), options);
  for (int64_t i = 0; i < rows; ++i) {
    std::memcpy(out.data() + i * c, padded_out_.data() + padded(i) * c, sizeof(float) * size_t(c));
  }
}

ProductAttention::ProductAttention(std::string name, const AttentionConfig& config, float alpha)
    : ScoredAttention(std::move(name), config),
      alpha_(alpha),
      score_mm_(onednn::Precision::kF32),  // f32 at every precision, as context_mm_
      d_query_mm_(onednn::Precision::kF32),
      d_proj_mm_(onednn::Precision::kF32) {}

void ProductAttention::score(const Tensor& query, int64_t, const std::vector<Span>&, Tensor& scores,
                             AttentionTape*) {
  MatMulOptions options = key_side_options();
  options.alpha = alpha_;
  if (grouped()) {
    HEED_CHECK(query.dim(0) == 1, "attention: a shared key side takes one query per row");
    grouped_product(score_mm_, query, MatrixRef::time_major(projected_keys()).transposed(), scores,
                    options);
    return;
  }
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

void add_product_flops(AttentionFlops& flops, const AttentionShape& shape, int64_t span,
                       int64_t width, int64_t key_size) {
  const double product = 2.0 * double(shape.batch * shape.queries * span);
  flops.forward += product * double(width + key_size);
  flops.backward += 2 * product * double(width + key_size);
}

void add_key_projection_flops(AttentionFlops& flops, const AttentionShape& shape, int64_t in,
                              int64_t out) {
  const double product = 2.0 * double(shape.batch * shape.source_length * in * out);
  flops.precompute += product;
  flops.precompute_backward += 2 * product;
}

void add_query_projection_flops(AttentionFlops& flops, const AttentionShape& shape, int64_t in,
                                int64_t out) {
  const double product = 2.0 * double(shape.batch * shape.queries * in * out);
  flops.forward += product;
  flops.backward += 2 * product;
}

}  // namespace heed::attention
