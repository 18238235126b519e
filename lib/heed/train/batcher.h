// Batches for training: examples grouped by length (bucketing) so padding stays small, capped
// by sentences and by padded tokens, in an order fixed by (seed, epoch) so that a resumed run
// sees exactly the batches an uninterrupted one would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heed/model/batch.h"

namespace heed::train {

// Sentence pairs as ids and the padded batch the model reads (model/batch.h).
using model::Batch;
using model::Example;
using model::make_batch;

struct BatcherOptions {
  int64_t max_sentences = 64;   // sentences per batch at most
  int64_t max_tokens = 0;       // padded tokens per batch (N × max(S, T)) at most; 0 = no cap
  int64_t bucket_batches = 64;  // examples are sorted by length inside windows of this many batches
  void validate() const;        // ConfigError for non-positive values
};

// The batches of one epoch as lists of example indices: shuffle (seeded by seed and epoch),
// sort each window by length, cut into batches under both caps, shuffle the batch order.
std::vector<std::vector<size_t>> plan_epoch(const std::vector<Example>& data,
                                            const BatcherOptions& options, uint64_t seed,
                                            int64_t epoch);

// Rank rank's part of a batch split among ranks processes: contiguous, disjoint, sizes differing
// by at most one, in order (rank 0 first); empty when the batch has fewer sentences than ranks.
std::vector<size_t> shard_of(const std::vector<size_t>& batch, int rank, int ranks);

}  // namespace heed::train
