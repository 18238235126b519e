#include "heed/train/optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "heed/common/error.h"

namespace heed::train {

std::unique_ptr<Optimizer> make_adam(const OptimizerConfig& config);
std::unique_ptr<Optimizer> make_sgd(const OptimizerConfig& config);

void OptimizerConfig::validate() const {
  if (!(beta1 >= 0.0f && beta1 < 1.0f) || !(beta2 >= 0.0f && beta2 < 1.0f)) {
    throw ConfigError("Adam betas must be in [0, 1)");
  }
  if (!(epsilon > 0.0f)) throw ConfigError("Adam epsilon must be positive");
  if (!(momentum >= 0.0f && momentum < 1.0f)) throw ConfigError("--momentum must be in [0, 1)");
  if (!(weight_decay >= 0.0f)) throw ConfigError("--weight-decay must not be negative");
}

OptimizerType parse_optimizer(const std::string& name) {
  if (name == "adam") return OptimizerType::kAdam;
  if (name == "sgd") return OptimizerType::kSgd;
  throw ConfigError("--optimizer: unknown value '" + name + "' (expected adam or sgd)");
}

std::string to_string(OptimizerType type) {
  return type == OptimizerType::kAdam ? "adam" : "sgd";
}

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config) {
  config.validate();
  return config.type == OptimizerType::kAdam ? make_adam(config) : make_sgd(config);
}

void save_step_count(int64_t steps, io::SafeTensors& out) {
  io::StoredTensor t{"optimizer/step", io::StoredType::kI64, {1}, std::vector<unsigned char>(8)};
  std::memcpy(t.bytes.data(), &steps, 8);
  out.add(std::move(t));
}

int64_t load_step_count(const io::SafeTensors& in) {
  const io::StoredTensor& s = in.get("optimizer/step");
  if (s.type != io::StoredType::kI64 || s.bytes.size() != 8) {
    throw FormatError("checkpoint tensor 'optimizer/step' is not one I64");
  }
  int64_t steps = 0;
  std::memcpy(&steps, s.bytes.data(), 8);
  return steps;
}

double global_norm(const std::vector<ParamRef>& params) {
  // Blocks short enough that a float sum of squares loses nothing that matters, long enough
  // to vectorise; the blocks' sums add up in double.
  constexpr size_t kBlock = 4096;
  std::vector<std::pair<const float*, size_t>> blocks;
  for (const auto& p : params) {
    for (size_t i = 0; i < p.size; i += kBlock) {
      blocks.emplace_back(p.grad + i, std::min(kBlock, p.size - i));
    }
  }
  double sum = 0.0;
  const auto count = static_cast<int64_t>(blocks.size());
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (int64_t b = 0; b < count; ++b) {
    const float* g = blocks[size_t(b)].first;
    const size_t n = blocks[size_t(b)].second;
    float partial = 0.0f;
#pragma omp simd reduction(+ : partial)
    for (size_t i = 0; i < n; ++i) partial += g[i] * g[i];
    sum += static_cast<double>(partial);
  }
  return std::sqrt(sum);
}

float clip_coefficient(double norm, double max_norm) {
  if (!(max_norm > 0.0) || !std::isfinite(norm)) return 1.0f;
  const double coef = max_norm / (norm + 1e-6);
  return coef < 1.0 ? static_cast<float>(coef) : 1.0f;
}

}  // namespace heed::train
