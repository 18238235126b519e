// Learning-rate schedules: constant, linear warm-up, decay on a validation plateau (the halving
// the Multi30k peer uses, with a patience and a floor), the inverse square root after warm-up
// (Vaswani et al. 2017; Marian's --lr-decay-inv-sqrt) and a cosine to the step budget
// (Loshchilov & Hutter 2017, without restarts). The state is a few numbers that checkpoints keep.
#pragma once

#include <cstdint>
#include <string>

namespace heed::train {

enum class LrScheduleType { kConstant, kWarmup, kPlateau, kInvSqrt, kCosine };

struct LrScheduleConfig {
  LrScheduleType type = LrScheduleType::kPlateau;
  float lr = 1e-3f;           // base (peak) learning rate
  int64_t warmup_steps = 0;   // linear ramp from lr/warmup to lr (any type)
  float decay_factor = 0.5f;  // plateau: multiply by this
  int patience = 0;           // plateau: validations without improvement before decaying
  float min_lr = 1e-6f;       // plateau, inv-sqrt, cosine: never below
  int64_t total_steps = 0;    // cosine: the rate reaches min_lr here (heed-train's --max-steps)
  void validate() const;
};

// constant | warmup | plateau | inv-sqrt | cosine
LrScheduleType parse_lr_schedule(const std::string& name);
std::string to_string(LrScheduleType type);

class LrSchedule {
 public:
  explicit LrSchedule(const LrScheduleConfig& config);
  // Learning rate for update number step (1-based):
  //   warm-up (step < W):  lr·step/W
  //   inv-sqrt:            lr·√(W/step)
  //   cosine:              min + (lr − min)·(1 + cos(π·(step − W)/(total − W)))/2
  //   plateau:             the current rate (halved on plateaus by on_validation)
  float lr(int64_t step) const;
  // Reports a validation score where lower is better (perplexity); returns true if it decayed.
  bool on_validation(double score);

  // Resumable state.
  float current() const { return current_; }
  double best() const { return best_; }
  int bad_validations() const { return bad_; }
  void restore(float current, double best, int bad_validations);

 private:
  LrScheduleConfig config_;
  float current_;
  double best_;
  int bad_ = 0;
};

}  // namespace heed::train
