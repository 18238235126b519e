#include "heed/model/bridge.h"

#include <cstring>

#include "heed/attention/feed_forward_pool.h"
#include "heed/common/check.h"
#include "heed/onednn/linear.h"
#include "heed/tensor/tensor_ops.h"

namespace heed::model {

using tensor::Shape;
using tensor::Tensor;

namespace {

// A bridge that computes one K-wide vector per sentence and hands it to every layer.
class SharedBridge : public Bridge {
 public:
  explicit SharedBridge(int layers) : layers_(layers) {}

  void forward(const Tensor& keys, const std::vector<int64_t>& lengths, const Tensor& finals,
               Tensor& out) final {
    state(keys, lengths, finals, state_);
    const int64_t n = state_.dim(0), k = state_.dim(1);
    out.resize(Shape{n, layers_ * k});
    for (int64_t b = 0; b < n; ++b) {
      for (int l = 0; l < layers_; ++l) {
        std::memcpy(out.data() + (b * layers_ + l) * k, state_.data() + b * k,
                    sizeof(float) * size_t(k));
      }
    }
  }

  void backward(const Tensor& d_out, Tensor& d_keys, Tensor& d_finals) final {
    const int64_t n = state_.dim(0), k = state_.dim(1);
    d_state_.resize(state_.shape());
    d_state_.zero();
    for (int64_t b = 0; b < n; ++b) {
      float* d = d_state_.data() + b * k;
      for (int l = 0; l < layers_; ++l) {
        const float* g = d_out.data() + (b * layers_ + l) * k;
        for (int64_t j = 0; j < k; ++j) d[j] += g[j];
      }
    }
    state_backward(d_state_, d_keys, d_finals);
  }

 protected:
  // The [N, K] vector and its backward.
  virtual void state(const Tensor& keys, const std::vector<int64_t>& lengths, const Tensor& finals,
                     Tensor& out) = 0;
  virtual void state_backward(const Tensor& d_state, Tensor& d_keys, Tensor& d_finals) = 0;

 private:
  int layers_;
  Tensor state_, d_state_;
};

class DenseBridge : public Bridge {
 public:
  DenseBridge(const ModelConfig& config, onednn::Precision precision, layers::ParameterStore& store)
      : weight_(store.add("bridge/weight", Shape{int64_t(config.decoder_layers) * config.hidden,
                                                 config.key_size()})),
        bias_(store.add("bridge/bias", Shape{int64_t(config.decoder_layers) * config.hidden})),
        linear_(config.key_size(), int64_t(config.decoder_layers) * config.hidden, precision) {
    linear_.set_weights(weight_.value, &bias_.value);
  }
  void forward(const Tensor&, const std::vector<int64_t>&, const Tensor& finals,
               Tensor& out) override {
    finals_ = finals.view(finals.shape());
    out.resize(Shape{finals.dim(0), linear_.out_features()});
    linear_.forward(finals, out, onednn::Activation::kTanh);
    out_ = out.view(out.shape());
  }
  void backward(const Tensor& d_out, Tensor&, Tensor& d_finals) override {
    d_pre_.resize(d_out.shape());
    tensor::tanh_backward(out_, d_out, d_pre_);
    linear_.backward(finals_, d_pre_, &d_finals, weight_.grad, &bias_.grad,
                     /*accumulate_dx=*/true);
  }
  void weights_changed() override { linear_.weights_changed(); }
  bool uses_finals() const override { return true; }

 private:
  layers::Parameter& weight_;
  layers::Parameter& bias_;
  onednn::Linear linear_;
  Tensor finals_, out_, d_pre_;
};

class ZeroBridge : public Bridge {
 public:
  explicit ZeroBridge(const ModelConfig& config)
      : width_(int64_t(config.decoder_layers) * config.hidden) {}
  void forward(const Tensor&, const std::vector<int64_t>&, const Tensor& finals,
               Tensor& out) override {
    out.resize(Shape{finals.dim(0), width_});
    out.zero();
  }
  void backward(const Tensor&, Tensor&, Tensor&) override {}

 private:
  int64_t width_;
};

class MeanBridge : public SharedBridge {
 public:
  explicit MeanBridge(const ModelConfig& config) : SharedBridge(config.decoder_layers) {}

 protected:
  void state(const Tensor& keys, const std::vector<int64_t>& lengths, const Tensor&,
             Tensor& out) override {
    const int64_t n = keys.dim(1), k = keys.dim(2);
    lengths_ = lengths;
    out.resize(Shape{n, k});
    out.zero();
    for (int64_t b = 0; b < n; ++b) {
      const int64_t len = lengths[size_t(b)];
      float* o = out.data() + b * k;
      for (int64_t i = 0; i < len; ++i) {
        const float* h = keys.data() + (i * n + b) * k;
        for (int64_t j = 0; j < k; ++j) o[j] += h[j];
      }
      const float inv = 1.f / float(len);
      for (int64_t j = 0; j < k; ++j) o[j] *= inv;
    }
  }
  void state_backward(const Tensor& d_state, Tensor& d_keys, Tensor&) override {
    const int64_t n = d_keys.dim(1), k = d_keys.dim(2);
    for (int64_t b = 0; b < n; ++b) {
      const int64_t len = lengths_[size_t(b)];
      const float inv = 1.f / float(len);
      const float* d = d_state.data() + b * k;
      for (int64_t i = 0; i < len; ++i) {
        float* dh = d_keys.data() + (i * n + b) * k;
        for (int64_t j = 0; j < k; ++j) dh[j] += d[j] * inv;
      }
    }
  }

 private:
  std::vector<int64_t> lengths_;
};

class LastBridge : public SharedBridge {
 public:
  explicit LastBridge(const ModelConfig& config) : SharedBridge(config.decoder_layers) {}
  bool uses_finals() const override { return true; }

 protected:
  void state(const Tensor&, const std::vector<int64_t>&, const Tensor& finals,
             Tensor& out) override {
    out.resize(finals.shape());
    tensor::copy(finals, out);
  }
  void state_backward(const Tensor& d_state, Tensor&, Tensor& d_finals) override {
    tensor::add(d_finals, d_state, d_finals);
  }
};

class PoolBridge : public SharedBridge {
 public:
  PoolBridge(const ModelConfig& config, layers::ParameterStore& store)
      : SharedBridge(config.decoder_layers), pool_(config.key_size(), store, "bridge/pool/") {}

 protected:
  void state(const Tensor& keys, const std::vector<int64_t>& lengths, const Tensor&,
             Tensor& out) override {
    pool_.forward(keys, lengths, out);
  }
  void state_backward(const Tensor& d_state, Tensor& d_keys, Tensor&) override {
    pool_.backward(d_state, d_keys);
  }

 private:
  attention::FeedForwardPool pool_;
};

}  // namespace

std::unique_ptr<Bridge> make_bridge(const ModelConfig& config, onednn::Precision precision,
                                    layers::ParameterStore& store) {
  switch (config.bridge) {
    case BridgeType::kDense:
      return std::make_unique<DenseBridge>(config, precision, store);
    case BridgeType::kZero:
      return std::make_unique<ZeroBridge>(config);
    case BridgeType::kMean:
      return std::make_unique<MeanBridge>(config);
    case BridgeType::kLast:
      return std::make_unique<LastBridge>(config);
    case BridgeType::kFeedForwardPool:
      return std::make_unique<PoolBridge>(config, store);
  }
  HEED_CHECK(false, "unknown bridge");
  return nullptr;
}

}  // namespace heed::model
