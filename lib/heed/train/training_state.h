// Everything a resumed run needs besides weights and optimizer moments, stored in a checkpoint's
// metadata (key "train_state") as one "name value" line per field, so that a field can be added
// without breaking older checkpoints. Checkpoints from before the named format (ten positional
// numbers, then the RNG) are still read.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "heed/train/curves.h"

namespace heed::train {

struct TrainingState {
  int64_t step = 0;
  int64_t epoch = 0;
  int64_t next_batch = 0;  // index into the epoch's plan
  double elapsed = 0;      // training seconds so far
  std::string rng;         // the dropout RNG of rank 0, as text
  float lr_current = 0;
  double lr_best = 0;
  int lr_bad = 0;
  double best_ppl = std::numeric_limits<double>::infinity();
  double best_bleu = 0;
  int bad_validations = 0;
  int64_t best_step = 0;  // of the best validation (0: none yet; absent from older checkpoints)
  int world_size = 1;     // processes that trained up to here (any number may resume)
  // The steps of this run's kept models (--keep-models), oldest first: the files it may prune.
  std::vector<int64_t> kept_steps;
  bool kept_steps_recorded = true;  // false: read from a checkpoint that predates the field
  // The metrics rows so far, as DIR/curves.svg draws them (empty from older checkpoints).
  std::vector<CurvePoint> curve;

  std::string to_text() const;
  // FormatError naming source for malformed text, a missing field or a newer format.
  static TrainingState from_text(const std::string& text, const std::string& source);
};

}  // namespace heed::train
