#include "heed/decode/model_scorer.h"

#include "heed/common/profile.h"
#include "heed/text/vocab.h"

namespace heed::decode {

ModelScorer::ModelScorer(model::Seq2Seq& model) : model_(model) {}

void ModelScorer::start(const model::Batch& batch, const std::vector<int32_t>* shortlist) {
  source_lengths_ = batch.src_lengths;
  shortlist_.clear();
  if (shortlist) {
    shortlist_ = *shortlist;
    model_.output().select_rows(shortlist_);
  }
  profile::Scope phase(profile::Phase::kEncoder);
  model_.encoder().forward(batch.src.data(), batch.src_lengths, batch.size, batch.src_len,
                           /*training=*/false, nullptr);
  model_.decoder().begin(model_.encoder().keys(), batch.src_lengths, model_.encoder().finals());
}

int ModelScorer::vocab_size() const {
  return model_.config().tgt_vocab_size;
}
int32_t ModelScorer::eos_id() const {
  return text::Vocab::kEosId;
}
int32_t ModelScorer::bos_id() const {
  return text::Vocab::kBosId;
}
int ModelScorer::source_length(int sentence) const {
  return static_cast<int>(source_lengths_[static_cast<size_t>(sentence)]);
}

StepScorer::Scores ModelScorer::step(const std::vector<int32_t>& parents,
                                     const std::vector<int32_t>& tokens, bool want_attention) {
  {
    // The attention inside the step counts as attention (profile.h: exclusive times).
    profile::Scope phase(profile::Phase::kDecoderRnn);
    rows_.assign(parents.begin(), parents.end());
    model_.decoder().select(rows_);
    model_.decoder().step(tokens.data(), out_, want_attention ? &weights_ : nullptr);
  }
  profile::Scope phase(profile::Phase::kOutput);
  Scores scores;
  if (shortlist_.empty()) {
    model_.output().log_probs(out_, log_probs_);
  } else {
    model_.output().selected_log_probs(out_, log_probs_);
    scores.columns = static_cast<int>(shortlist_.size());
    scores.token_ids = shortlist_.data();
  }
  scores.log_probs = log_probs_.data();
  if (want_attention) scores.attention = weights_.data();
  return scores;
}

std::vector<std::vector<Hypothesis>> translate_batch(model::Seq2Seq& model,
                                                     const model::Batch& batch,
                                                     const DecodeConfig& config,
                                                     SearchStrategy& strategy,
                                                     const std::vector<int32_t>* shortlist) {
  ModelScorer scorer(model);
  scorer.start(batch, shortlist);
  return search(scorer, static_cast<int>(batch.size), config, strategy);
}

}  // namespace heed::decode
