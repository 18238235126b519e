// The data of a training run: the parallel corpus read and length-filtered, vocabularies built
// (or taken from files or a checkpoint), sentences as ids, guided-alignment links, and the
// validation pairs with their detokenized references.
#pragma once

#include <string>
#include <vector>

#include "heed/model/batch.h"
#include "heed/text/vocab.h"

namespace heed::train {

struct TrainConfig;

struct TrainingData {
  text::Vocab src_vocab, tgt_vocab;
  std::vector<model::Example> train;
  std::vector<model::Example> valid;
  std::vector<std::string> valid_refs;  // detokenized validation targets, for BLEU
};

// Reads every input of config exactly once (they may be pipes). With vocabularies (a resumed
// checkpoint's), those are used; otherwise they are loaded from config's vocabulary files or
// built from the training data. DataError names file and line for bad input.
TrainingData load_training_data(const TrainConfig& config, const text::Vocab* src_vocab = nullptr,
                                const text::Vocab* tgt_vocab = nullptr);

}  // namespace heed::train
