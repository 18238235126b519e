// "dot" (Luong et al. 2015): e_s = qᵀ h_s. No parameters: the alignment function is fixed.
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"

namespace heed::attention {

void register_dot() {
  AttentionInfo info;
  info.name = "dot";
  info.traits.shares_key_side = true;  // ProductAttention
  info.summary = "q·h (Luong dot; no parameters; needs query size = key size)";
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    AttentionFlops flops;
    add_product_flops(flops, shape, shape.source_length, config.key_size, config.key_size);
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore&, const std::string&) {
    require_equal_sizes("dot", config);
    return std::make_unique<ProductAttention>("dot", config, 1.f);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
