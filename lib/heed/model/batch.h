// A padded batch of sentence pairs as the model reads it: ids batch-major, padded with
// Vocab::kPadId (0). The batcher (train/batcher.h) builds them; translate and align build
// source-only or forced ones the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace heed::model {

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

  // Σ tgt_lengths: the tokens the loss averages over.
  int64_t target_tokens() const {
    return std::accumulate(tgt_lengths.begin(), tgt_lengths.end(), int64_t{0});
  }
};

}  // namespace heed::model
