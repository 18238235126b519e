// "multi-head" (Vaswani et al. 2017; Sockeye's mhdot): the query and the keys are projected
// into A = attention_dim columns split into H heads of d = A/H; each head attends with scaled
// dot products over its own columns, its weights from the shared normaliser; the heads' contexts
// are concatenated and projected by W_o, so the context has width A (not K).
//   q' = W_q q, k'_s = W_k h_s, v'_s = W_v h_s (no biases, like mhdot)
//   a_h,s = normalise_s(q'_h·k'_h,s / √d), c_h = Σ_s a_h,s v'_h,s, c = W_o [c_1; …; c_H]
// (--scale-scores 0, issue 32: without the 1/√d, for comparing scaled and unscaled projected
// multiplicative attention)
// k' and v' are computed once per sentence in prepare(); a step costs the query projection, one
// batched score and context product over all (sentence, head) pairs, and W_o. The weights
// reported for alignment are the mean of the heads' weights.
#include <cmath>
#include <string>

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/onednn/linear.h"

namespace heed::attention {
namespace {

using onednn::MatMulOptions;
using onednn::MatrixRef;
using tensor::Shape;
using tensor::Tensor;

class MultiHeadAttention : public Attention {
 public:
  MultiHeadAttention(const AttentionConfig& config, layers::ParameterStore& store,
                     const std::string& prefix)
      : config_(config),
        dim_(resolved_attention_dim(config)),
        heads_(option_int(config.options, "heads")),
        head_dim_(dim_ / heads_),
        scale_(option_int(config.options, "scale-scores") != 0 ? 1.f / std::sqrt(float(head_dim_))
                                                               : 1.f),
        w_query_(store.add(prefix + "w_query", Shape{dim_, config.query_size})),
        w_key_(store.add(prefix + "w_key", Shape{dim_, config.key_size})),
        w_value_(store.add(prefix + "w_value", Shape{dim_, config.key_size})),
        w_out_(store.add(prefix + "w_out", Shape{dim_, dim_})),
        query_linear_(config.query_size, dim_, config.precision),
        key_linear_(config.key_size, dim_, config.precision),
        value_linear_(config.key_size, dim_, config.precision),
        out_linear_(dim_, dim_, config.precision),
        // The per-head score and context products in f32 at every precision, as in
        // ScoredAttention: stepped, bf16 made them slower (docs/benchmarks.md).
        score_mm_(onednn::Precision::kF32),
        context_mm_(onednn::Precision::kF32),
        d_weights_mm_(onednn::Precision::kF32),
        d_values_mm_(onednn::Precision::kF32),
        d_query_mm_(onednn::Precision::kF32),
        d_keys_mm_(onednn::Precision::kF32) {
    query_linear_.set_weights(w_query_.value, nullptr);
    key_linear_.set_weights(w_key_.value, nullptr);
    value_linear_.set_weights(w_value_.value, nullptr);
    out_linear_.set_weights(w_out_.value, nullptr);
  }

  const std::string& name() const override { return name_; }
  int64_t context_size() const override { return dim_; }

  void prepare(const Tensor& keys, const std::vector<int64_t>& lengths, bool training) override {
    check_keys(keys, lengths, config_.key_size);
    keys_ = keys.view(keys.shape());
    lengths_ = lengths;
    key_rows_.reset(lengths.size());
    training_ = training;
    const Shape projected{keys.dim(0), keys.dim(1), dim_};
    keys_p_.resize(projected);
    values_p_.resize(projected);
    key_linear_.forward(keys, keys_p_);
    value_linear_.forward(keys, values_p_);
    if (training) {
      d_keys_p_.resize(projected);
      d_keys_p_.zero();
      d_values_p_.resize(projected);
      d_values_p_.zero();
    }
    keys_changed();
  }

