// FLOPs of a training update of an encoder-decoder, per phase (profile.h's phases), for the phase
// benchmark (train_phases.cpp; not in heed_core: no tool uses it), counted as
// a GEMM counts them: 2 per multiply-add of every matrix product; element-wise work (gates,
// tanh, softmax, dropout, the optimizer) is not counted. docs/benchmarks.md gives the formulas.
#pragma once

#include <cstdint>

#include "heed/model/config.h"

namespace heed::bench {

struct UpdateFlops {
  double encoder = 0;      // RNN layers, both directions
  double decoder_rnn = 0;  // RNN layers and the bridge
  double attention = 0;    // the mechanism (ResolvedAttention::flops) and Luong's attentional layer
  double output = 0;       // the output projection (of H, or concat's C + H, columns)
  double total() const { return encoder + decoder_rnn + attention + output; }
};

// Forward and backward of the teacher-forced loss of n sentence pairs, every source s tokens
// and every target t steps long (no padding), for a validated config and the attention it
// resolved (ModelConfig::validate, Seq2Seq::attention). A backward costs two products per
// forward product (the input's gradient and the weights'), so each phase is 3 × its forward,
// except the attention, whose registry entry counts its own backward.
UpdateFlops update_flops(const model::ModelConfig& config,
                         const attention::ResolvedAttention& attention, int64_t n, int64_t s,
                         int64_t t);

}  // namespace heed::bench
