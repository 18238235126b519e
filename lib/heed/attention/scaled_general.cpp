// "scaled-general" (TF-NMT's "scaled_luong", tf.contrib.seq2seq.LuongAttention(scale=True)):
// e_s = g · qᵀ W_a h_s, "general" with a learned scalar g on the scores. g starts at 1 as in TF,
// not at a small random value: a tiny g would make every row of weights nearly uniform at the
// start of training.
#include "heed/attention/general.h"
#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"

namespace heed::attention {

void register_scaled_general() {
  AttentionInfo info;
  info.name = "scaled-general";
  info.traits.shares_key_side = true;  // ProductAttention
  info.summary =
      "g·q·W h (TF scaled_luong: general times a learned scalar; weight [Q, K], scale [1] "
      "starting at 1)";
  info.has_parameters = true;
  info.flops = general_flops;
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return make_general_attention("scaled-general", true, false, config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
