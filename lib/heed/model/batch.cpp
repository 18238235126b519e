#include "heed/model/batch.h"

#include <algorithm>

#include "heed/text/vocab.h"

namespace heed::model {

Batch make_batch(const std::vector<Example>& data, const std::vector<size_t>& indices) {
  Batch b;
  b.size = static_cast<int64_t>(indices.size());
  b.examples = indices;
  for (size_t i : indices) {
    b.src_len = std::max<int64_t>(b.src_len, static_cast<int64_t>(data[i].src.size()));
    b.tgt_len = std::max<int64_t>(b.tgt_len, static_cast<int64_t>(data[i].tgt.size()) + 1);
  }
  const auto N = static_cast<size_t>(b.size), S = static_cast<size_t>(b.src_len),
             T = static_cast<size_t>(b.tgt_len);
  b.src.assign(N * S, text::Vocab::kPadId);
  b.tgt_in.assign(N * T, text::Vocab::kPadId);
  b.tgt_out.assign(N * T, text::Vocab::kPadId);
  for (size_t n = 0; n < N; ++n) {
    const Example& e = data[indices[n]];
    std::copy(e.src.begin(), e.src.end(), b.src.begin() + static_cast<long>(n * S));
    b.src_lengths.push_back(static_cast<int64_t>(e.src.size()));
    b.tgt_in[n * T] = text::Vocab::kBosId;
    for (size_t t = 0; t < e.tgt.size(); ++t) {
      b.tgt_in[n * T + t + 1] = e.tgt[t];
      b.tgt_out[n * T + t] = e.tgt[t];
    }
    b.tgt_out[n * T + e.tgt.size()] = text::Vocab::kEosId;
    b.tgt_lengths.push_back(static_cast<int64_t>(e.tgt.size()) + 1);
  }
  const bool guided =
      std::any_of(indices.begin(), indices.end(), [&](size_t i) { return !data[i].links.empty(); });
  if (!guided) return b;
  b.guide.assign(N * T * S, 0.f);
  std::vector<int> per_target;
  for (size_t n = 0; n < N; ++n) {
    const Example& e = data[indices[n]];
    per_target.assign(e.tgt.size(), 0);
    for (const auto& [s, t] : e.links) ++per_target[size_t(t)];
    for (const auto& [s, t] : e.links) {
      b.guide[(n * T + size_t(t)) * S + size_t(s)] += 1.f / float(per_target[size_t(t)]);
    }
  }
  return b;
}

}  // namespace heed::model
