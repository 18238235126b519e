// Adam (Kingma & Ba 2015) with PyTorch's conventions: bias-corrected moments, epsilon added
// after the square root, L2 weight decay added to the gradient.
#include <cmath>

#include "heed/common/error.h"
#include "heed/train/optimizer.h"

namespace heed::train {
namespace {

class Adam : public Optimizer {
 public:
  explicit Adam(const OptimizerConfig& config) : config_(config) {}

  void step(const std::vector<ParamRef>& params, float lr, float grad_scale) override {
    ensure_state(params);
    ++step_;
    const double correction1 =
        1.0 - std::pow(static_cast<double>(config_.beta1), static_cast<double>(step_));
    const double correction2 =
        1.0 - std::pow(static_cast<double>(config_.beta2), static_cast<double>(step_));
    const float step_size = static_cast<float>(static_cast<double>(lr) / correction1);
    const float sqrt_c2 = static_cast<float>(std::sqrt(correction2));
    const float b1 = config_.beta1, b2 = config_.beta2, eps = config_.epsilon,
                wd = config_.weight_decay;
    // One pass over values, gradients and moments, split between the threads, vectorised
    // (adam.cpp is built with -fno-math-errno so that the square root vectorises).
#pragma omp parallel
    for (size_t p = 0; p < params.size(); ++p) {
      float* w = params[p].value;
      const float* g = params[p].grad;
      float* m = m_[p].data();
      float* v = v_[p].data();
      const auto n = static_cast<int64_t>(params[p].size);
#pragma omp for simd schedule(static)
      for (int64_t i = 0; i < n; ++i) {
        const float gi = g[i] * grad_scale + wd * w[i];
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        w[i] -= step_size * m[i] / (std::sqrt(v[i]) / sqrt_c2 + eps);
      }
    }
  }

  void save_state(const std::vector<ParamRef>& params, io::SafeTensors& out) const override {
    save_step_count(step_, out);
    for (size_t p = 0; p < params.size(); ++p) {
      const auto n = static_cast<int64_t>(params[p].size);
      // Before the first step the moments are zero.
      const std::vector<float> zeros(m_.size() == params.size() ? 0 : params[p].size, 0.0f);
      out.add_f32("adam/m/" + params[p].name, {n}, zeros.empty() ? m_[p].data() : zeros.data());
      out.add_f32("adam/v/" + params[p].name, {n}, zeros.empty() ? v_[p].data() : zeros.data());
    }
  }

  void load_state(const std::vector<ParamRef>& params, const io::SafeTensors& in) override {
    const int64_t steps = load_step_count(in);
    ensure_state(params);
    for (size_t p = 0; p < params.size(); ++p) {
      for (auto* target : {&m_[p], &v_[p]}) {
        const std::string name = (target == &m_[p] ? "adam/m/" : "adam/v/") + params[p].name;
        std::vector<float> values = in.get(name).as_f32();
        if (values.size() != params[p].size) {
          throw FormatError("checkpoint tensor '" + name + "' has the wrong size");
        }
        *target = std::move(values);
      }
    }
    step_ = steps;
  }

  int64_t steps() const override {
    return step_;
  }

 private:
  void ensure_state(const std::vector<ParamRef>& params) {
    if (m_.size() == params.size()) return;
    m_.assign(params.size(), {});
    v_.assign(params.size(), {});
    for (size_t p = 0; p < params.size(); ++p) {
      m_[p].assign(params[p].size, 0.0f);
      v_[p].assign(params[p].size, 0.0f);
    }
  }

  OptimizerConfig config_;
  int64_t step_ = 0;
  std::vector<std::vector<float>> m_, v_;
};

}  // namespace

std::unique_ptr<Optimizer> make_adam(const OptimizerConfig& config) {
  return std::make_unique<Adam>(config);
}

}  // namespace heed::train
