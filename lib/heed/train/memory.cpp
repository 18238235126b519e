#include "heed/train/memory.h"

#include <algorithm>

namespace heed::train {

BatchBound largest_batch(const std::vector<model::Example>& examples,
                         const BatcherOptions& options) {
  int64_t src_len = 0, tgt_len = 0;
  for (const model::Example& e : examples) {
    src_len = std::max<int64_t>(src_len, int64_t(e.src.size()));
    tgt_len = std::max<int64_t>(tgt_len, int64_t(e.tgt.size()) + 1);
  }
  return largest_batch(int64_t(examples.size()), src_len, tgt_len, options);
}

BatchBound largest_batch(int64_t count, int64_t src_len, int64_t tgt_len,
                         const BatcherOptions& options) {
  BatchBound bound;
  bound.src_len = src_len;
  bound.tgt_len = tgt_len;
  bound.rows = std::min<int64_t>(options.max_sentences, count);
  bound.src_tokens = bound.rows * bound.src_len;
  bound.tgt_tokens = bound.rows * bound.tgt_len;
  if (options.max_tokens > 0) {
    // N · max(S, T) ≤ max_tokens for a batch of more than one; a batch of one may be longer.
    bound.rows = std::min(bound.rows, options.max_tokens);
    bound.src_tokens = std::min(bound.src_tokens, std::max(options.max_tokens, bound.src_len));
    bound.tgt_tokens = std::min(bound.tgt_tokens, std::max(options.max_tokens, bound.tgt_len));
  }
  return bound;
}

double activation_bytes(const model::ModelConfig& config,
                        const attention::ResolvedAttention& attention, const BatchBound& batch) {
  constexpr double kFloat = 4.0;
  const double hidden = double(config.hidden), embed = double(config.embed);
  const double vocab = double(config.tgt_vocab_size);
  const double source = double(batch.src_len);
  const double units = double(config.attention_dim > 0 ? config.attention_dim : config.hidden);
  // Per target token: each of the batch's source positions has scores and weights (the additive
  // family: and its tanh over the attention units).
  const double attention_per_step =
      attention.traits().keeps_unit_activations ? source * (units + 2.0) : 2.0 * source;
  const double per_target = 3.0 * vocab + 12.0 * hidden * double(config.decoder_layers) +
                            4.0 * hidden + embed + attention_per_step;
  const double per_source =
      embed + 12.0 * hidden * double(config.encoder_layers) + double(config.key_size()) + units;
  return kFloat * (double(batch.tgt_tokens) * per_target + double(batch.src_tokens) * per_source);
}

}  // namespace heed::train
