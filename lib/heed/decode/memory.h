// How much memory decoding can take, estimated from the model's dimensions and the search
// options before any work, so that sizes that cannot fit (a beam of 100000, a batch of a
// million) are refused with a sentence naming the option instead of growing until the kernel
// kills the process.
#pragma once

#include "heed/decode/search.h"
#include "heed/model/config.h"

namespace heed::decode {

struct DecodeSizes {
  long long batch_size = 32;          // sentences decoded together
  long long max_source_length = 250;  // longest source, in tokens, after truncation
};

// How many copies of a sentence's key side (keys, their projection, their packed copies) a
// search holds: one per sentence when the model's attention shares it among the hypotheses
// (AttentionTraits::shares_key_side), else one per hypothesis.
double key_side_copies(const model::ModelConfig& model, const DecodeConfig& config,
                       const DecodeSizes& sizes);

// Bytes the working set of translate_batch() can reach for a batch of sizes.batch_size sources
// of sizes.max_source_length tokens, every sentence keeping config.beam_size hypotheses to the
// maximum output length: per live hypothesis its log-probabilities over the target vocabulary,
// the decoder states, the attention keys and their projection (key_side_copies), and the search's
// token (and attention) history; per sentence the candidate list; the encoder's outputs; with
// sampling, the sampler's scratch over the vocabulary.
// A double: absurd options give absurd numbers instead of overflowing.
double decoding_bytes(const model::ModelConfig& model, const DecodeConfig& config,
                      const DecodeSizes& sizes);

// An upper bound of heed-translate's resident memory: decoding_bytes, plus the model (f32 master
// weights, the loaded file and oneDNN's packed copies: 12 bytes per parameter), the packed copies
// of attention keys the bounded plan caches keep (onednn/matmul.cpp: 8 per product, two products,
// each key_side_copies × source × key size in f32), and a fixed allowance for the libraries,
// oneDNN's kernels and primitive cache and the bounded plan caches (kRuntimeBytes, measured: 143 MB
// at most over 60,000 varied lines with a tiny model, tests/cli/translate_soak.sh checks the
// bound).
inline constexpr double kRuntimeBytes = 192.0 * (1 << 20);
struct MemoryEstimate {
  double model = 0, decoding = 0, caches = 0, runtime = kRuntimeBytes;
  double total() const { return model + decoding + caches + runtime; }
};
MemoryEstimate translation_memory(const model::ModelConfig& model, long long parameters,
                                  const DecodeConfig& config, const DecodeSizes& sizes);

}  // namespace heed::decode
