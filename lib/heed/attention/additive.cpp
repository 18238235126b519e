// "additive" (Bahdanau et al. 2015; alias "mlp"): e_s = vᵀ tanh(W q + U h_s + b), a one-hidden-
// layer network of width A. U h_s + b is computed once per sentence in prepare(); each step
// still costs a tanh over S×A per query, which is what makes it the slowest mechanism. The
// scores come from the fused kernel (additive_scores.h), which never stores the S×A tanh
// values of a query: the tape holds W q, and the backward recomputes the tanh.
// The class also serves "normed-additive" (normed_additive.cpp), whose v is g·v/‖v‖: that
// vector is formed once per sentence batch in prepare() and its gradient mapped back to v and g
// in finish_backward(), so a step costs what "additive" costs.
#include "heed/attention/additive.h"

#include <algorithm>
#include <cmath>

#include "heed/attention/additive_scores.h"
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/check.h"
#include "heed/onednn/linear.h"
#include "heed/tensor/row_buffer.h"

namespace heed::attention {
namespace {

using tensor::Shape;
using tensor::Tensor;

class AdditiveAttention : public ScoredAttention {
 public:
  AdditiveAttention(const std::string& name, bool normed, const AttentionConfig& config,
                    layers::ParameterStore& store, const std::string& prefix)
      : ScoredAttention(name, config),
        dim_(resolved_attention_dim(config)),
        w_query_(store.add(prefix + "w_query", Shape{dim_, config.query_size})),
        w_key_(store.add(prefix + "w_key", Shape{dim_, config.key_size})),
        bias_(store.add(prefix + "bias", Shape{dim_})),
        v_(store.add(prefix + "v", Shape{dim_})),
        scale_(normed ? &store.add(prefix + "scale", Shape{1}) : nullptr),
        query_linear_(config.query_size, dim_, config.precision),
        key_linear_(config.key_size, dim_, config.precision) {
    if (scale_) {
      // TF's BahdanauAttention(normalize=True) starts at g = √(1/A), b = 0.
      scale_->initial_value = float(std::sqrt(1.0 / double(dim_)));
      bias_.initial_value = 0.f;
    }
    query_linear_.set_weights(w_query_.value, nullptr);
    key_linear_.set_weights(w_key_.value, &bias_.value);
  }

  void weights_changed() override {
    query_linear_.weights_changed();
    key_linear_.weights_changed();
  }

 protected:
  void precompute(bool training) override {
    projected_.resize(Shape{source_length(), batch(), dim_});
    key_linear_.forward(keys_, projected_);  // U h_s + b
    if (training) {
      d_projected_.resize(projected_.shape());
      d_projected_.zero();
      kept_query_.reset(query_linear_.in_features());
      kept_d_wq_.reset(dim_);
    }
    if (scale_) {
      norm_v_ = v_norm();
      const float g = scale_->value.data()[0];
      scored_v_.resize(Shape{dim_});
      for (int64_t k = 0; k < dim_; ++k) {
        scored_v_.data()[k] = float(double(g) * double(v_.value.data()[k]) / norm_v_);
      }
      if (training) {
        d_scored_v_.resize(Shape{dim_});
        d_scored_v_.zero();
      }
    }
  }

  void score(const Tensor& query, int64_t, const std::vector<Span>& spans, Tensor& scores,
             AttentionTape* tape) override {
    // W q is all the backward needs besides U h + b: it recomputes each tanh.
    Tensor& wq = tape ? tape->slot(0) : wq_;
    wq.resize(Shape{query.dim(0), batch(), dim_});
    query_linear_.forward(query, wq);
    AdditiveScoreShape shape = score_shape(wq);
    if (grouped()) {  // a sentence's hypotheses read its one U h + b
      shape.key_rows = key_slot_rows().data();
      shape.key_batch = projected_.dim(1);
    }
    additive_scores(shape, wq.data(), projected_.data(), scored_v(), spans, scores.data());
  }

  void score_backward(AttentionTape& tape, const Tensor& d_scores, Tensor& d_query) override {
    const Tensor& wq = tape.slot(0);
    d_wq_.resize(wq.shape());
    additive_scores_backward(score_shape(wq), wq.data(), projected_.data(), scored_v(), tape.spans,
                             d_scores.data(), d_wq_.data(), d_projected_.data(),
                             scale_ ? d_scored_v_.data() : v_.grad.data());
    query_linear_.backward_data(d_wq_, d_query);
    // The query projection's weight gradient waits for finish_backward, one product over every
    // step's rows: a decoder step's own (64 rows) ran at 35-50 % of the bf16 matmul peak.
    HEED_CHECK(tape.query.dtype() == tensor::DType::kF32 && d_wq_.dtype() == tensor::DType::kF32,
               "additive attention: f32 queries and gradients expected");
    const int64_t rows = d_wq_.numel() / dim_;
    kept_query_.append(tape.query.raw(), rows);
    kept_d_wq_.append(d_wq_.raw(), rows);
  }

