// The training loop behind heed-train: batches, the learning-rate schedule, early stopping and
// checkpoints, over the parts in their own units — the data (corpus.h), one update (update.h),
// validation (validator.h), the metrics file (metrics.h), the resumable state
// (training_state.h) and the processes of a data-parallel run (communicator.h). Checkpoints
// make a run resumable exactly — the state after update k (weights, optimizer moments, schedule,
// the position in the epoch's batch plan and the dropout RNG) is all a resumed run needs to make
// the same update k + 1 as an uninterrupted one.
//
// Output directory layout (man/heed-train.1):
//   DIR/checkpoint.heed  the last checkpoint: a model file plus optimizer and trainer state
//   DIR/model.heed       the best model by validation perplexity (the last one without
//                        validation data), a plain model file
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "heed/model/config.h"
#include "heed/onednn/precision.h"
#include "heed/train/batcher.h"
#include "heed/train/lr_schedule.h"
#include "heed/train/optimizer.h"

namespace heed::train {

struct TrainConfig {
  // Data: two line-aligned files, or one `src ||| tgt` / TSV file, already tokenized.
  std::string train_src, train_tgt, train_file;
  std::string valid_src, valid_tgt;
  std::string src_vocab_file, tgt_vocab_file;  // heed-tokenize vocab output; else built
  long long vocab_size = 8000;                 // built vocabularies: ids in all (0 = no cap)
  long long vocab_min_count = 1;
  int max_length = 100;  // pairs with a side longer (in tokens) are dropped, and counted

  model::ModelConfig model;
  BatcherOptions batching;
  OptimizerConfig optimizer;
  LrScheduleConfig schedule;
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
  int64_t valid_max_sentences = 0;  // BLEU on the first N validation pairs (0 = all)
  onednn::Precision precision = onednn::Precision::kF32;
  uint64_t seed = 1;
  float init_scale = 0.1f;
  bool resume = false;
  std::string metrics_file;  // TSV; empty = none
  // Metadata stored in every model file (the tokenizer options and BPE codes of the data).
  std::map<std::string, std::string> extra;
  // Testing aid: the process kills itself with SIGKILL right after this update (0 = never).
  int64_t kill_after_step = 0;

  // ConfigError for impossible settings; FileError/WriteError for unreadable inputs or an
  // unwritable output directory. Cheap: runs before any data is read.
  void validate() const;
};

struct TrainProgress {
  int64_t step = 0;
  int64_t epoch = 0;
  double fraction = 0;  // of the run, by the binding limit (steps, epochs or time)
  double loss = 0;      // mean over the recent updates
  double tokens_per_second = 0;
  double elapsed = 0;
  float lr = 0;
};

struct TrainResult {
  int64_t steps = 0;
  int64_t epochs = 0;
  double best_valid_ppl = 0;
  double best_valid_bleu = 0;
  bool validated = false;  // false without validation data (the best_valid_* are then 0)
  double seconds = 0;
  std::string stop_reason;           // "max-steps", "max-epochs", "time-limit", "early-stopping"
  int processes = 1;                 // the data-parallel world size
  double tokens = 0;                 // target tokens trained on in this run (all processes)
  int64_t run_steps = 0;             // updates made by this run (after --resume: since the resume)
  double run_seconds = 0;            // of this run
  double communication_seconds = 0;  // of run_seconds, summing gradients across processes
};

// Runs the whole training. progress is called after every update (the tool draws a bar or logs
// a line now and then). Throws Interrupted after saving a checkpoint (and, without validation
// data, the model) when SIGINT/SIGTERM arrive (install_stop_handlers), DataError for a NaN/inf loss
// (the last checkpoint stays).
TrainResult train(const TrainConfig& config,
                  const std::function<void(const TrainProgress&)>& progress = {});

}  // namespace heed::train
