// A padded batch of sentence pairs as the model reads it: ids batch-major, padded with
// Vocab::kPadId (0). make_batch() is the one place batches are assembled: training, scoring,
// translation (empty targets) and forced alignment all call it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace heed::model {

// A sentence pair as vocabulary ids, without <s> and </s> (the target may be empty: a source
// to translate).
struct Example {
  std::vector<int32_t> src;
  std::vector<int32_t> tgt;
  // Guided alignment: (source token, target token) links the attention is pulled towards.
  std::vector<std::pair<int32_t, int32_t>> links;
};

struct Batch {
  int64_t size = 0;                  // sentences N
  int64_t src_len = 0;               // S: the longest source
  int64_t tgt_len = 0;               // T: the longest target + 1 (for </s>)
  std::vector<int32_t> src;          // [N, S]
  std::vector<int64_t> src_lengths;  // in [1, S]
  std::vector<int32_t> tgt_in;       // [N, T]: <s> y1 … yn, padded
  std::vector<int32_t> tgt_out;      // [N, T]: y1 … yn </s>, padded
  std::vector<int64_t> tgt_lengths;  // n + 1
  std::vector<size_t> examples;      // indices into the data set (training)
  // Guided alignment, when an example has links: [N, T, S] the attention each target step is
  // pulled towards — row t (the step that predicts target token t) spreads 1 evenly over the
  // source tokens linked to token t; rows without links (and </s>, padding) are zero.
  std::vector<float> guide;

  // Σ tgt_lengths: the tokens the loss averages over.
  int64_t target_tokens() const {
    return std::accumulate(tgt_lengths.begin(), tgt_lengths.end(), int64_t{0});
  }
};

// Padded tensors of the examples at indices (in that order).
Batch make_batch(const std::vector<Example>& data, const std::vector<size_t>& indices);

}  // namespace heed::model
