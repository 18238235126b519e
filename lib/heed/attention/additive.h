// Private to lib/heed/attention: "additive" (additive.cpp) and "normed-additive"
// (normed_additive.cpp) are one class, the latter with a weight-normalised v.
#pragma once

#include <memory>
#include <string>

#include "heed/attention/attention.h"
#include "heed/attention/registry.h"

namespace heed::attention {

// e_s = vᵀ tanh(W q + U h_s + b) (parameters "w_query" [A, Q], "w_key" [A, K], "bias" [A],
// "v" [A]); with normed, (g·v/‖v‖)ᵀ tanh(…) (also "scale" [1], starting at √(1/A), and the
// bias starting at 0).
std::unique_ptr<Attention> make_additive_attention(const std::string& name, bool normed,
                                                   const AttentionConfig& config,
                                                   layers::ParameterStore& store,
                                                   const std::string& prefix);

// FLOPs of both (and of "coverage", whose score adds w_c·cov): U h_s + b once per batch; per
// query W q, vᵀ tanh(…) at each of the S positions and the context; backward the projections'
// and the context's two gradients each, and dv (the tanh's chain is element-wise).
AttentionFlops additive_flops(const AttentionShape& shape, const AttentionConfig& config);

}  // namespace heed::attention
