#include "heed/train/validator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "heed/common/rng.h"
#include "heed/decode/model_scorer.h"
#include "heed/eval/bleu.h"
#include "heed/text/tokenizer.h"

namespace heed::train {
namespace {

constexpr size_t kBatchSentences = 64;

}  // namespace

Validator::Validator(const std::vector<model::Example>& valid,
                     const std::vector<std::string>& references, const text::Vocab& tgt_vocab,
                     int64_t max_sentences)
    : valid_(valid),
      references_(references),
      tgt_vocab_(tgt_vocab),
      bleu_sentences_(max_sentences > 0 ? std::min(valid.size(), size_t(max_sentences))
                                        : valid.size()) {
  greedy_.beam_size = 1;
  greedy_.normalization = decode::LengthNormalization::kNone;
  greedy_.validate();
  search_ = decode::make_search(greedy_);
}

std::vector<std::vector<size_t>> Validator::batches(size_t count) const {
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return valid_[a].src.size() < valid_[b].src.size(); });
  std::vector<std::vector<size_t>> result;
  for (size_t begin = 0; begin < order.size(); begin += kBatchSentences) {
    result.emplace_back(order.begin() + long(begin),
                        order.begin() + long(std::min(order.size(), begin + kBatchSentences)));
  }
  return result;
}

ValidationScores Validator::run(model::Seq2Seq& model) const {
  ValidationScores scores;
  model::LossOptions eval;
  eval.training = false;
  eval.backward = false;
  double nll = 0;
  int64_t tokens = 0;
  Rng unused = make_rng(0);
  for (const std::vector<size_t>& idx : batches(valid_.size())) {
    const auto sums = model.loss(model::make_batch(valid_, idx), eval, unused);
    nll += sums.nll;
    tokens += sums.tokens;
  }
  scores.perplexity = std::exp(nll / double(std::max<int64_t>(tokens, 1)));

  std::vector<std::string> hyps(bleu_sentences_);
  const text::Tokenizer detok;
  for (const std::vector<size_t>& idx : batches(bleu_sentences_)) {
    const auto results =
        decode::translate_batch(model, model::make_batch(valid_, idx), greedy_, *search_);
    for (size_t i = 0; i < idx.size(); ++i) {
      std::vector<std::string> words;
      for (int32_t id : results[i].front().tokens) words.push_back(tgt_vocab_.token(id));
      hyps[idx[i]] = detok.detokenize(words);
    }
  }
  const std::vector<std::vector<std::string>> refs = {
      std::vector<std::string>(references_.begin(), references_.begin() + long(bleu_sentences_))};
  scores.bleu = eval::corpus_bleu(hyps, refs).score;
  return scores;
}

}  // namespace heed::train
