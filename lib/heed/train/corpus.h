// The data of a training run: the parallel corpus read and length-filtered, vocabularies built
// (or taken from files or a checkpoint), sentences as ids, guided-alignment links, and the
// validation pairs with their detokenized references. With BPE-dropout (bpe_dropout.h) the
// training pairs are also kept as text, for each epoch's segmentation.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heed/model/batch.h"
#include "heed/text/vocab.h"
#include "heed/train/bpe_dropout.h"

namespace heed::train {

struct TrainConfig;

struct TrainingData {
  text::Vocab src_vocab, tgt_vocab;
  // With BPE-dropout, the plain segmentation until the trainer sets each epoch's (dropout).
  std::vector<model::Example> train;
  std::vector<model::Example> valid;
  std::vector<std::string> valid_refs;  // detokenized validation targets, for BLEU
  // TrainConfig::bpe_dropout: the training pairs as text, segmented afresh for every epoch;
  // null without.
  std::unique_ptr<BpeDropout> dropout;
};

// Reads every input of config exactly once (they may be pipes). With vocabularies (a resumed
// checkpoint's), those are used; otherwise they are loaded from config's vocabulary files or
// built from the training data. DataError names file and line for bad input.
//
// With config.bpe_dropout, training and validation text are tokenized but not BPE-segmented
// (BpeDropout::text_of refuses a line that is): the length filter and the validation pairs use
// their plain BPE segmentation, and the vocabularies, built, hold every token a segmentation can
// give (most frequent in the plain segmentation first, then the others, count 0).
TrainingData load_training_data(const TrainConfig& config, const text::Vocab* src_vocab = nullptr,
                                const text::Vocab* tgt_vocab = nullptr);

}  // namespace heed::train
