// "general" (Luong et al. 2015): e_s = qᵀ W_a h_s with W_a [Q, K]. W_a h_s is computed once per
// sentence in prepare(), so each step costs the same as "dot".
// The class also serves "scaled-general" (scaled_general.cpp): g is folded into the
// precomputed keys (g · W_a h_s), so a step costs exactly what "general" costs.
// --identity-init 1 (issue 32) starts W_a at the identity, so that the model starts with "dot"'s
// scores and learns away from them; it needs Q = K.
#include "heed/attention/general.h"

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/error.h"
#include "heed/onednn/linear.h"

namespace heed::attention {
namespace {

using tensor::Shape;
using tensor::Tensor;

class GeneralAttention : public ProductAttention {
 public:
  GeneralAttention(const std::string& name, bool scaled, bool identity,
                   const AttentionConfig& config, layers::ParameterStore& store,
                   const std::string& prefix)
      : ProductAttention(name, config, 1.f),
        weight_(store.add(prefix + "weight", Shape{config.query_size, config.key_size})),
        scale_(scaled ? &store.add(prefix + "scale", Shape{1}) : nullptr),
        linear_(config.key_size, config.query_size, config.precision) {
    if (scale_) scale_->initial_value = 1.f;
    weight_.initial_identity = identity;
    linear_.set_weights(weight_.value, nullptr);
  }

  void weights_changed() override { linear_.weights_changed(); }

 protected:
  const Tensor& projected_keys() const override { return projected_; }
  Tensor& projected_grad() override { return d_projected_; }

  void precompute(bool training) override {
    projected_.resize(Shape{source_length(), batch(), config_.query_size});
    if (!scale_) {
      linear_.forward(keys_, projected_);  // [S, N, Q] = h_s·W_aᵀ
    } else {
      unscaled_.resize(projected_.shape());
      linear_.forward(keys_, unscaled_);
      const float g = scale_->value.data()[0];
      for (int64_t i = 0; i < projected_.numel(); ++i) {
        projected_.data()[i] = g * unscaled_.data()[i];
      }
    }
    if (training) {
      d_projected_.resize(projected_.shape());
      d_projected_.zero();
    }
  }

  void precompute_backward(Tensor& d_keys) override {
    if (scale_) {
      // P = g · W_a h: dg = Σ dP ⊙ W_a h (a sum over S·N·Q terms, in double), d(W_a h) = g·dP.
      const float g = scale_->value.data()[0];
      double dg = 0;
      for (int64_t i = 0; i < d_projected_.numel(); ++i) {
        dg += double(d_projected_.data()[i]) * double(unscaled_.data()[i]);
        d_projected_.data()[i] *= g;
      }
      scale_->grad.data()[0] += float(dg);
    }
    linear_.backward(keys_, d_projected_, &d_keys, weight_.grad, nullptr, /*accumulate_dx=*/true);
  }

  void select_precomputed(const std::vector<int64_t>&, const KeySelection& keys) override {
    select_key_side(projected_, keys, select_scratch_);
  }

 private:
  layers::Parameter& weight_;
  layers::Parameter* scale_;  // scaled-general only
  onednn::Linear linear_;
  Tensor projected_, d_projected_, unscaled_, select_scratch_;
};

}  // namespace

std::unique_ptr<Attention> make_general_attention(const std::string& name, bool scaled,
                                                  bool identity, const AttentionConfig& config,
                                                  layers::ParameterStore& store,
                                                  const std::string& prefix) {
  if (identity && config.query_size != config.key_size) {
    throw ConfigError("attention '" + name + "': --identity-init 1 needs a square W_a, the " +
                      "decoder state size (" + std::to_string(config.query_size) +
                      ") equal to the encoder output size (" + std::to_string(config.key_size) +
                      ")");
  }
  return std::make_unique<GeneralAttention>(name, scaled, identity, config, store, prefix);
}

AttentionFlops general_flops(const AttentionShape& shape, const AttentionConfig& config) {
  AttentionFlops flops;
  add_key_projection_flops(flops, shape, config.key_size, config.query_size);
  add_product_flops(flops, shape, shape.source_length, config.query_size, config.key_size);
  return flops;
}

void register_general() {
  AttentionInfo info;
  info.name = "general";
  info.traits.shares_key_side = true;  // ProductAttention
  info.summary = "q·W h (Luong general, bilinear; weight [Q, K])";
  info.has_parameters = true;
  info.options = {OptionSpec{"identity-init", true, 0, 0, 1,
                             "1: W_a starts as the identity, the scores of dot (needs query "
                             "size = key size); 0: drawn like every weight"}};
  info.flops = general_flops;
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    const bool identity = option_int(config.options, "identity-init") != 0;
    return make_general_attention("general", false, identity, config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
