// "scaled-dot" (Vaswani et al. 2017): e_s = qᵀ h_s / √K. No parameters.
#include <cmath>

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"

namespace heed::attention {

void register_scaled_dot() {
  AttentionInfo info;
  info.name = "scaled-dot";
  info.summary = "q·h/sqrt(K) (scaled dot product; no parameters; needs query size = key size)";
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    AttentionFlops flops;
    add_product_flops(flops, shape, shape.source_length, config.key_size, config.key_size);
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore&, const std::string&) {
    require_equal_sizes("scaled-dot", config);
    const float alpha = 1.f / std::sqrt(static_cast<float>(config.key_size));
    return std::make_unique<ProductAttention>("scaled-dot", config, alpha);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
