// One training update — the step that the trainer repeats and bench/train_phases times:
// gradients of the batch's mean loss, global-norm clipping, and the optimizer step.
#pragma once

#include <vector>

#include "heed/common/rng.h"
#include "heed/layers/output.h"
#include "heed/model/batch.h"
#include "heed/model/seq2seq.h"
#include "heed/train/communicator.h"
#include "heed/train/optimizer.h"

namespace heed::train {

struct UpdateResult {
  layers::LossSums sums;  // of the global batch
  double loss = 0;        // the objective per target token
  double grad_norm = 0;   // the gradients' global L2 norm before clipping
  // false when the loss or the norm is not finite: then neither the weights nor the
  // optimizer's state changed, and the caller decides what to do.
  bool applied = false;
};

// Clears the gradients, accumulates those of the shard's loss, makes them (through world) the
// gradients of the global batch's mean loss, clips their global norm to clip_norm (0: no
// clipping) and, when the loss and the norm are finite, applies the optimizer at lr and lets the
// model repack its weights. shard is this process's part of the global batch (nullptr: none);
// with one process, the whole batch.
UpdateResult update(model::Seq2Seq& model, Optimizer& optimizer,
                    const std::vector<ParamRef>& params, const model::Batch* shard,
                    const model::LossOptions& options, double clip_norm, float lr, Rng& rng,
                    Communicator& world);

// One process: the whole batch.
UpdateResult update(model::Seq2Seq& model, Optimizer& optimizer,
                    const std::vector<ParamRef>& params, const model::Batch& batch,
                    const model::LossOptions& options, double clip_norm, float lr, Rng& rng);

}  // namespace heed::train
