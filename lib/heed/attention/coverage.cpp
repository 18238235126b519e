// "coverage" (Tu et al. 2016, in See et al. 2017's form): additive attention that also sees how
// much attention each source position has received so far,
//   e_{t,s} = vᵀ tanh(W q_t + U h_s + w_c·cov_{t,s} + b),   cov_{t,s} = Σ_{t'<t} a_{t',s},
// with the optional coverage loss W·Σ_t Σ_s min(a_{t,s}, cov_{t,s}) over the real target steps
// (--coverage-loss W, default 0), which penalises attending again where attention already went.
//
// Stateful: the decoders run it one step per forward(), in order (attention.h), and backward()
// in reverse order. cov_t depends on the weights of every earlier step, so the backward keeps a
// running dL/dcov — the direct gradients (through w_c in the score, and through the min of the
// loss) of all the later steps — and adds it to each step's dL/da (cov_{t+1} = cov_t + a_t).
//
// The score machinery repeats additive.cpp's on purpose: additive stays as it is, and this file
// differs in the coverage term of the pre-activation and its gradient.
#include <algorithm>
#include <cstring>

#include "heed/attention/additive.h"
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/check.h"
#include "heed/onednn/linear.h"
#include "heed/onednn/softmax.h"

namespace heed::attention {
namespace {

using tensor::Shape;
using tensor::Tensor;

class CoverageAttention : public ScoredAttention {
 public:
  CoverageAttention(const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix)
      : ScoredAttention("coverage", config),
        dim_(resolved_attention_dim(config)),
        loss_weight_(static_cast<float>(option_value(config.options, "coverage-loss"))),
        w_query_(store.add(prefix + "w_query", Shape{dim_, config.query_size})),
        w_key_(store.add(prefix + "w_key", Shape{dim_, config.key_size})),
        bias_(store.add(prefix + "bias", Shape{dim_})),
        v_(store.add(prefix + "v", Shape{dim_})),
        w_coverage_(store.add(prefix + "w_coverage", Shape{dim_})),
        query_linear_(config.query_size, dim_, config.precision),
        key_linear_(config.key_size, dim_, config.precision) {
    query_linear_.set_weights(w_query_.value, nullptr);
    key_linear_.set_weights(w_key_.value, &bias_.value);
  }

  void weights_changed() override {
    query_linear_.weights_changed();
    key_linear_.weights_changed();
  }

  double auxiliary_loss() const override { return loss_; }
  void set_loss_scale(float scale) override { loss_scale_ = scale; }
  void set_target_lengths(const std::vector<int64_t>& lengths) override {
    HEED_CHECK(static_cast<int64_t>(lengths.size()) == batch(), "coverage: target lengths");
    target_lengths_ = lengths;
  }

 protected:
  void precompute(bool training) override {
    const int64_t s = source_length(), n = batch();
    projected_.resize(Shape{s, n, dim_});
    key_linear_.forward(keys_, projected_);  // U h_s + b
    // [1, N, S]: one row per sentence; the leading 1 lets select() gather rows with
    // regather_batch.
    coverage_.resize(Shape{1, n, s});
    coverage_.zero();
    steps_ = 0;
    backward_steps_ = 0;
    loss_ = 0;
    loss_scale_ = 1.f;
    target_lengths_.clear();
    if (training) {
      d_projected_.resize(projected_.shape());
      d_projected_.zero();
      d_coverage_.resize(coverage_.shape());
      d_coverage_.zero();
    }
  }

