// Learning BPE merges from word counts (Sennrich et al. 2016; subword-nmt 0.2 conventions).
#pragma once

#include <vector>

#include "heed/text/bpe.h"
#include "heed/text/vocab.h"

namespace heed::text {

struct BpeLearnOptions {
  int merges = 8000;            // merge operations to learn (at most)
  long long min_frequency = 2;  // stop when the most frequent pair is rarer than this

  // Throws ConfigError for a negative merge count or a min_frequency below 1.
  void validate() const;
};

// Learns merges as subword-nmt's learn_bpe (0.2) does: each word is split into code points
// with "</w>" on the last one, then the most frequent adjacent pair (counted once per
// position, weighted by the word's count) is merged everywhere, left to right without
// overlap, until options.merges merges are made or the best pair occurs fewer than
// options.min_frequency times.
//
// Ties: among pairs of equal frequency the larger (left, right) wins, comparing left first,
// then right, byte by byte (= code point order) — subword-nmt's max((frequency, pair)). The
// result does not depend on the order of counts or on hashing, and pair frequencies are exact
// (subword-nmt's pruning of rare pairs is a speed heuristic that heed does not need).
//
// Words that are empty, have a count below 1 or contain a space, CR or LF (which a codes file
// cannot hold) are ignored. Cost: incremental pair counts with an index from each pair to the
// words that contain it and a lazy max-heap, so a merge only touches the words it changes.
std::vector<BpeMerge> learn_bpe(const WordCounts& counts, const BpeLearnOptions& options);

}  // namespace heed::text
