// Private to lib/heed/attention: "general" (general.cpp) and "scaled-general"
// (scaled_general.cpp) are one class, the latter with a learned scalar on the scores.
#pragma once

#include <memory>
#include <string>

#include "heed/attention/attention.h"
#include "heed/attention/registry.h"

namespace heed::attention {

// e_s = qᵀ W_a h_s (parameter "weight" [Q, K]); with scaled, g · qᵀ W_a h_s (also "scale" [1],
// starting at 1). With identity, W_a starts as the identity (Q = K, else ConfigError).
std::unique_ptr<Attention> make_general_attention(const std::string& name, bool scaled,
                                                  bool identity, const AttentionConfig& config,
                                                  layers::ParameterStore& store,
                                                  const std::string& prefix);

// FLOPs of both: W_a h_s once per batch, then a product with it like "dot"'s.
AttentionFlops general_flops(const AttentionShape& shape, const AttentionConfig& config);

}  // namespace heed::attention
