// "local-p" (Luong et al. 2015, predictive local attention): each query predicts its centre
//   p = L · sigmoid(v_pᵀ tanh(W_p q))
// with L the sentence's own length (Luong's S; in a padded batch each sentence uses its own, so
// a sentence's result does not depend on its batch), attends the window [round(p) − D,
// round(p) + D] (--window D) with the "general" score qᵀ W_a h_s, and multiplies the normalised
// weights by exp(−(s − p)² / 2σ²), σ = D/2, not renormalised (as Luong). The Gaussian is what
// trains W_p and v_p: the window's position is piecewise constant in p, so no gradient flows
// through the choice of window (as in Luong).
#include <cmath>

#include "heed/attention/local_attention.h"

namespace heed::attention {
namespace {

using tensor::Shape;
using tensor::Tensor;

class PredictiveLocalAttention : public LocalAttention {
 public:
  PredictiveLocalAttention(const AttentionConfig& config, layers::ParameterStore& store,
                           const std::string& prefix)
      : LocalAttention("local-p", config, store, prefix),
        dim_(resolved_attention_dim(config)),
        w_position_(store.add(prefix + "w_position", Shape{dim_, config.query_size})),
        v_position_(store.add(prefix + "v_position", Shape{dim_})),
        position_linear_(config.query_size, dim_, config.precision) {
    position_linear_.set_weights(w_position_.value, nullptr);
    gaussian_sigma_ = float(window_) / 2.f;
  }

  void weights_changed() override {
    LocalAttention::weights_changed();
    position_linear_.weights_changed();
  }

 protected:
  void centres(const Tensor& query, int64_t, float* out, AttentionTape* tape) override {
    const int64_t tq = query.dim(0), n = batch();
    // hidden [Tq, N, A] = tanh(W_p q), kept for the backward.
    Tensor& hidden = tape ? tape->slot(0) : hidden_;
    hidden.resize(Shape{tq, n, dim_});
    position_linear_.forward(query, hidden, onednn::Activation::kTanh);
    const float* v = v_position_.value.data();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t t = 0; t < tq; ++t) {
        const float* u = hidden.data() + (t * n + b) * dim_;
        double z = 0;
        for (int64_t k = 0; k < dim_; ++k) z += double(v[k]) * double(u[k]);
        out[b * tq + t] = float(double(lengths_[size_t(b)]) / (1.0 + std::exp(-z)));
      }
    }
  }

  // dL/dp → dL/dq through p = L·σ(z), z = vᵀu, u = tanh(W_p q): dp/dz = p·(1 − p/L).
  void centres_backward(AttentionTape& tape, const float* d_centres, Tensor& d_query) override {
    const Tensor& hidden = tape.slot(0);
    const int64_t tq = hidden.dim(0), n = hidden.dim(1);
    d_hidden_.resize(hidden.shape());
    const float* v = v_position_.value.data();
    float* dv = v_position_.grad.data();
    for (int64_t b = 0; b < n; ++b) {
      const double length = double(lengths_[size_t(b)]);
      for (int64_t t = 0; t < tq; ++t) {
        const int64_t r = b * tq + t;
        const double p = double(tape.centres.data()[r]);
        const float dz = float(double(d_centres[r]) * p * (1.0 - p / length));
        const float* u = hidden.data() + (t * n + b) * dim_;
        float* du = d_hidden_.data() + (t * n + b) * dim_;
        for (int64_t k = 0; k < dim_; ++k) {
          dv[k] += dz * u[k];
          du[k] = dz * v[k] * (1.f - u[k] * u[k]);
        }
      }
    }
    position_linear_.backward(tape.query, d_hidden_, &d_query, w_position_.grad, nullptr,
                              /*accumulate_dx=*/true);
  }

 private:
  int64_t dim_;
  layers::Parameter& w_position_;
  layers::Parameter& v_position_;
  onednn::Linear position_linear_;
  Tensor hidden_, d_hidden_;
};

}  // namespace

void register_local_p() {
  AttentionInfo info;
  info.name = "local-p";
  info.summary =
      "q·W h over the window [p - D, p + D], p = L·sigmoid(v_position·tanh(w_position q)), "
      "weights × Gaussian (sigma = D/2) around p (Luong local-p; weight [Q, K], "
      "w_position [A, Q], v_position [A])";
  info.has_parameters = true;
  info.options = {window_option()};
  info.flops = [](const AttentionShape& shape, const AttentionConfig& config) {
    AttentionFlops flops = local_flops(shape, config);
    // The centre: tanh(W_p q), then v_pᵀ of it (backward: dv_p and the projection's two).
    const int64_t a = resolved_attention_dim(config);
    add_query_projection_flops(flops, shape, config.query_size, a);
    const double centre = 2.0 * double(shape.batch * shape.queries * a);
    flops.forward += centre;
    flops.backward += centre;
    return flops;
  };
  info.factory = [](const AttentionConfig& config, layers::ParameterStore& store,
                    const std::string& prefix) {
    return std::make_unique<PredictiveLocalAttention>(config, store, prefix);
  };
  register_attention(std::move(info));
}

}  // namespace heed::attention
