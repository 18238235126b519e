// Feed-forward attention pooling (Raffel & Ellis 2015): attention with no query.
//   e_s = tanh(w·h_s + b),  α = softmax(e) over the sequence's own positions,  c = Σ_s α_s h_s
// One vector per sequence, whatever its length. It is the `ff-pool` attention mechanism (the
// same context at every decoder step), the `ff-pool` bridge, and the pooling of the long-term-
// memory experiment (heed-pooling). Parameters: w [K], b [1], owned by the caller's store.
#pragma once

#include <cstdint>
#include <vector>

#include "heed/attention/normalization.h"
#include "heed/layers/parameters.h"
#include "heed/tensor/tensor.h"

namespace heed::attention {

class FeedForwardPool {
 public:
  // Adds prefix + "w" [K] and prefix + "b" [1] to store.
  FeedForwardPool(int64_t width, layers::ParameterStore& store, const std::string& prefix,
                  Normalizer normalizer = Normalizer::kSoftmax);

  int64_t width() const { return width_; }

  // keys [S, N, K] time-major, lengths[n] in [1, S] → pooled [N, K] and, when not null, the
  // weights [N, S] (exactly 0 past each length). keys must stay alive and unchanged until
  // backward().
  void forward(const tensor::Tensor& keys, const std::vector<int64_t>& lengths,
               tensor::Tensor& pooled, tensor::Tensor* weights = nullptr);
  // d_pooled [N, K] → adds to d_keys [S, N, K]; w and b gradients accumulate.
  void backward(const tensor::Tensor& d_pooled, tensor::Tensor& d_keys);
  // The weights of the last forward, [N, S].
  const tensor::Tensor& weights() const { return alpha_; }

 private:
  int64_t width_;
  Normalizer normalizer_;
  layers::Parameter& w_;
  layers::Parameter& b_;
  tensor::Tensor keys_;     // view of the last forward's keys
  tensor::Tensor energy_;   // [N, S] tanh(w·h + b)
  tensor::Tensor alpha_;    // [N, S]
  tensor::Tensor d_alpha_;  // [N, S]
  std::vector<Span> spans_;
  std::vector<double> row_, mean_;  // backward: d α [N, S] and each row's α-weighted mean
};

}  // namespace heed::attention
