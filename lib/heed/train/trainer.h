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
//   DIR/model.heed       the best model by validation perplexity or BLEU (--valid-metric; the
//                        last one without validation data), a plain model file; with
//                        --exponential-smoothing its weights are the moving average
//   DIR/model.step-K.heed  with --keep-models N: the model (averaged weights too) at each of the
//                        last N checkpoints, for checkpoint averaging (heed-average)
#pragma once

#include <cstdint>
#include <functional>
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
  // Metadata stored in every model file (the tokenizer options and BPE codes of the data).
  std::map<std::string, std::string> extra;
  // Testing aid: the process kills itself with SIGKILL right after this update (0 = never).
  int64_t kill_after_step = 0;

  // ConfigError for impossible settings; FileError/WriteError for unreadable inputs or an
  // unwritable output directory. Completes model (ModelConfig::validate: the canonical attention
  // name, which --resume compares with the checkpoint's). Cheap: runs before any data is read.
  void validate();
  // The schedule with its step budget filled in.
  LrScheduleConfig schedule_config() const;
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
  double best_valid_ppl = 0;  // of the best model (by valid_metric)
  double best_valid_bleu = 0;
  int64_t best_step = 0;
  bool validated = false;  // false without validation data (the best_valid_* are then 0)
  double seconds = 0;
  std::string stop_reason;           // "max-steps", "max-epochs", "time-limit", "early-stopping"
  int processes = 1;                 // the data-parallel world size
  double tokens = 0;                 // target tokens trained on in this run (all processes)
  int64_t run_steps = 0;             // updates made by this run (after --resume: since the resume)
  double run_seconds = 0;            // of this run
  double communication_seconds = 0;  // of run_seconds, summing gradients across processes
  // Why the --metrics-file lacks rows ("" when none is missing): training went on without them.
  std::string metrics_failure;
};

// Runs the whole training. progress is called after every update (the tool draws a bar or logs
// a line now and then). Throws Interrupted after saving a checkpoint (and, without validation
// data, the model) when SIGINT/SIGTERM arrive once training has begun (GracefulStop; before,
// with nothing to save, they end the process at once), DataError for a NaN/inf loss (the last
// checkpoint stays).
TrainResult train(const TrainConfig& config,
                  const std::function<void(const TrainProgress&)>& progress = {});

}  // namespace heed::train
