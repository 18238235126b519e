// TrainConfig: everything of a training run that is not the architecture (model::ModelConfig,
// which it holds) — the data, the batches, the optimizer and schedule, the limits and the
// output — and its one validation. heed-train fills it from its options; the trainer
// (trainer.h) runs it, and the training data (corpus.h) is read by it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "heed/model/config.h"
#include "heed/onednn/precision.h"
#include "heed/train/batcher.h"
#include "heed/train/lr_schedule.h"
#include "heed/train/optimizer.h"

namespace heed::train {

enum class ValidMetric { kPerplexity, kBleu };
ValidMetric parse_valid_metric(const std::string& name);  // perplexity | bleu
std::string to_string(ValidMetric metric);

struct TrainConfig {
  // Data: two line-aligned files, or one `src ||| tgt` / TSV file, already tokenized.
  std::string train_src, train_tgt, train_file;
  std::string valid_src, valid_tgt;
  std::string src_vocab_file, tgt_vocab_file;  // heed-tokenize vocab output; else built
  long long vocab_size = 8000;                 // built vocabularies: ids in all (0 = no cap)
  long long vocab_min_count = 1;
  int max_length = 100;  // pairs with a side longer (in tokens) are dropped, and counted
  // BPE-dropout (Provilkov et al. 2020; bpe_dropout.h): training and validation text are
  // tokenized but not BPE-segmented, and are segmented here with the BPE codes extra records
  // (heed-train --bpe) — the training text afresh for every epoch, each merge dropped with this
  // probability, the validation text plainly. The vocabularies are built to hold every token a
  // segmentation can give. 0 = off: the text is taken as given.
  float bpe_dropout = 0.f;

  model::ModelConfig model;
  BatcherOptions batching;
  OptimizerConfig optimizer;
  LrScheduleConfig schedule;  // its total_steps is max_steps (schedule_config())
  // Exponential moving average of the weights, as Marian's --exponential-smoothing: after update
  // t, avg ← (1 − d)·avg + d·w with d = max(ema_decay, 1 − (t + 1)/(t + 10)). Validation, the best
  // model and the kept models use the average; checkpoints keep both. 0 = off.
  float ema_decay = 0.f;
  float clip_norm = 5.f;
  float label_smoothing = 0.1f;
  // Guided alignment: zero-based Pharaoh word links, one line per training pair (words as
  // heed-tokenize's joiners delimit them), and the weight of the loss term pulling the
  // attention towards them (model/seq2seq.h LossOptions). Empty: none.
  std::string guided_alignment;
  float guided_alignment_weight = 0.1f;

  std::string output;         // directory
  int64_t max_steps = 0;      // 0 = no limit
  int64_t max_epochs = 0;     // 0 = no limit (one of the limits must be set)
  double time_limit = 0;      // seconds of training, 0 = none
  int64_t valid_every = 500;  // steps between validations (0 = only at the end)
  int64_t save_every = 500;   // steps between checkpoints (0 = at validations and the end)
  int patience = 0;           // early stopping after this many validations without gain (0 = off)
  ValidMetric valid_metric = ValidMetric::kPerplexity;  // picks the best model, drives patience
  int64_t log_every = 100;          // a metrics row (loss, lr, tokens/s) every this many updates
  int keep_models = 0;              // DIR/model.step-K.heed of the last N checkpoints (0 = none)
  int64_t valid_max_sentences = 0;  // BLEU on the first N validation pairs (0 = all)
  onednn::Precision precision = onednn::Precision::kF32;
  uint64_t seed = 1;
  float init_scale = 0.1f;
  bool resume = false;
  // Start a new run where another run's files are (its checkpoint, model.heed, kept models:
  // removed first). Without it they are refused; with --resume, a contradiction.
  bool overwrite = false;
  // The architecture and schedule options the user gave (names without "--"): on --resume the
  // checkpoint's values win, and each given one that differs is named in a warning. Also
  // vocab-size and vocab-min-count, which --bpe-dropout refuses.
  std::set<std::string> given;
  std::string metrics_file;  // TSV; empty = none
  // TSV of where the updates after the first metrics window spent their time, phase by phase
  // (common/profile.h), written at the end; empty = not measured.
  std::string profile_file;
  // Metadata stored in every model file (the tokenizer options and BPE codes of the data).
  std::map<std::string, std::string> extra;
  // Testing aid: the process kills itself with SIGKILL right after this update (0 = never).
  int64_t kill_after_step = 0;

  // ConfigError for impossible settings; FileError for inputs that are missing or directories
  // (regular files' line counts are compared; pipes are not read). Completes model
  // (ModelConfig::validate: the canonical attention name, which --resume compares with the
  // checkpoint's, and the resolved attention the model is built from). Has no side effects:
  // what a run writes (the output directory, the metrics file) is made and checked by the steps
  // that write it. Cheap: runs before any data is read.
  void validate();
  // The schedule with its step budget filled in.
  LrScheduleConfig schedule_config() const;
};

}  // namespace heed::train
