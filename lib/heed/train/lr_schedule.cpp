#include "heed/train/lr_schedule.h"

#include <algorithm>
#include <limits>

#include "heed/common/error.h"

namespace heed::train {

void LrScheduleConfig::validate() const {
  if (!(lr > 0.0f)) throw ConfigError("--lr must be positive");
  if (warmup_steps < 0) throw ConfigError("--warmup-steps must not be negative");
  if (!(decay_factor > 0.0f && decay_factor < 1.0f))
    throw ConfigError("--lr-decay must be in (0, 1)");
  if (patience < 0) throw ConfigError("--lr-patience must not be negative");
  if (!(min_lr >= 0.0f)) throw ConfigError("--min-lr must not be negative");
}

LrScheduleType parse_lr_schedule(const std::string& name) {
  if (name == "constant") return LrScheduleType::kConstant;
  if (name == "warmup") return LrScheduleType::kWarmup;
  if (name == "plateau") return LrScheduleType::kPlateau;
  throw ConfigError("--lr-schedule: unknown value '" + name +
                    "' (expected constant, warmup or plateau)");
}

std::string to_string(LrScheduleType type) {
  switch (type) {
    case LrScheduleType::kConstant:
      return "constant";
    case LrScheduleType::kWarmup:
      return "warmup";
    case LrScheduleType::kPlateau:
      return "plateau";
  }
  return "constant";
}

LrSchedule::LrSchedule(const LrScheduleConfig& config)
    : config_(config), current_(config.lr), best_(std::numeric_limits<double>::infinity()) {
  config_.validate();
}

float LrSchedule::lr(int64_t step) const {
  if (config_.warmup_steps > 0 && step < config_.warmup_steps) {
    return current_ * static_cast<float>(std::max<int64_t>(step, 1)) /
           static_cast<float>(config_.warmup_steps);
  }
  return current_;
}

bool LrSchedule::on_validation(double score) {
  if (score < best_) {
    best_ = score;
    bad_ = 0;
    return false;
  }
  if (config_.type != LrScheduleType::kPlateau) return false;
  if (++bad_ <= config_.patience) return false;
  bad_ = 0;
  const float next = std::max(config_.min_lr, current_ * config_.decay_factor);
  const bool decayed = next < current_;
  current_ = next;
  return decayed;
}

void LrSchedule::restore(float current, double best, int bad_validations) {
  current_ = current;
  best_ = best;
  bad_ = bad_validations;
}

}  // namespace heed::train
