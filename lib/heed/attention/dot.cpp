// "dot" (Luong et al. 2015): e_s = qᵀ h_s. No parameters: the alignment function is fixed.
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/error.h"

namespace heed::attention {

void register_dot() {
  AttentionInfo info;
  info.name = "dot";
  info.summary = "q·h (Luong dot; no parameters; needs query size = key size)";
  info.factory = [](const AttentionConfig& config, layers::ParameterStore&, const std::string&) {
    if (config.query_size != config.key_size) {
      throw ConfigError("attention 'dot' needs the decoder state size (" +
                        std::to_string(config.query_size) + ") to equal the encoder output size (" +
                        std::to_string(config.key_size) + ")");
    }
    return std::make_unique<ProductAttention>("dot", config, 1.f);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
