// The encoder: source embeddings → dropout → a stack of (bi)directional RNN layers. Each layer
// and direction is a PaddedRnn, so every sentence gets exactly the states it would get alone;
// a bidirectional layer writes [forward | backward] halves of its output. The top layer's
// outputs are the attention keys [S, N, K]; its final states (forward after the last token,
// backward after the first) concatenated are the bridge input [N, K].
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heed/common/rng.h"
#include "heed/layers/dropout.h"
#include "heed/layers/parameters.h"
#include "heed/model/config.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::model {

class Encoder {
 public:
  // Adds encoder/embedding/weight and encoder/rnn_<l>/{fwd,bwd}/… to store.
  Encoder(const ModelConfig& config, onednn::Precision precision, layers::ParameterStore& store);
  ~Encoder();

  // After the parameters changed in place (optimizer step, load).
  void weights_changed();

  // src batch-major [N, S], lengths[n] in [1, S]. training: keep what backward needs;
  // dropout_rng: apply dropout with masks from it (null: no dropout).
  void forward(const int32_t* src, const std::vector<int64_t>& lengths, int64_t n, int64_t s,
               bool training, Rng* dropout_rng);
  const tensor::Tensor& keys() const { return keys_; }      // [S, N, K]
  const tensor::Tensor& finals() const { return finals_; }  // [N, K]

  // Gradients w.r.t. keys and finals (d_finals may be null) of the last training forward;
  // parameter gradients accumulate into the store.
  void backward(const tensor::Tensor& d_keys, const tensor::Tensor* d_finals);

 private:
  struct Layer;
  int64_t key_size_;
  int64_t direction_size_;
  bool bidirectional_;
  layers::ParameterStore* store_ = nullptr;
  layers::Parameter* embedding_;
  layers::Dropout word_dropout_;  // whole source words (--dropout-src), before dropout_
  layers::Dropout dropout_;
  std::vector<std::unique_ptr<Layer>> layers_;
  // Last forward.
  const int32_t* src_ = nullptr;
  std::vector<int64_t> lengths_;
  int64_t n_ = 0, s_ = 0;
  tensor::Tensor embedded_;  // [S, N, E]
  tensor::Tensor keys_;      // top layer output
  tensor::Tensor finals_;
  tensor::Tensor d_out_, d_half_, d_half_bwd_;
};

}  // namespace heed::model