  void score(const Tensor& query, int64_t step, const std::vector<Span>&, Tensor& scores,
             AttentionTape* tape) override {
    HEED_CHECK(query.dim(0) == 1 && step == steps_,
               "coverage: forward() must see one step at a time, in order");
    const int64_t n = batch(), s = source_length(), a = dim_;
    wq_.resize(Shape{1, n, a});
    query_linear_.forward(query, wq_);
    Tensor& hidden = tape ? tape->slot(0) : hidden_;
    hidden.resize(Shape{n, s, a});
    const float* wc = w_coverage_.value.data();
    for (int64_t b = 0; b < n; ++b) {
      const float* wq = wq_.data() + b * a;
      for (int64_t i = 0; i < s; ++i) {
        const float* p = projected_.data() + (i * n + b) * a;
        const float cov = coverage_.data()[b * s + i];
        float* h = hidden.data() + (b * s + i) * a;
        for (int64_t k = 0; k < a; ++k) h[k] = p[k] + wq[k] + wc[k] * cov;
      }
    }
    onednn::tanh(hidden, hidden);
    const float* v = v_.value.data();
    for (int64_t r = 0; r < n * s; ++r) {
      const float* h = hidden.data() + r * a;
      float e = 0.f;
      for (int64_t k = 0; k < a; ++k) e += h[k] * v[k];
      scores.data()[r] = e;
    }
    if (tape) {
      Tensor& cov = tape->slot(1);  // cov_t, for the backward
      cov.resize(coverage_.shape());
      std::memcpy(cov.data(), coverage_.data(), coverage_.bytes());
    }
  }

  // The step's weights a_t [N, 1, S]: its loss term, then cov_{t+1} = cov_t + a_t.
  void weights_formed(const Tensor& weights, AttentionTape*) override {
    const int64_t n = batch(), s = source_length();
    double loss = 0;
    for (int64_t b = 0; b < n; ++b) {
      const float* a = weights.data() + b * s;
      float* cov = coverage_.data() + b * s;
      const bool counted = loss_weight_ > 0.f && real_step(b, steps_);
      for (int64_t i = 0; i < lengths_[size_t(b)]; ++i) {
        if (counted) loss += double(std::min(a[i], cov[i]));
        cov[i] += a[i];
      }
    }
    loss_ += double(loss_weight_) * loss;
    ++steps_;
  }

  // d_weights of step t gets the running dL/dcov of the later steps; then the loss term's
  // gradient: to a_t where a_t < cov_t, otherwise to cov_t (which joins the running gradient
  // for the earlier steps). Ties can only be 0 = 0 (sparsemax, padding), where either side gets
  // no gradient through the normaliser.
  //
  // The loss term adds nearly the same g to every position, which the normaliser's backward
  // cancels (the weights sum to 1, so a constant added to a row of dL/da changes no score's
  // gradient). Each row is centred first, in double, so that float32 keeps the digits that
  // survive that cancellation.
  void weights_backward(AttentionTape& tape, Tensor& d_weights) override {
    HEED_CHECK(tape.step == steps_ - 1 - backward_steps_,
               "coverage: backward() must run in reverse step order");
    ++backward_steps_;
    const int64_t n = batch(), s = source_length();
    const Tensor& cov = tape.slot(1);
    const float g = loss_weight_ * loss_scale_;
    for (int64_t b = 0; b < n; ++b) {
      const float* a = tape.weights.data() + b * s;
      const float* c = cov.data() + b * s;
      float* d = d_weights.data() + b * s;
      float* d_cov = d_coverage_.data() + b * s;
      const bool counted = g > 0.f && real_step(b, tape.step);
      const int64_t len = lengths_[size_t(b)];
      row_.resize(size_t(len));
      double mean = 0;
      for (int64_t i = 0; i < len; ++i) {
        double di = double(d[i]) + double(d_cov[i]);
        if (counted) {
          if (a[i] < c[i]) {
            di += double(g);
          } else {
            d_cov[i] += g;
          }
        }
        row_[size_t(i)] = di;
        mean += double(a[i]) * di;
      }
      for (int64_t i = 0; i < len; ++i) d[i] = float(row_[size_t(i)] - mean);
    }
  }

