// "local-m" (Luong et al. 2015, monotonic local attention): target position t attends the
// source window [t − D, t + D] (--window D) with the "general" score qᵀ W_a h_s, assuming the
// source and target are roughly monotonically aligned. The centre is the absolute target
// position, so at a step past the end of the source the window is clamped into the sentence:
// it covers the last D + 1 positions (normalization.h window_span).
#include "heed/attention/local_attention.h"

namespace heed::attention {
namespace {

class MonotonicLocalAttention : public LocalAttention {
 public:
  MonotonicLocalAttention(const AttentionConfig& config, layers::ParameterStore& store,
                          const std::string& prefix)
      : LocalAttention("local-m", config, store, prefix) {}

 protected:
  void centres(const tensor::Tensor& query, int64_t step, float* out, AttentionTape*) override {
    const int64_t tq = query.dim(0), n = batch();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t t = 0; t < tq; ++t) out[b * tq + t] = float(step + t);
    }
  }
  // The centre does not depend on the query: nothing flows back through it.
};

}  // namespace

void register_local_m() {
  AttentionInfo info;
  info.name = "local-m";
  info.summary =
      "q·W h over the window [t - D, t + D] around the target position t (Luong local-m; "
      "weight [Q, K])";
  info.has_parameters = true;
  info.options = {window_option()};
  info.flops = local_flops;
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return std::make_unique<MonotonicLocalAttention>(config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
