// The decoder's stack of RNN layers (decoder/rnn_<l>/…), under both arrangements: teacher forcing
// over the whole target (states and tapes for every step, run in chunks of steps) and search (one
// step at a time for rows that are live hypotheses). Also the PyTorch-layout parameters of one
// RNN, which the encoder's layers use too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/layers/parameters.h"
#include "heed/model/config.h"
#include "heed/onednn/precision.h"
#include "heed/onednn/rnn.h"
#include "heed/tensor/tensor.h"

namespace heed::model {

class RnnStack {
 public:
  // Adds decoder/rnn_<l>/… for config.decoder_layers layers of config.hidden, the first reading
  // input_size wide inputs.
  RnnStack(const ModelConfig& config, int64_t input_size, onednn::Precision precision,
           layers::ParameterStore& store);
  int64_t hidden() const { return hidden_; }
  void weights_changed();

  // Teacher forcing over t steps of n rows in chunks (with training, one tape per chunk); the
  // initial hidden states are the columns of initial [N, L·H], cell states 0.
  void start(int64_t t, int64_t n, const tensor::Tensor& initial, size_t chunks, bool training);
  // Runs every layer over steps [t0, t1), chunk number chunk, from the first layer's input
  // x0 [t1 − t0, N, I].
  void run(size_t chunk, int64_t t0, int64_t t1, const tensor::Tensor& x0);
  // The top layer's outputs for steps [t0, t1) ([t1 − t0, N, H], a view).
  tensor::Tensor top(int64_t t0, int64_t t1) const;
  // The top layer's state before step t (the initial state for t = 0), [N, H] (a view).
  tensor::Tensor state_before(int64_t t) const;

  void start_backward();
  // d_top [Tc, N, H] → dx0 [Tc, N, I] (overwritten) for chunk; the state gradients carry over
  // to the previous chunk.
  void backward(size_t chunk, const tensor::Tensor& d_top, tensor::Tensor& dx0);
  // Adds to the gradient flowing into the top layer's state before the chunk just processed
  // (Bahdanau's query is that state).
  void add_to_top_state_grad(const tensor::Tensor& d);
  // After the first chunk's backward: the gradient w.r.t. the initial hidden states [N, L·H].
  const tensor::Tensor& initial_grad();
  // Moves the RNN gradients into the store.
  void flush_grads();

  // Search: rows start from initial [N, L·H].
  void start_search(const tensor::Tensor& initial);
  // Row i continues old row rows[i].
  void select(const std::vector<int64_t>& rows);
  // One step of every row from x0 [1, R, I].
  void step(const tensor::Tensor& x0);
  // The top layer's current state [R, H].
  const tensor::Tensor& top_state() const { return h_.back(); }

 private:
  bool lstm_;
  int64_t hidden_;
  layers::ParameterStore* store_;
  std::vector<onednn::Rnn> rnns_;
  // Teacher forcing.
  int64_t n_ = 0;
  bool training_ = false;
  std::vector<tensor::Tensor> hs_, cs_;              // per layer [T+1, N, H]
  std::vector<std::vector<onednn::RnnTape>> tapes_;  // [chunk][layer]
  std::vector<tensor::Tensor> dh_, dc_, dh_tmp_, dc_tmp_, d_mid_;
  tensor::Tensor d_initial_;
  // Search.
  std::vector<tensor::Tensor> h_, c_, h_next_, c_next_;
};

// One RNN's PyTorch-layout parameters under prefix (prefix + "weight_ih", …, "bias_hh").
void add_rnn_parameters(layers::ParameterStore& store, const std::string& prefix,
                        onednn::CellKind cell, int64_t input, int64_t hidden);
onednn::RnnWeights rnn_weights(layers::ParameterStore& store, const std::string& prefix);
onednn::RnnGrads rnn_grads(layers::ParameterStore& store, const std::string& prefix);
onednn::CellKind cell_kind(CellType cell);

}  // namespace heed::model
