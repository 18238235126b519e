// Word alignments from the attention of two models that agree: one translating source→target,
// one target→source, each force-decoding the same sentence pair (heed-align --soft of both).
// Each model's attention becomes a word-level matrix — a target word's rows averaged over its
// subwords, a source word's columns summed over its subwords, so that a row still sums to 1 —
// the two matrices are combined cell by cell (the reverse one transposed), and every word pair
// whose combined weight reaches the threshold is linked. Where symmetrizing hard links can only
// keep or drop the one link each direction chose, the combination keeps a link that both models
// give much of their mass to, even when it is neither's favourite, and drops one that only one
// of them believes — what Liang et al. 2006 train for and what intersecting argmax links
// approximates (docs/alignment.md).
#pragma once

#include <string>
#include <vector>

#include "heed/align/alignment.h"
#include "heed/align/soft_alignment.h"

namespace heed::align {

enum class AgreementCombine { kMean, kGeometric };

// "mean", "geometric"; ConfigError naming them otherwise.
AgreementCombine parse_agreement_combine(const std::string& name);

struct AgreementOptions {
  AgreementCombine combine = AgreementCombine::kMean;
  float threshold = 0.5f;  // the least combined weight that makes a link, in (0, 1]
  void validate() const;   // ConfigError
};

// [target words][source words]: the attention of one pair at word level (the </s> row left out).
std::vector<std::vector<double>> word_attention(const SoftAlignment& pair);

// Links (source word of forward, target word of forward) of one sentence pair: forward from the
// source→target model, reverse from the target→source model on the same pair. DataError when
// their word counts do not fit each other (the caller adds file and line).
Alignment agree(const SoftAlignment& forward, const SoftAlignment& reverse,
                const AgreementOptions& options);

}  // namespace heed::align
