#include "heed/train/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/common/error.h"

namespace heed::train {

void LrScheduleConfig::validate() const {
  if (!(lr > 0.0f)) throw ConfigError("--lr must be positive");
  if (warmup_steps < 0) throw ConfigError("--warmup-steps must not be negative");
  if (!(decay_factor > 0.0f && decay_factor < 1.0f))
    throw ConfigError("--lr-decay must be in (0, 1)");
  if (patience < 0) throw ConfigError("--lr-patience must not be negative");
  if (!(min_lr >= 0.0f && min_lr <= lr)) throw ConfigError("--min-lr must be in [0, --lr]");
  if (type == LrScheduleType::kInvSqrt && warmup_steps == 0) {
    throw ConfigError(
        "--lr-schedule inv-sqrt needs --warmup-steps > 0 (after the warm-up the rate is "
        "lr·√(warmup/step))");
  }
  if (type == LrScheduleType::kCosine && total_steps <= warmup_steps) {
    throw ConfigError(
        "--lr-schedule cosine decays to the end of the run: give --max-steps, above "
        "--warmup-steps");
  }
}

LrScheduleType parse_lr_schedule(const std::string& name) {
  if (name == "constant") return LrScheduleType::kConstant;
  if (name == "warmup") return LrScheduleType::kWarmup;
  if (name == "plateau") return LrScheduleType::kPlateau;
  if (name == "inv-sqrt") return LrScheduleType::kInvSqrt;
  if (name == "cosine") return LrScheduleType::kCosine;
  throw ConfigError("--lr-schedule: unknown value '" + name +
                    "' (expected constant, warmup, plateau, inv-sqrt or cosine)");
}

std::string to_string(LrScheduleType type) {
  switch (type) {
    case LrScheduleType::kConstant:
      return "constant";
    case LrScheduleType::kWarmup:
      return "warmup";
    case LrScheduleType::kPlateau:
      return "plateau";
    case LrScheduleType::kInvSqrt:
      return "inv-sqrt";
    case LrScheduleType::kCosine:
      return "cosine";
  }
  return "constant";
}

LrSchedule::LrSchedule(const LrScheduleConfig& config)
    : config_(config), current_(config.lr), best_(std::numeric_limits<double>::infinity()) {
  config_.validate();
}

float LrSchedule::lr(int64_t step) const {
  const int64_t warmup = config_.warmup_steps;
  step = std::max<int64_t>(step, 1);
  if (warmup > 0 && step < warmup) {
    return current_ * static_cast<float>(step) / static_cast<float>(warmup);
  }
  switch (config_.type) {
    case LrScheduleType::kInvSqrt:
      return std::max(config_.min_lr,
                      current_ * static_cast<float>(std::sqrt(double(warmup) / double(step))));
    case LrScheduleType::kCosine: {
      const double progress =
          std::min(1.0, double(step - warmup) / double(config_.total_steps - warmup));
      const double cosine = 0.5 * (1.0 + std::cos(M_PI * progress));
      const double floor = config_.min_lr;
      return static_cast<float>(floor + (double(current_) - floor) * cosine);
    }
    default:
      return current_;
  }
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
