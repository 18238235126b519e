// Private to lib/heed/attention: Luong et al. (2015)'s local attention, shared by local-m and
// local-p. Each query attends the window [p − D, p + D] around a centre p (ScoredAttention
// builds the spans from centres()); the score is Luong's "general" qᵀ W_a h_s, with W_a h_s
// precomputed once per sentence as in general.cpp, but computed only at the window's 2D + 1
// positions, so one step costs (2D + 1)·Q + (2D + 1)·K whatever the source length.
#pragma once

#include <string>
#include <vector>

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/onednn/linear.h"

namespace heed::attention {

class LocalAttention : public ScoredAttention {
 public:
  // Adds the score's weight [Q, K] under prefix; the half width D comes from the "window"
  // option.
  LocalAttention(std::string name, const AttentionConfig& config, layers::ParameterStore& store,
                 const std::string& prefix);

  void weights_changed() override { linear_.weights_changed(); }

 protected:
  void precompute(bool training) override;
  void score(const tensor::Tensor& query, int64_t step, const std::vector<Span>& spans,
             tensor::Tensor& scores, AttentionTape* tape) override;
  void score_backward(AttentionTape& tape, const tensor::Tensor& d_scores,
                      tensor::Tensor& d_query) override;
  void precompute_backward(tensor::Tensor& d_keys) override;
  void select_precomputed(const std::vector<int64_t>& rows, const KeySelection& keys) override;

 private:
  layers::Parameter& weight_;
  onednn::Linear linear_;
  tensor::Tensor projected_, d_projected_, select_scratch_;  // W_a h_s [S, N, Q] and its grad
};

// The --window option, declared identically by local-m and local-p (registry.h
// declared_options() checks that).
OptionSpec window_option();
// FLOPs of the general score over windows of 2D + 1 positions (cut to S): W_a h_s once per
// batch, then per query the window's scores and context.
AttentionFlops local_flops(const AttentionShape& shape, const AttentionConfig& config);

}  // namespace heed::attention
