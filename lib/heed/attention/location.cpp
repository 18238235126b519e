// "location" (Luong et al. 2015, location-based): a_t = softmax(W_a q_t) over the source
// positions, W_a [P, Q]: the score of position s is row s of W_a times the query, with no look
// at the keys. P (--max-positions) bounds the sentences it can score: a longer source is
// refused (DataError: bad data for this model, exit 65), never silently cut.
#include <algorithm>
#include <cstring>

#include "heed/attention/registry.h"
#include "heed/attention/scored_attention.h"
#include "heed/common/error.h"

namespace heed::attention {
namespace {

using onednn::MatMulOptions;
using onednn::MatrixRef;
using tensor::Shape;
using tensor::Tensor;

constexpr const char* kMaxPositions = "max-positions";

class LocationAttention : public ScoredAttention {
 public:
  LocationAttention(const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix)
      : ScoredAttention("location", config),
        positions_(option_int(config.options, kMaxPositions)),
        weight_(store.add(prefix + "weight", Shape{positions_, config.query_size})),
        // f32 at every precision: stepped, each product is one query row per sentence, where
        // bf16's conversions cost more than they save (docs/benchmarks.md, "bf16 attention
        // products").
        score_mm_(onednn::Precision::kF32),
        d_query_mm_(onednn::Precision::kF32),
        d_weight_mm_(onednn::Precision::kF32) {}

 protected:
  void precompute(bool) override {
    const int64_t longest = *std::max_element(lengths_.begin(), lengths_.end());
    if (longest > positions_) {
      throw DataError("a source sentence of " + std::to_string(longest) +
                      " tokens is longer than attention 'location' can score (--max-positions " +
                      std::to_string(positions_) + ")");
    }
  }

  // The first min(S, P) rows of W_a: positions past every sentence's end are never read.
  MatrixRef position_rows(const Tensor& w) const {
    MatrixRef rows = MatrixRef::of(w);
    rows.rows = std::min(source_length(), positions_);
    return rows;
  }
  MatrixRef score_columns(const Tensor& scores) const {
    MatrixRef columns = MatrixRef::of(scores);
    columns.cols = std::min(source_length(), positions_);
    return columns;
  }

  void score(const Tensor& query, int64_t, const std::vector<Span>&, Tensor& scores,
             AttentionTape*) override {
    // scores[b] [Tq, S'] = query[:, b] [Tq, Q] · W_a[:S']ᵀ, W_a broadcast over the batch.
    score_mm_.run(MatrixRef::time_major(query), position_rows(weight_.value).transposed(),
                  score_columns(scores));
  }

  void score_backward(AttentionTape& tape, const Tensor& d_scores, Tensor& d_query) override {
    const int64_t n = d_scores.dim(0), tq = d_scores.dim(1), s = d_scores.dim(2);
    d_query_mm_.run(score_columns(d_scores), position_rows(weight_.value),
                    MatrixRef::time_major(d_query));
    // dW_a[:S'] += Σ over rows (t, b) of d e_(b,t)ᵀ q_(t,b): d_scores time-major first, so that
    // its rows line up with the query's.
    d_scores_tm_.resize(Shape{tq, n, s});
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t t = 0; t < tq; ++t) {
        std::memcpy(d_scores_tm_.data() + (t * n + b) * s, d_scores.data() + (b * tq + t) * s,
                    sizeof(float) * size_t(s));
      }
    }
    MatrixRef d_e = MatrixRef::rows_of(d_scores_tm_);
    d_e.cols = std::min(s, positions_);
    MatMulOptions accumulate;
    accumulate.accumulate = true;
    d_weight_mm_.run(d_e.transposed(), MatrixRef::rows_of(tape.query), position_rows(weight_.grad),
                     accumulate);
  }

  void precompute_backward(Tensor&) override {}
  void select_precomputed(const std::vector<int64_t>&, const KeySelection&) override {}

 private:
  int64_t positions_;
  layers::Parameter& weight_;
  onednn::MatMul score_mm_, d_query_mm_, d_weight_mm_;
  Tensor d_scores_tm_;
};

}  // namespace

void register_location() {
  AttentionInfo info;
  info.name = "location";
  info.summary =
      "W q over positions (Luong location; weight [P, Q], P = --max-positions; no look at the "
      "keys)";
  info.has_parameters = true;
  info.options = {OptionSpec{kMaxPositions, true, 100, 1, 4096,
                             "source positions P it can score (weight [P, Q]); a longer source "
                             "sentence is an error"}};
  info.max_source_length = [](const AttentionConfig& config) {
    return option_int(config.options, kMaxPositions);
  };
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    AttentionFlops flops;  // scores: the query times S rows of W_a [P, Q]
    add_product_flops(flops, shape, shape.source_length, config.query_size, config.key_size);
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return std::make_unique<LocationAttention>(config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
