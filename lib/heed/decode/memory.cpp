#include "heed/decode/memory.h"

#include <algorithm>

#include "heed/common/rng.h"

namespace heed::decode {

double key_side_copies(const model::ModelConfig& model, const DecodeConfig& config,
                       const DecodeSizes& sizes) {
  const double batch = double(std::max(1LL, sizes.batch_size));
  if (model.resolved_attention().traits().shares_key_side) return batch;
  return batch * double(std::max(1, config.beam_size));
}

double decoding_bytes(const model::ModelConfig& model, const DecodeConfig& config,
                      const DecodeSizes& sizes) {
  constexpr double kFloat = 4.0, kCandidate = 12.0;
  const double batch = double(std::max(1LL, sizes.batch_size));
  const double beam = double(std::max(1, config.beam_size));
  const double source = double(std::max(1LL, sizes.max_source_length));
  const double target =
      double(config.max_length_ratio) * source + double(std::max(0, config.max_length_offset));
  const double vocab = double(model.tgt_vocab_size);
  const double hidden = double(model.hidden), embed = double(model.embed);
  const double keys = double(model.key_size());
  const double projected = double(model.attention_dim > 0 ? model.attention_dim : model.hidden);
  const bool attention_history = config.keep_attention || config.coverage_penalty > 0.0f;
  const double rows = batch * beam;
  // The key side's copies (keys and projected keys, twice at most: a select() that cannot move
  // them within their buffer gathers into a second one): one per sentence for a mechanism whose
  // hypotheses share it, else one per hypothesis.
  const double key_side =
      key_side_copies(model, config, sizes) * source * (2.0 * keys + 2.0 * projected);

  // Per live hypothesis, in floats: log-probabilities; h and c of each decoder layer, before
  // and after the step; input feeding, step input, context, output; the attention weights; a
  // shared key side's grouped products' padded operands (a row of weights, of context).
  double per_row = vocab + 4.0 * double(model.decoder_layers) * hidden + 6.0 * hidden + embed +
                   source * 4.0 + keys;
  // The search's rows (current and next): tokens, and with attention kept the coverage and
  // one attention row per output token.
  per_row += 2.0 * target;
  if (attention_history) per_row += 2.0 * source + 2.0 * target * source;
  // Candidates of one sentence: each of its rows offers its best k continuations.
  const double candidates = beam * std::min(double(beam), vocab);
  // Encoder: embeddings and, per layer, outputs and the RNN's workspace.
  const double encoder = batch * source * (embed + 8.0 * double(model.encoder_layers) * hidden);
  // Sampling: the sampler's weight (a double) and place in the order (an int) of every token,
  // and a generator per sentence.
  const double sampler =
      config.sampling.enabled() ? 12.0 * vocab + batch * double(sizeof(Rng)) : 0.0;
  return kFloat * (rows * per_row + key_side + encoder) + kCandidate * candidates + sampler;
}

MemoryEstimate translation_memory(const model::ModelConfig& model, long long parameters,
                                  const DecodeConfig& config, const DecodeSizes& sizes) {
  MemoryEstimate e;
  e.model = 12.0 * double(std::max(0LL, parameters));
  e.decoding = decoding_bytes(model, config, sizes);
  e.caches = 2.0 * 8.0 * 4.0 * key_side_copies(model, config, sizes) *
             double(std::max(1LL, sizes.max_source_length)) * double(model.key_size());
  return e;
}

}  // namespace heed::decode
