// "ff-pool" (Raffel & Ellis 2015): attention pooling with no query,
//   e_s = tanh(w·h_s + b),  α = normalise(e),  c = Σ_s α_s h_s,
// the same context at every decoder step: a fixed, learned summary of the sentence (the
// decoder-attention counterpart of --bridge ff-pool, over the same FeedForwardPool). The pool
// runs once per sentence batch in prepare(); forward() copies it to every query row; the
// gradients of all steps' contexts are summed and go through the pool once in finish_backward().
#include <cstring>

#include "heed/attention/feed_forward_pool.h"
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/check.h"

namespace heed::attention {
namespace {

using tensor::Shape;
using tensor::Tensor;

class FeedForwardPoolAttention : public Attention {
 public:
  FeedForwardPoolAttention(const AttentionConfig& config, layers::ParameterStore& store,
                           const std::string& prefix)
      : width_(config.key_size), pool_(config.key_size, store, prefix, config.normalizer) {}

  const std::string& name() const override { return name_; }
  int64_t context_size() const override { return width_; }

  void prepare(const Tensor& keys, const std::vector<int64_t>& lengths, bool training) override {
    pool_.forward(keys, lengths, pooled_, &weights_);  // [N, K], [N, S]
    training_ = training;
    if (training) {
      d_pooled_.resize(pooled_.shape());
      d_pooled_.zero();
    }
  }

  void forward(const Tensor& query, int64_t step, Tensor& context, Tensor* weights,
               AttentionTape* tape) override {
    const int64_t tq = query.dim(0), n = pooled_.dim(0), s = weights_.dim(1), k = width_;
    HEED_CHECK(query.dim(1) == n, "ff-pool: query shape");
    context.resize(Shape{tq, n, k});
    for (int64_t t = 0; t < tq; ++t) {
      std::memcpy(context.data() + t * n * k, pooled_.data(), pooled_.bytes());
    }
    if (weights) {
      weights->resize(Shape{n, tq, s});
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t t = 0; t < tq; ++t) {
          std::memcpy(weights->data() + (b * tq + t) * s, weights_.data() + b * s,
                      sizeof(float) * size_t(s));
        }
      }
    }
    if (tape) {
      tape->query = query.view(query.shape());
      tape->step = step;
    }
  }

  // The query gets no gradient; the contexts' gradients add up for the one pooled vector.
  void backward(AttentionTape& tape, const Tensor& d_context, Tensor& d_query) override {
    HEED_CHECK(training_, "attention backward without a training prepare");
    const int64_t tq = d_context.dim(0), nk = pooled_.numel();
    float* d = d_pooled_.data();
    for (int64_t t = 0; t < tq; ++t) {
      const float* dc = d_context.data() + t * nk;
      for (int64_t i = 0; i < nk; ++i) d[i] += dc[i];
    }
    d_query.resize(tape.query.shape());
    d_query.zero();
  }

  void finish_backward(Tensor& d_keys) override {
    HEED_CHECK(training_, "attention backward without a training prepare");
    pool_.backward(d_pooled_, d_keys);
  }

  void select(const std::vector<int64_t>& rows) override {
    const int64_t n = pooled_.dim(0), k = width_, s = weights_.dim(1);
    for (const int64_t r : rows) HEED_CHECK(r >= 0 && r < n, "attention: select row out of range");
    // [N, C] rows through gather_batch's [1, N, C] layout.
    gather_batch(pooled_.view(Shape{1, n, k}), rows, scratch_);
    pooled_.resize(Shape{int64_t(rows.size()), k});
    std::memcpy(pooled_.data(), scratch_.data(), pooled_.bytes());
    gather_batch(weights_.view(Shape{1, n, s}), rows, scratch_);
    weights_.resize(Shape{int64_t(rows.size()), s});
    std::memcpy(weights_.data(), scratch_.data(), weights_.bytes());
    training_ = false;
  }

  void weights_changed() override {}

 private:
  std::string name_ = "ff-pool";
  int64_t width_;
  FeedForwardPool pool_;
  Tensor pooled_;    // [N, K] the context of every step
  Tensor weights_;   // [N, S] the pooling weights
  Tensor d_pooled_;  // [N, K] summed over the backward() calls
  Tensor scratch_;
  bool training_ = false;
};

}  // namespace

void register_ff_pool() {
  AttentionInfo info;
  info.name = "ff-pool";
  info.summary =
      "no query: tanh(w·h + b) (Raffel & Ellis 2015 feed-forward attention; w [K], b [1]), the "
      "same pooled context at every step";
  info.has_parameters = true;
  info.traits.uses_query = false;
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    // The pooling once per batch: wᵀ h_s and Σ α_s h_s; backward d α, dw and both paths to
    // the keys. A forward only copies the pooled context.
    const double pass = 2.0 * double(shape.batch * shape.source_length * config.key_size);
    AttentionFlops flops;
    flops.precompute = 2 * pass;
    flops.precompute_backward = 4 * pass;
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return std::make_unique<FeedForwardPoolAttention>(config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
