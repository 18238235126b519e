#include "heed/train/batcher.h"

#include <algorithm>
#include <numeric>

#include "heed/common/error.h"
#include "heed/common/rng.h"

namespace heed::train {

void BatcherOptions::validate() const {
  if (max_sentences <= 0) throw ConfigError("--batch-size must be positive");
  if (max_tokens < 0) throw ConfigError("--batch-tokens must be 0 (no cap) or positive");
  if (bucket_batches <= 0) throw ConfigError("the bucketing window must be positive");
}

std::vector<std::vector<size_t>> plan_epoch(const std::vector<Example>& data,
                                            const BatcherOptions& options, uint64_t seed,
                                            int64_t epoch) {
  options.validate();
  Rng rng = make_rng(seed, 0x5eed0000ull + static_cast<uint64_t>(epoch));
  std::vector<size_t> order(data.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::shuffle(order.begin(), order.end(), rng);

  auto length = [&data](size_t i) {
    return std::max<int64_t>(static_cast<int64_t>(data[i].src.size()),
                             static_cast<int64_t>(data[i].tgt.size()) + 1);
  };
  const size_t window = static_cast<size_t>(options.bucket_batches * options.max_sentences);
  std::vector<std::vector<size_t>> batches;
  for (size_t begin = 0; begin < order.size(); begin += window) {
    const size_t end = std::min(order.size(), begin + window);
    std::stable_sort(order.begin() + static_cast<long>(begin),
                     order.begin() + static_cast<long>(end), [&](size_t a, size_t b) {
                       if (data[a].src.size() != data[b].src.size())
                         return data[a].src.size() < data[b].src.size();
                       return data[a].tgt.size() < data[b].tgt.size();
                     });
    std::vector<size_t> current;
    int64_t longest = 0;
    for (size_t k = begin; k < end; ++k) {
      const size_t i = order[k];
      const int64_t next_longest = std::max(longest, length(i));
      const int64_t n = static_cast<int64_t>(current.size()) + 1;
      const bool too_many = n > options.max_sentences;
      const bool too_long = options.max_tokens > 0 && n * next_longest > options.max_tokens;
      if (!current.empty() && (too_many || too_long)) {
        batches.push_back(std::move(current));
        current.clear();
        longest = 0;
      }
      current.push_back(i);
      longest = std::max(longest, length(i));
    }
    if (!current.empty()) batches.push_back(std::move(current));
  }
  std::shuffle(batches.begin(), batches.end(), rng);
  return batches;
}

std::vector<size_t> shard_of(const std::vector<size_t>& batch, int rank, int ranks) {
  const size_t n = batch.size(), parts = size_t(ranks), r = size_t(rank);
  const size_t begin = r * (n / parts) + std::min(r, n % parts);
  const size_t end = begin + n / parts + (r < n % parts ? 1 : 0);
  return std::vector<size_t>(batch.begin() + long(begin), batch.begin() + long(end));
}

}  // namespace heed::train
