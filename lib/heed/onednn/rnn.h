// One unidirectional (left-to-right), single-layer LSTM or GRU on oneDNN's RNN primitives:
// forward_inference, forward_training with a workspace kept in an RnnTape, and backward. An
// LSTM's T = 1 training calls (a stepped decoder's) run on heed's own step instead, whose weight
// gradients are one product over every step at flush_grads (lstm_step.h says why).
//
// Parameters follow PyTorch's nn.LSTM / nn.GRU exactly (the model file stores them so):
//   weight_ih [G·H, I], weight_hh [G·H, H], bias_ih [G·H], bias_hh [G·H];
//   LSTM G = 4, gates i, f, g, o; GRU G = 3, gates r, z, n, linear-before-reset.
// Mapping to oneDNN (docs/onednn.md §2): weight_ih is ldgoi {1, 1, I, G, H}. LSTM gate order is
// the same and bias = bias_ih + bias_hh. GRU runs as lbr_gru with gate blocks (r, z, n) →
// (u = z, r, o = n) and a 4-gate bias [b_iz + b_hz, b_ir + b_hr, b_in, b_hn]. Gradients map back:
// d bias_ih and d bias_hh both receive d b for the summed gates, and the split n gate goes to
// d bias_ih[n] (from o) and d bias_hh[n] (from u').
//
// The caller owns the f32 master parameters and their gradients. Rnn borrows the parameters,
// reorders them into the layout each primitive asks for (forward `any`, backward `any` which is
// ldgoi-like, bf16 copies in bf16 precision) once per set_weights()/weights_changed(), and
// accumulates weight gradients internally over every backward() call (decoder steps, several
// sequences) until flush_grads() adds them to the caller's PyTorch-layout gradients.
//
// Shapes are time-major: x [T, N, I], y [T, N, H], states [N, H]. One primitive per (T, N) is
// created on first use and kept. For a step-wise decoder call it with T = 1 and one RnnTape
// per step; backward in reverse order, feeding dh0/dc0 of step t+1 as dh_last/dc_last of step t
// (tests/unit/onednn/rnn_test.cpp shows it; the result equals one T-step call).
#pragma once

#include <cstdint>
#include <memory>

#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::onednn {

enum class CellKind { kLstm, kGru };

// 4 (LSTM) or 3 (GRU).
int gate_count(CellKind cell);
const char* cell_name(CellKind cell);

struct RnnConfig {
  CellKind cell = CellKind::kLstm;        // GRU means PyTorch's nn.GRU (linear-before-reset)
  int64_t input_size = 0;                 // I
  int64_t hidden_size = 0;                // H
  Precision precision = Precision::kF32;  // kBF16: bf16 data and weights, f32 c-state and diffs
  // An LSTM's T = 1 training calls on heed's own step (lstm_step.h); false: on oneDNN's RNN
  // primitive, as every other call (kept so that tests and bench/lstm_step.cpp compare the two).
  bool own_lstm_step = true;

  // Throws ConfigError for non-positive sizes.
  void validate() const;
};

// Borrowed f32 master parameters in PyTorch layout; a null bias counts as zeros.
struct RnnWeights {
  const tensor::Tensor* weight_ih = nullptr;  // [G·H, I]
  const tensor::Tensor* weight_hh = nullptr;  // [G·H, H]
  const tensor::Tensor* bias_ih = nullptr;    // [G·H]
  const tensor::Tensor* bias_hh = nullptr;    // [G·H]
};

// PyTorch-layout f32 gradients that flush_grads() adds to; null members are skipped.
struct RnnGrads {
  tensor::Tensor* weight_ih = nullptr;
  tensor::Tensor* weight_hh = nullptr;
  tensor::Tensor* bias_ih = nullptr;
  tensor::Tensor* bias_hh = nullptr;
};

// Forward inputs: h0/c0 [N, H] may be null (zeros); c0 is LSTM only.
struct RnnInputs {
  const tensor::Tensor* x = nullptr;  // [T, N, I]
  const tensor::Tensor* h0 = nullptr;
  const tensor::Tensor* c0 = nullptr;
};

// Forward outputs: h_last/c_last [N, H] (state after step T−1) may be null (not wanted).
struct RnnOutputs {
  tensor::Tensor* y = nullptr;  // [T, N, H]
  tensor::Tensor* h_last = nullptr;
  tensor::Tensor* c_last = nullptr;
};

// Gradients arriving at the outputs: dh_last/dc_last may be null (zeros). All f32.
struct RnnOutputGrads {
  const tensor::Tensor* dy = nullptr;  // [T, N, H]
  const tensor::Tensor* dh_last = nullptr;
  const tensor::Tensor* dc_last = nullptr;
};

// Gradients produced for the inputs (overwritten); null members are not wanted. All f32.
struct RnnInputGrads {
  tensor::Tensor* dx = nullptr;  // [T, N, I]
  tensor::Tensor* dh0 = nullptr;
  tensor::Tensor* dc0 = nullptr;
};

// What backward() needs from one forward_training() call: the workspace, internal bf16 copies
// and the addresses of the caller's x, h0, c0, y, h_last and c_last, which must stay alive and
// unchanged until backward(). Buffers are reused when the tape is used again, so a decoder that
// keeps one tape per step allocates nothing after the first batch of the largest shape.
class RnnTape {
 public:
  RnnTape();
  ~RnnTape();
  RnnTape(RnnTape&&) noexcept;
  RnnTape& operator=(RnnTape&&) noexcept;

  // A forward_training() whose backward() has not run yet.
  bool pending() const;
  // Bytes held (workspace and copies).
  size_t bytes() const;

 private:
  friend class Rnn;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class Rnn {
 public:
  // Throws ConfigError for a bad config or bf16 where oneDNN has no bf16 RNN.
  explicit Rnn(const RnnConfig& config);
  ~Rnn();
  Rnn(Rnn&&) noexcept;
  Rnn& operator=(Rnn&&) noexcept;

  const RnnConfig& config() const;

  // Borrows the parameters until the next call (as views: the Tensor objects may move, owned
  // storage stays alive); implies weights_changed(). Shapes are checked.
  void set_weights(const RnnWeights& weights);
  // The borrowed parameters were updated in place: reorder again before the next execution.
  void weights_changed();

  void forward_inference(const RnnInputs& in, const RnnOutputs& out);
  // As forward_inference, and records in tape what backward() needs.
  void forward_training(const RnnInputs& in, const RnnOutputs& out, RnnTape& tape);
  // Backward of the forward recorded in tape (which is then no longer pending). Weight
  // gradients accumulate inside this Rnn.
  void backward(RnnTape& tape, const RnnOutputGrads& grads_out, const RnnInputGrads& grads_in);

  // Adds the weight gradients accumulated since the last flush to grads (PyTorch layout)
  // and clears them.
  void flush_grads(const RnnGrads& grads);

  // Number of cached primitives (per (T, N) and pass).
  size_t plan_count() const;
  // Packed copies of the weights held (oneDNN's packed layout depends on N: at most a bound,
  // the least recently used going first and packed again when asked for).
  size_t packed_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed::onednn
