// How much memory training can take, estimated before the model and the first batch are built,
// so that sizes that cannot fit (--hidden 65536, --batch-size 10^9 over a large corpus) are
// refused with a sentence naming the options instead of growing until the kernel kills the
// process (as decode/memory.h does for heed-translate).
#pragma once

#include <cstdint>
#include <vector>

#include "heed/attention/registry.h"
#include "heed/model/batch.h"
#include "heed/model/config.h"
#include "heed/train/batcher.h"

namespace heed::train {

// Bytes one parameter costs in training: its f32 value and gradient, Adam's two moments, the
// moving average, the bf16 and oneDNN-packed copies of the weights, and the model file being
// written. A round upper bound: it only has to refuse what cannot fit.
inline constexpr double kTrainingBytesPerParameter = 32.0;

// What the batches the batcher can make from examples have at most (batcher.h): sentences, the
// longest source and target, and padded source and target tokens (N · S and N · T) — with a
// token cap, a batch of more than one sentence holds at most max_tokens padded tokens.
struct BatchBound {
  int64_t rows = 0, src_len = 0, tgt_len = 0;  // tgt_len counts </s>
  int64_t src_tokens = 0, tgt_tokens = 0;
};
BatchBound largest_batch(const std::vector<model::Example>& examples,
                         const BatcherOptions& options);
// The same for `count` examples with sources of up to src_len tokens and targets of up to
// tgt_len (</s> counted).
BatchBound largest_batch(int64_t count, int64_t src_len, int64_t tgt_len,
                         const BatcherOptions& options);

// Bytes of the activations a teacher-forced update keeps for its backward pass on a batch within
// the bound:
// per target token the output layer's logits, probabilities and their gradient over the
// vocabulary, the decoder layers' gates and states, the attention's scores and weights (and
// the additive family's tanh over every source position and attention unit:
// AttentionTraits::keeps_unit_activations); per source token the
// embeddings, the encoder layers' gates and states, the keys and their projection. A double:
// absurd sizes give absurd numbers instead of overflowing.
double activation_bytes(const model::ModelConfig& config,
                        const attention::ResolvedAttention& attention, const BatchBound& batch);

}  // namespace heed::train
