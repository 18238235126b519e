// "scaled-dot" (Vaswani et al. 2017): e_s = qᵀ h_s / √K. No parameters, unless
// --learn-temperature 1 (issue 32): then e_s = τ · qᵀ h_s / √K with τ = exp(θ) learned, θ the
// parameter "log_temperature" [1] starting at 0, so the model starts as the plain one and τ stays
// positive. τ scales the query (q' = τ q, per query), so the key side, select() and the products'
// fixed 1/√K are the plain mechanism's; the backward adds dθ = Σ dq' ⊙ q' (dq'/dθ = q').
#include <cmath>

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"

namespace heed::attention {
namespace {

using tensor::Shape;
using tensor::Tensor;

class TemperatureDotAttention : public ProductAttention {
 public:
  TemperatureDotAttention(const AttentionConfig& config, float alpha, layers::ParameterStore& store,
                          const std::string& prefix)
      : ProductAttention("scaled-dot", config, alpha),
        log_temperature_(store.add(prefix + "log_temperature", Shape{1})) {
    log_temperature_.initial_value = 0.f;  // τ = 1
  }

 protected:
  void score(const Tensor& query, int64_t step, const std::vector<Span>& spans, Tensor& scores,
             AttentionTape* tape) override {
    Tensor& scaled = tape ? tape->slot(0) : scaled_query_;
    scaled.resize(query.shape());
    const float tau = temperature();
    for (int64_t i = 0; i < query.numel(); ++i) scaled.data()[i] = tau * query.data()[i];
    ProductAttention::score(scaled, step, spans, scores, tape);
  }

  void score_backward(AttentionTape& tape, const Tensor& d_scores, Tensor& d_query) override {
    // The product's backward, with the scaled query in the place of the query.
    const Tensor& scaled = tape.saved[0];
    product_tape_.query = scaled.view(scaled.shape());
    d_scaled_.resize(d_query.shape());
    ProductAttention::score_backward(product_tape_, d_scores, d_scaled_);
    const float tau = temperature();
    double d_theta = 0;  // a sum over Tq·N·Q terms, in double
    for (int64_t i = 0; i < d_query.numel(); ++i) {
      d_theta += double(d_scaled_.data()[i]) * double(scaled.data()[i]);
      d_query.data()[i] = tau * d_scaled_.data()[i];
    }
    log_temperature_.grad.data()[0] += float(d_theta);
  }

 private:
  float temperature() const { return std::exp(log_temperature_.value.data()[0]); }

  layers::Parameter& log_temperature_;
  Tensor scaled_query_, d_scaled_;  // inference; backward scratch
  AttentionTape product_tape_;
};

}  // namespace

void register_scaled_dot() {
  AttentionInfo info;
  info.name = "scaled-dot";
  info.traits.shares_key_side = true;  // ProductAttention
  info.summary =
      "q·h/sqrt(K) (scaled dot product; no parameters, or log_temperature [1] with "
      "--learn-temperature; needs query size = key size)";
  info.options = {OptionSpec{"learn-temperature", true, 0, 0, 1,
                             "1: a learned τ > 0, starting at 1, multiplies the scores "
                             "(parameter log_temperature); 0: none"}};
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    AttentionFlops flops;
    add_product_flops(flops, shape, shape.source_length, config.key_size, config.key_size);
    // τ's gradient: one dot product Σ dq' ⊙ q' per query (scaling the query is not counted).
    if (option_int(config.options, "learn-temperature") != 0) {
      flops.backward += 2.0 * double(shape.batch * shape.queries * config.query_size);
    }
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) -> std::unique_ptr<Attention> {
    require_equal_sizes("scaled-dot", config);
    const float alpha = 1.f / std::sqrt(static_cast<float>(config.key_size));
    if (option_int(config.options, "learn-temperature") != 0) {
      return std::make_unique<TemperatureDotAttention>(config, alpha, store, prefix);
    }
    return std::make_unique<ProductAttention>("scaled-dot", config, alpha);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