  void precompute_backward(Tensor& d_keys) override {
    if (scale_) {
      // u = g·v/‖v‖: dg = du·v/‖v‖, dv = (g/‖v‖)·(du − v̂ (v̂·du)) with v̂ = v/‖v‖.
      const float* v = v_.value.data();
      const float* du = d_scored_v_.data();
      double v_dot_du = 0;
      for (int64_t k = 0; k < dim_; ++k) v_dot_du += double(v[k]) * double(du[k]);
      const double g = scale_->value.data()[0];
      scale_->grad.data()[0] += float(v_dot_du / norm_v_);
      for (int64_t k = 0; k < dim_; ++k) {
        v_.grad.data()[k] +=
            float(g / norm_v_ * (double(du[k]) - double(v[k]) * v_dot_du / (norm_v_ * norm_v_)));
      }
    }
    key_linear_.backward(keys_, d_projected_, &d_keys, w_key_.grad, &bias_.grad,
                         /*accumulate_dx=*/true);
    if (kept_d_wq_.rows() > 0) {
      query_linear_.backward_weights(kept_query_.view(), kept_d_wq_.view(), w_query_.grad, nullptr);
    }
    kept_query_.clear();
    kept_d_wq_.clear();
  }

  void select_precomputed(const std::vector<int64_t>&, const KeySelection& keys) override {
    select_key_side(projected_, keys, select_scratch_);
  }

 private:
  const float* scored_v() const { return scale_ ? scored_v_.data() : v_.value.data(); }
  AdditiveScoreShape score_shape(const Tensor& wq) const {
    return {wq.dim(0), batch(), source_length(), dim_};
  }

  // ‖v‖, kept away from 0 (a v of zeros would otherwise give NaN scores).
  double v_norm() const {
    double sum = 0;
    for (int64_t k = 0; k < dim_; ++k)
      sum += double(v_.value.data()[k]) * double(v_.value.data()[k]);
    return std::max(std::sqrt(sum), kMinNorm);
  }
  static constexpr double kMinNorm = 1e-13;

  int64_t dim_;
  layers::Parameter& w_query_;
  layers::Parameter& w_key_;
  layers::Parameter& bias_;
  layers::Parameter& v_;
  layers::Parameter* scale_;  // normed-additive only
  onednn::Linear query_linear_;
  onednn::Linear key_linear_;
  Tensor projected_, d_projected_, wq_, d_wq_, select_scratch_;
  Tensor scored_v_, d_scored_v_;  // normed-additive: g·v/‖v‖ and its gradient
  // Every backward step's queries and W q gradients, for the weight gradient's one product.
  tensor::RowBuffer kept_query_, kept_d_wq_;
  double norm_v_ = 1;
};

}  // namespace

std::unique_ptr<Attention> make_additive_attention(const std::string& name, bool normed,
                                                   const AttentionConfig& config,
                                                   layers::ParameterStore& store,
                                                   const std::string& prefix) {
  return std::make_unique<AdditiveAttention>(name, normed, config, store, prefix);
}

AttentionFlops additive_flops(const AttentionShape& shape, const AttentionConfig& config) {
  const int64_t a = resolved_attention_dim(config);
  AttentionFlops flops;
  add_key_projection_flops(flops, shape, config.key_size, a);
  add_query_projection_flops(flops, shape, config.query_size, a);
  const double scores = 2.0 * double(shape.batch * shape.queries * shape.source_length * a);
  flops.forward += scores;   // vᵀ tanh(…)
  flops.backward += scores;  // dv
  // The context product (the scores' part counted above: width 0).
  add_product_flops(flops, shape, shape.source_length, 0, config.key_size);
  return flops;
}

void register_additive() {
  AttentionInfo info;
  info.name = "additive";
  info.summary =
      "v·tanh(W q + U h + b) (Bahdanau additive / MLP; w_query [A, Q], w_key [A, K], "
      "bias [A], v [A])";
  info.aliases = {"mlp"};
  info.has_parameters = true;
  info.traits.keeps_unit_activations = true;
  info.traits.shares_key_side = true;
  info.flops = additive_flops;
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return make_additive_attention("additive", false, config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
