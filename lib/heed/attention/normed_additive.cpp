// "normed-additive" (TF-NMT's "normed_bahdanau", tf.contrib.seq2seq.BahdanauAttention(
// normalize=True); weight normalisation of Salimans & Kingma 2016):
// e_s = g · (v/‖v‖)ᵀ tanh(W q + U h_s + b). The length of the scoring vector is the learned
// scalar g alone, starting at √(1/A) as in TF (the bias starts at 0), so the scores' scale
// does not drift with v.
#include "heed/attention/additive.h"
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"

namespace heed::attention {

void register_normed_additive() {
  AttentionInfo info;
  info.name = "normed-additive";
  info.summary =
      "g·(v/|v|)·tanh(W q + U h + b) (TF normed_bahdanau; additive's parameters and scale [1] "
      "starting at sqrt(1/A), bias starting at 0)";
  info.has_parameters = true;
  info.traits.keeps_unit_activations = true;
  info.traits.shares_key_side = true;
  info.flops = additive_flops;
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return make_additive_attention("normed-additive", true, config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