  void score_backward(AttentionTape& tape, const Tensor& d_scores, Tensor& d_query) override {
    const Tensor& hidden = tape.slot(0);
    const Tensor& cov = tape.slot(1);
    const int64_t n = batch(), s = source_length(), a = dim_;
    d_wq_.resize(Shape{1, n, a});
    d_wq_.zero();
    const float* v = v_.value.data();
    const float* wc = w_coverage_.value.data();
    float* dv = v_.grad.data();
    float* dwc = w_coverage_.grad.data();
    for (int64_t b = 0; b < n; ++b) {
      float* dwq = d_wq_.data() + b * a;
      for (int64_t i = 0; i < s; ++i) {
        const int64_t r = b * s + i;
        const float de = d_scores.data()[r];
        const float c = cov.data()[r];
        const float* h = hidden.data() + r * a;
        float* dp = d_projected_.data() + (i * n + b) * a;
        float d_cov = 0.f;
        for (int64_t k = 0; k < a; ++k) {
          dv[k] += de * h[k];
          const float pre = de * v[k] * (1.f - h[k] * h[k]);
          dp[k] += pre;
          dwq[k] += pre;
          dwc[k] += pre * c;
          d_cov += pre * wc[k];
        }
        d_coverage_.data()[r] += d_cov;  // joins the running dL/dcov for the earlier steps
      }
    }
    query_linear_.backward(tape.query, d_wq_, &d_query, w_query_.grad, nullptr);
  }

  void precompute_backward(Tensor& d_keys) override {
    key_linear_.backward(keys_, d_projected_, &d_keys, w_key_.grad, &bias_.grad,
                         /*accumulate_dx=*/true);
  }

  void select_precomputed(const std::vector<int64_t>& rows, const KeySelection& keys) override {
    select_key_side(projected_, keys, select_scratch_);
    regather_batch(coverage_, rows, coverage_scratch_);  // each hypothesis's own
    target_lengths_.clear();
  }

 private:
  // A step of sentence b that is not padding of the batch.
  bool real_step(int64_t b, int64_t step) const {
    return target_lengths_.empty() || step < target_lengths_[size_t(b)];
  }

  int64_t dim_;
  float loss_weight_;
  layers::Parameter& w_query_;
  layers::Parameter& w_key_;
  layers::Parameter& bias_;
  layers::Parameter& v_;
  layers::Parameter& w_coverage_;
  onednn::Linear query_linear_;
  onednn::Linear key_linear_;
  Tensor projected_, d_projected_, wq_, hidden_, d_wq_, select_scratch_;
  Tensor coverage_;    // [1, N, S] cov of the next step
  Tensor d_coverage_;  // [1, N, S] running dL/dcov of the steps already back-propagated
  Tensor coverage_scratch_;
  std::vector<int64_t> target_lengths_;
  std::vector<double> row_;     // one row of dL/da in weights_backward
  int64_t steps_ = 0;           // forwards since prepare(): the next step
  int64_t backward_steps_ = 0;  // backwards since prepare()
  double loss_ = 0;             // W·Σ min(a, cov) since prepare()
  float loss_scale_ = 1.f;
};

}  // namespace

void register_coverage() {
  AttentionInfo info;
  info.name = "coverage";
  info.summary =
      "v·tanh(W q + U h + w_c·cov + b), cov = the weights of the earlier steps (See et al. "
      "2017; w_query [A, Q], w_key [A, K], bias [A], v [A], w_coverage [A]); loss "
      "W·Σ min(a, cov)";
  info.has_parameters = true;
  info.traits.stateful = true;
  info.traits.keeps_unit_activations = true;
  // Default 0, Tu et al.'s translation form: with W = 1 from the first update (See et al.'s
  // weight, which they switch on only for a short final phase) a uniform start pays ~1 per
  // step, which the model avoids by sharpening its attention before it knows where to look —
  // Multi30k test2016 BLEU 4.1 after 10 minutes against 38.5 for additive
  // (docs/studies/attention-family.md).
  info.options = {OptionSpec{"coverage-loss", false, 0, 0, 100,
                             "weight W of the coverage loss W·Σ min(a, cov) (0: coverage in "
                             "the score only)"}};
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    AttentionFlops flops = additive_flops(shape, config);
    // w_c·cov, an outer product [S] × [A] per query; backward dw_c and d cov.
    const double outer = 2.0 * double(shape.batch * shape.queries * shape.source_length *
                                      resolved_attention_dim(config));
    flops.forward += outer;
    flops.backward += 2 * outer;
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return std::make_unique<CoverageAttention>(config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