  void forward(const Tensor& query, int64_t step, Tensor& context, Tensor* weights,
               AttentionTape* tape) override {
    const int64_t tq = query.dim(0), n = keys_p_.dim(1), s = keys_p_.dim(0);
    HEED_CHECK(query.dim(1) == n && query.dim(2) == config_.query_size, "attention: query shape");
    Tensor& q = tape ? tape->slot(0) : query_p_;
    Tensor& heads = tape ? tape->slot(1) : heads_context_;
    Tensor& a = tape ? tape->weights : weights_;
    if (tape) {
      tape->step = step;
      tape->query = query.view(query.shape());
    }
    q.resize(Shape{tq, n, dim_});
    query_linear_.forward(query, q);
    // Scores of every (sentence, head) pair in one product: [N·H, Tq, S], row (b·H + h)·Tq + t.
    a.resize(Shape{n * heads_, tq, s});
    MatMulOptions scaled = key_side_options();
    scaled.alpha = scale_;
    score_mm_.run(per_head(q), per_head(keys_p_).transposed(), MatrixRef::of(a), scaled);
    spans_.resize(size_t(n * heads_ * tq));
    for (int64_t r = 0; r < n * heads_ * tq; ++r) {
      spans_[size_t(r)] = Span{0, lengths_[size_t(r / (heads_ * tq))]};
    }
    normalize_rows(config_.normalizer, a.data(), n * heads_ * tq, s, spans_.data());
    heads.resize(Shape{tq, n, dim_});
    context_mm_.run(MatrixRef::of(a), per_head(values_p_), per_head(heads), key_side_options());
    context.resize(Shape{tq, n, dim_});
    out_linear_.forward(heads, context);
    if (weights) mean_of_heads(a, *weights);
  }

  void backward(AttentionTape& tape, const Tensor& d_context, Tensor& d_query) override {
    HEED_CHECK(training_, "attention backward without a training prepare");
    const Tensor& q = tape.slot(0);
    const Tensor& heads = tape.slot(1);
    const Tensor& a = tape.weights;
    const int64_t tq = q.dim(0), n = q.dim(1), s = a.dim(2);
    d_heads_.resize(heads.shape());
    out_linear_.backward(heads, d_context, &d_heads_, w_out_.grad, nullptr);
    // Per (sentence, head): d a = d c_h · v'ᵀ; d v' += aᵀ · d c_h.
    d_weights_.resize(a.shape());
    d_weights_mm_.run(per_head(d_heads_), per_head(values_p_).transposed(),
                      MatrixRef::of(d_weights_));
    MatMulOptions accumulate;
    accumulate.accumulate = true;
    d_values_mm_.run(MatrixRef::of(a).transposed(), per_head(d_heads_), per_head(d_values_p_),
                     accumulate);
    // A loss on the reported weights (the mean of the heads) reaches each head divided by H.
    if (tape.d_weights) {
      const float share = 1.f / float(heads_);
      for (int64_t b = 0; b < n; ++b) {
        const float* g = tape.d_weights->data() + b * tq * s;
        for (int64_t h = 0; h < heads_; ++h) {
          float* d = d_weights_.data() + (b * heads_ + h) * tq * s;
          for (int64_t i = 0; i < tq * s; ++i) d[i] += share * g[i];
        }
      }
    }
    normalize_rows_backward(config_.normalizer, a.data(), d_weights_.data(), n * heads_ * tq, s);
    // e = α q'·k': d q' = α d e · k'; d k' += α d eᵀ · q'.
    MatMulOptions scaled;
    scaled.alpha = scale_;
    d_query_p_.resize(q.shape());
    d_query_mm_.run(MatrixRef::of(d_weights_), per_head(keys_p_), per_head(d_query_p_), scaled);
    scaled.accumulate = true;
    d_keys_mm_.run(MatrixRef::of(d_weights_).transposed(), per_head(q), per_head(d_keys_p_),
                   scaled);
    d_query.resize(tape.query.shape());
    query_linear_.backward(tape.query, d_query_p_, &d_query, w_query_.grad, nullptr);
  }

  void finish_backward(Tensor& d_keys) override {
    HEED_CHECK(training_, "attention backward without a training prepare");
    key_linear_.backward(keys_, d_keys_p_, &d_keys, w_key_.grad, nullptr, /*accumulate_dx=*/true);
    value_linear_.backward(keys_, d_values_p_, &d_keys, w_value_.grad, nullptr,
                           /*accumulate_dx=*/true);
  }

  void select(const std::vector<int64_t>& rows) override {
    select_lengths(lengths_, rows, selected_lengths_);
    const KeySelection& keys = key_rows_.select(rows, /*owned=*/true, /*shared=*/false);
    select_key_side(keys_p_, keys, select_scratch_);
    select_key_side(values_p_, keys, select_scratch_);
    training_ = false;
    keys_ = Tensor();  // only the projections are needed from here on
    if (keys.moved) keys_changed();
  }

