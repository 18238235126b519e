// Learning-rate schedules: constant, linear warm-up, and decay on plateau (the halving on a
// validation plateau that the Multi30k peer uses). The state is a few numbers that
// checkpoints keep.
#pragma once

#include <cstdint>
#include <string>

namespace heed::train {

enum class LrScheduleType { kConstant, kWarmup, kPlateau };

struct LrScheduleConfig {
  LrScheduleType type = LrScheduleType::kPlateau;
  float lr = 1e-3f;           // base learning rate
  int64_t warmup_steps = 0;   // linear ramp from lr/warmup to lr (any type)
  float decay_factor = 0.5f;  // plateau: multiply by this
  int patience = 0;           // plateau: validations without improvement before decaying
  float min_lr = 1e-6f;       // plateau: never below
  void validate() const;
};

LrScheduleType parse_lr_schedule(const std::string& name);  // constant | warmup | plateau
std::string to_string(LrScheduleType type);

class LrSchedule {
 public:
  explicit LrSchedule(const LrScheduleConfig& config);
  // Learning rate for update number step (1-based).
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
