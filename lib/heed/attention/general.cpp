// "general" (Luong et al. 2015): e_s = qᵀ W_a h_s with W_a [Q, K]. W_a h_s is computed once per
// sentence in prepare(), so each step costs the same as "dot".
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/onednn/linear.h"

namespace heed::attention {
namespace {

class GeneralAttention : public ProductAttention {
 public:
  GeneralAttention(const AttentionConfig& config, layers::ParameterStore& store,
                   const std::string& prefix)
      : ProductAttention("general", config, 1.f),
        weight_(store.add(prefix + "weight", tensor::Shape{config.query_size, config.key_size})),
        linear_(config.key_size, config.query_size, config.precision) {
    linear_.set_weights(weight_.value, nullptr);
  }

  void weights_changed() override { linear_.weights_changed(); }

 protected:
  const tensor::Tensor& projected_keys() const override { return projected_; }
  tensor::Tensor& projected_grad() override { return d_projected_; }

  void precompute(bool training) override {
    projected_.resize(tensor::Shape{source_length(), batch(), config_.query_size});
    linear_.forward(keys_, projected_);  // [S, N, Q] = h_s·W_aᵀ
    if (training) {
      d_projected_.resize(projected_.shape());
      d_projected_.zero();
    }
  }

  void precompute_backward(tensor::Tensor& d_keys) override {
    linear_.backward(keys_, d_projected_, &d_keys, weight_.grad, nullptr, /*accumulate_dx=*/true);
  }

  void select_precomputed(const std::vector<int64_t>& rows) override {
    regather_batch(projected_, rows, select_scratch_);
  }

 private:
  layers::Parameter& weight_;
  onednn::Linear linear_;
  tensor::Tensor projected_, d_projected_, select_scratch_;
};

}  // namespace

void register_general() {
  AttentionInfo info;
  info.name = "general";
  info.summary = "q·W h (Luong general, bilinear; weight [Q, K])";
  info.has_parameters = true;
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return std::make_unique<GeneralAttention>(config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
