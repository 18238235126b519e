// Validation during training: perplexity over the whole validation set and greedy BLEU
// (detokenized, 13a) over its first max_sentences pairs, both in batches of sentences of
// similar source length.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/decode/search.h"
#include "heed/model/batch.h"
#include "heed/model/seq2seq.h"
#include "heed/text/vocab.h"

namespace heed::train {

struct ValidationScores {
  double perplexity = 0;
  double bleu = 0;
};

class Validator {
 public:
  // The references are the detokenized targets of valid; max_sentences 0 = all for BLEU.
  Validator(const std::vector<model::Example>& valid, const std::vector<std::string>& references,
            const text::Vocab& tgt_vocab, int64_t max_sentences);

  bool empty() const { return valid_.empty(); }
  ValidationScores run(model::Seq2Seq& model) const;

 private:
  // The batches (indices into valid_) of the pairs below count, by source length.
  std::vector<std::vector<size_t>> batches(size_t count) const;

  const std::vector<model::Example>& valid_;
  const std::vector<std::string>& references_;
  const text::Vocab& tgt_vocab_;
  size_t bleu_sentences_;
  decode::DecodeConfig greedy_;                     // BLEU's search: greedy, raw scores
  std::unique_ptr<decode::SearchStrategy> search_;  // greedy_'s, built once
};

}  // namespace heed::train
