// The training loop behind heed-train: batches, the learning-rate schedule, early stopping and
// checkpoints, over the parts in their own units — its configuration (config.h), the data
// (corpus.h), one update (update.h),
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
#include <string>

#include "heed/train/config.h"

namespace heed::train {

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
