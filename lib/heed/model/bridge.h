// The bridge: the decoder's initial hidden state, one H-slice per decoder layer, from what the
// encoder produced (docs/attention.md "Bridges"). Cell states start at zero whatever the bridge.
//   dense    tanh(W_b·finals + b_b)                 bridge/weight [L·H, K], bridge/bias [L·H]
//   zero     0
//   mean     the mean of the sentence's keys         (no parameters)
//   last     the encoder's final states (finals)     (no parameters)
//   ff-pool  feed-forward attention pooling of the keys (Raffel & Ellis 2015):
//            Σ_s softmax(tanh(w·h_s + b))_s h_s       bridge/pool/w [K], bridge/pool/b [1]
// The parameter-free bridges and ff-pool hand every layer a K-wide vector, so they need K = H
// (true of every heed model: the encoder's output width is the decoder's hidden size).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heed/layers/parameters.h"
#include "heed/model/config.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::model {

class Bridge {
 public:
  virtual ~Bridge() = default;
  // keys [S, N, K] (with lengths) and finals [N, K] → out [N, L·H]. The inputs must stay alive
  // and unchanged until backward().
  virtual void forward(const tensor::Tensor& keys, const std::vector<int64_t>& lengths,
                       const tensor::Tensor& finals, tensor::Tensor& out) = 0;
  // d_out [N, L·H] → adds to d_keys [S, N, K] and d_finals [N, K]; parameter gradients
  // accumulate.
  virtual void backward(const tensor::Tensor& d_out, tensor::Tensor& d_keys,
                        tensor::Tensor& d_finals) = 0;
  virtual void weights_changed() {}
  // Whether the gradient reaches the encoder's finals (the encoder's backward can skip it).
  virtual bool uses_finals() const { return false; }
};

// Adds the bridge's parameters to store (under "bridge/").
std::unique_ptr<Bridge> make_bridge(const ModelConfig& config, onednn::Precision precision,
                                    layers::ParameterStore& store);

}  // namespace heed::model
