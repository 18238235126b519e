// Word alignments read off attention weights, as heed-align extract and heed-translate
// --alignment write them.
//
// The weights are one row per decoder step over the source tokens; row j is the step that
// predicts target token j, and forced decoding has one more row, the step that predicts </s>.
// Links are made between tokens and then lifted to words (source_words / target_words: the
// word of each token), so a word pair is linked when any of their subwords are — as alignments
// from subword models are usually merged before scoring.
//
//   argmax     target token j → the source token row j attends to most (Luong et al. 2015).
//   threshold  every (source, target) token pair whose weight in row j is at least P.
//   shift      as argmax, but from row j + 1: the step whose *input* is target token j, which
//              has already seen it (Chen et al. 2020: far better for RNN and Transformer
//              attention than the row that predicts it). The last target token reads the </s>
//              row; without that row it gets no link.
// The </s> row is otherwise unused: it aligns no target word. heed's encoder reads no </s>, so
// no attention mass goes to a source end-of-sentence token that would have to be dropped.
#pragma once

#include <string>
#include <vector>

#include "heed/align/alignment.h"

namespace heed::align {

enum class ExtractMethod { kArgmax, kThreshold, kShift };

// "argmax", "threshold", "shift"; ConfigError naming them otherwise.
ExtractMethod parse_extract_method(const std::string& name);

struct ExtractOptions {
  ExtractMethod method = ExtractMethod::kArgmax;
  float threshold = 0.5f;  // threshold: the least weight that makes a link, in (0, 1]
  void validate() const;   // ConfigError
};

// weights: at least target_words.size() rows (argmax, threshold), each of source_words.size()
// columns. Word indices count from 0 in token order.
Alignment extract_links(const std::vector<std::vector<float>>& weights,
                        const std::vector<int>& source_words, const std::vector<int>& target_words,
                        const ExtractOptions& options);

}  // namespace heed::align
