// Optimizers over named parameter buffers. Their state travels in checkpoints (as named
// tensors), so a resumed run continues exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/io/safetensors.h"

namespace heed::train {

// One parameter as the optimizer sees it: f32 values and their gradient, same size.
struct ParamRef {
  std::string name;
  float* value = nullptr;
  float* grad = nullptr;
  size_t size = 0;
};

enum class OptimizerType { kAdam, kSgd };

struct OptimizerConfig {
  OptimizerType type = OptimizerType::kAdam;
  float beta1 = 0.9f;         // Adam
  float beta2 = 0.999f;       // Adam
  float epsilon = 1e-8f;      // Adam, added after the square root (PyTorch)
  float momentum = 0.0f;      // SGD
  float weight_decay = 0.0f;  // L2 added to the gradient (PyTorch's weight_decay)
  void validate() const;
};

OptimizerType parse_optimizer(const std::string& name);  // "adam" | "sgd"; ConfigError otherwise
std::string to_string(OptimizerType type);

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  // One update of every parameter with learning rate lr, from the gradients times grad_scale
  // (clipping's coefficient, applied as the gradients are read instead of in a pass of its own).
  virtual void step(const std::vector<ParamRef>& params, float lr, float grad_scale) = 0;
  void step(const std::vector<ParamRef>& params, float lr) { step(params, lr, 1.0f); }
  // State as named tensors ("adam/m/<param>", …, "optimizer/step") for checkpoints.
  virtual void save_state(const std::vector<ParamRef>& params, io::SafeTensors& out) const = 0;
  // Restores it; FormatError naming the tensor when something is missing or mis-shaped.
  virtual void load_state(const std::vector<ParamRef>& params, const io::SafeTensors& in) = 0;
  virtual int64_t steps() const = 0;
};

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config);

// The update count every optimizer stores as "optimizer/step" (I64).
void save_step_count(int64_t steps, io::SafeTensors& out);
int64_t load_step_count(const io::SafeTensors& in);

// The L2 norm of all gradients together (NaN or inf propagate, so the caller can stop on them);
// multi-threaded, float sums over blocks added in double.
double global_norm(const std::vector<ParamRef>& params);
// Global-norm clipping as PyTorch's clip_grad_norm_: the factor max_norm / (norm + 1e-6) when
// the norm exceeds max_norm, else 1 (also when max_norm <= 0 or the norm is not finite).
float clip_coefficient(double norm, double max_norm);

}  // namespace heed::train
