// The Seq2Seq model as a StepScorer for search(): encode a batch of sources once, then one
// decoder step per search step for every live hypothesis row.
#pragma once

#include <cstdint>
#include <vector>

#include "heed/decode/search.h"
#include "heed/model/batch.h"
#include "heed/model/seq2seq.h"
#include "heed/tensor/tensor.h"

namespace heed::decode {

class ModelScorer : public StepScorer {
 public:
  explicit ModelScorer(model::Seq2Seq& model);

  // Encodes batch.src (targets unused) and starts the decoder: rows = sentences. With
  // shortlist (ascending target ids, shortlist.h), every step scores those tokens only.
  void start(const model::Batch& batch, const std::vector<int32_t>* shortlist = nullptr);

  int vocab_size() const override;
  int32_t eos_id() const override;
  int32_t bos_id() const override;
  int source_length(int sentence) const override;
  Scores step(const std::vector<int32_t>& parents, const std::vector<int32_t>& tokens,
              bool want_attention) override;

 private:
  model::Seq2Seq& model_;
  std::vector<int64_t> source_lengths_;
  std::vector<int64_t> rows_;
  std::vector<int32_t> shortlist_;  // empty: the whole vocabulary
  tensor::Tensor out_, log_probs_, weights_;
};

// search() over a batch (over the shortlist's target ids only, when given) with the run's
// strategy (make_search, told the batch's streams) and validated config; hypotheses per
// sentence, best first.
std::vector<std::vector<Hypothesis>> translate_batch(
    model::Seq2Seq& model, const model::Batch& batch, const DecodeConfig& config,
    SearchStrategy& strategy, const std::vector<int32_t>* shortlist = nullptr);

}  // namespace heed::decode
