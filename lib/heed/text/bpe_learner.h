// Learning BPE merges from word counts (Sennrich et al. 2016; subword-nmt 0.2 conventions).
#pragma once

#include <vector>

#include "heed/text/bpe.h"
#include "heed/text/vocab.h"

namespace heed::text {

struct BpeLearnOptions {
  int merges = 8000;              // merge operations to learn
  long long min_frequency = 2;    // stop when the most frequent pair is rarer than this
};

// Learns merges as subword-nmt's learn_bpe does: words split into code points with "</w>" on
// the last, then repeatedly the most frequent adjacent pair (counted per occurrence, weighted
// by word count) is merged everywhere. Ties go to the larger pair compared as (left, right)
// strings in code-point order — subword-nmt's max((count, pair)). Incremental pair counts and
// a lazy max-heap make each merge cost only the words that contain the pair.
std::vector<BpeMerge> learn_bpe(const WordCounts& counts, const BpeLearnOptions& options);

}  // namespace heed::text