  void weights_changed() override {
    query_linear_.weights_changed();
    key_linear_.weights_changed();
    value_linear_.weights_changed();
    out_linear_.weights_changed();
  }

 private:
  // [T, N, A] seen as N·H matrices [T, d]: head h of sentence b is columns h·d … of row b,
  // which is matrix b·H + h at offset (b·H + h)·d.
  MatrixRef per_head(const Tensor& t) const {
    MatrixRef m = MatrixRef::time_major(t);
    m.batch = t.dim(1) * heads_;
    m.cols = head_dim_;
    m.batch_stride = head_dim_;
    return m;
  }

  // Outside training k' and v' stay the same over the steps of a batch: packed once.
  MatMulOptions key_side_options() const {
    MatMulOptions options;
    options.constant_b = !training_;
    return options;
  }

  void keys_changed() {
    score_mm_.weights_changed();
    context_mm_.weights_changed();
  }

  // weights [N, Tq, S] = mean over h of a [N·H, Tq, S].
  void mean_of_heads(const Tensor& a, Tensor& weights) const {
    const int64_t n = a.dim(0) / heads_, tq = a.dim(1), s = a.dim(2), row = tq * s;
    weights.resize(Shape{n, tq, s});
    weights.zero();
    const float inverse = 1.f / float(heads_);
    for (int64_t b = 0; b < n; ++b) {
      float* w = weights.data() + b * row;
      for (int64_t h = 0; h < heads_; ++h) {
        const float* head = a.data() + (b * heads_ + h) * row;
        for (int64_t i = 0; i < row; ++i) w[i] += head[i] * inverse;
      }
    }
  }

  std::string name_ = "multi-head";
  AttentionConfig config_;
  int64_t dim_, heads_, head_dim_;
  float scale_;
  layers::Parameter& w_query_;
  layers::Parameter& w_key_;
  layers::Parameter& w_value_;
  layers::Parameter& w_out_;
  onednn::Linear query_linear_, key_linear_, value_linear_, out_linear_;
  onednn::MatMul score_mm_, context_mm_, d_weights_mm_, d_values_mm_, d_query_mm_, d_keys_mm_;
  Tensor keys_;  // view of the caller's keys (training: the projections' backward needs them)
  std::vector<int64_t> lengths_, selected_lengths_;
  bool training_ = false;
  std::vector<Span> spans_;
  Tensor keys_p_, values_p_, d_keys_p_, d_values_p_, select_scratch_;
  KeySideRows key_rows_;
  Tensor query_p_, heads_context_, weights_;  // inference scratch (training: in the tape)
  Tensor d_heads_, d_weights_, d_query_p_;
};

}  // namespace

void register_multi_head() {
  AttentionInfo info;
  info.name = "multi-head";
  info.summary =
      "H heads of scaled q'·k' over projections, concatenated and projected (Vaswani; "
      "w_query [A, Q], w_key [A, K], w_value [A, K], w_out [A, A])";
  info.has_parameters = true;
  info.options = {OptionSpec{"heads", true, 4, 1, 64,
                             "multi-head: number of heads; must divide --attention-dim"},
                  OptionSpec{"scale-scores", true, 1, 0, 1,
                             "1: each head's scores divided by sqrt(attention-dim / heads) "
                             "(Vaswani); 0: unscaled"}};
  info.context_size = [](const AttentionConfig& config) { return resolved_attention_dim(config); };
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    const int64_t a = resolved_attention_dim(config);
    AttentionFlops flops;
    add_key_projection_flops(flops, shape, config.key_size, a);      // W_k h_s
    add_key_projection_flops(flops, shape, config.key_size, a);      // W_v h_s
    add_query_projection_flops(flops, shape, config.query_size, a);  // W_q q
    add_query_projection_flops(flops, shape, a, a);                  // W_o [c_1; …; c_H]
    // The H heads' scores and contexts over d = A/H columns each: A columns in all.
    add_product_flops(flops, shape, shape.source_length, a, a);
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) -> std::unique_ptr<Attention> {
    const int64_t dim = resolved_attention_dim(config), heads = option_int(config.options, "heads");
    if (dim % heads != 0) {
      throw ConfigError("attention 'multi-head': --heads " + std::to_string(heads) +
                        " must divide --attention-dim " + std::to_string(dim));
    }
    return std::make_unique<MultiHeadAttention>(config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
