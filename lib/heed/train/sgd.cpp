// SGD with optional momentum and L2 weight decay, as PyTorch's torch.optim.SGD (dampening 0).

#include "heed/common/error.h"
#include "heed/train/optimizer.h"

namespace heed::train {
namespace {

class Sgd : public Optimizer {
 public:
  explicit Sgd(const OptimizerConfig& config) : config_(config) {}

  void step(const std::vector<ParamRef>& params, float lr, float grad_scale) override {
    if (config_.momentum > 0.0f && buffers_.size() != params.size()) {
      buffers_.assign(params.size(), {});
      for (size_t p = 0; p < params.size(); ++p) buffers_[p].assign(params[p].size, 0.0f);
    }
    const bool first = step_ == 0;
    ++step_;
    for (size_t p = 0; p < params.size(); ++p) {
      float* w = params[p].value;
      const float* g = params[p].grad;
      for (size_t i = 0; i < params[p].size; ++i) {
        float d = g[i] * grad_scale + config_.weight_decay * w[i];
        if (config_.momentum > 0.0f) {
          float& b = buffers_[p][i];
          b = first ? d : config_.momentum * b + d;  // PyTorch starts the buffer at the gradient
          d = b;
        }
        w[i] -= lr * d;
      }
    }
  }

  void save_state(const std::vector<ParamRef>& params, io::SafeTensors& out) const override {
    save_step_count(step_, out);
    if (buffers_.size() != params.size()) return;
    for (size_t p = 0; p < params.size(); ++p) {
      out.add_f32("sgd/momentum/" + params[p].name, {static_cast<int64_t>(params[p].size)},
                  buffers_[p].data());
    }
  }

  void load_state(const std::vector<ParamRef>& params, const io::SafeTensors& in) override {
    step_ = load_step_count(in);
    buffers_.clear();
    if (config_.momentum <= 0.0f || params.empty() || !in.has("sgd/momentum/" + params[0].name))
      return;
    for (const auto& param : params) {
      std::vector<float> values = in.get("sgd/momentum/" + param.name).as_f32();
      if (values.size() != param.size) {
        throw FormatError("checkpoint tensor 'sgd/momentum/" + param.name + "' has the wrong size");
      }
      buffers_.push_back(std::move(values));
    }
  }

  int64_t steps() const override { return step_; }

 private:
  OptimizerConfig config_;
  int64_t step_ = 0;
  std::vector<std::vector<float>> buffers_;
};

}  // namespace

std::unique_ptr<Optimizer> make_sgd(const OptimizerConfig& config) {
  return std::make_unique<Sgd>(config);
}

}  // namespace heed::train
