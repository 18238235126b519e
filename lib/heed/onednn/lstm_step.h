// Private to lib/heed/onednn: one LSTM step's training on matrix products of heed's own, which
// Rnn runs for its T = 1 training calls (a stepped decoder) instead of oneDNN's RNN primitive.
//
// Why: oneDNN 2.6's RNN backward forms each step's weight gradients on their own, a product of
// the step's N rows into the whole [4H, I + H] gradient, at 46-49 % of the bf16 matmul peak on a
// Zen 5 (bench/results/train_primitives.tsv; bench/lstm_step.cpp measures both ways). Here a
// step's backward keeps its [x; h] and gate-gradient rows, and flush() forms the weight
// gradients of every step since the last flush in one product over all of them.
//
// The equations and parameters are Rnn's LSTM (PyTorch's nn.LSTM, gates i, f, g, o):
//   [i f g o] = [x; h0]·[W_ih W_hh]ᵀ + b_ih + b_hh, then σ, σ, tanh, σ;
//   c1 = f⊙c0 + i⊙g;  h1 = o⊙tanh(c1).
// In bf16, [x; h0], the gate gradients and the weights are bf16 in the products (as oneDNN's
// bf16 RNN has them); the c-state, the nonlinearities and every gradient out are f32.
#pragma once

#include <cstdint>

#include "heed/onednn/matmul.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/row_buffer.h"
#include "heed/tensor/tensor.h"

namespace heed::onednn::detail {

// What one step's backward needs, kept in the step's RnnTape (buffers reused across batches).
struct LstmStepRecord {
  tensor::Tensor xh;      // [N, I + H] in the data type: the step's input and h0 side by side
  tensor::Tensor gates;   // [N, 4H] f32: i, f, g, o after their nonlinearities
  tensor::Tensor c0;      // [N, H] f32
  tensor::Tensor tanh_c;  // [N, H] f32: tanh(c1)
};

class LstmStep {
 public:
  LstmStep(int64_t input_size, int64_t hidden_size, Precision precision);

  // The f32 masters (PyTorch layout) at `version`: copied side by side into [W_ih W_hh] when
  // the version differs from the last call's.
  void set_weights(const tensor::Tensor& weight_ih, const tensor::Tensor& weight_hh,
                   uint64_t version);

  // x [1, N, I] (f32 or bf16); h0 [N, H] and c0 [N, H] may be null (zeros). bias [4H] f32 is
  // b_ih + b_hh. Outputs (any may be null, f32 or bf16 except c_last, f32): y [1, N, H],
  // h_last [N, H] (both h1), c_last [N, H].
  void forward(const tensor::Tensor& x, const tensor::Tensor* h0, const tensor::Tensor* c0,
               const tensor::Tensor& bias, tensor::Tensor* y, tensor::Tensor* h_last,
               tensor::Tensor* c_last, LstmStepRecord& record);

  // Gradients at y and h_last (both h1; either may be null) and at c_last (may be null); writes
  // the wanted ones of dx [1, N, I], dh0, dc0 (f32), adds the bias gradient to diff_bias [4H]
  // and keeps the step's rows for flush().
  void backward(const LstmStepRecord& record, const tensor::Tensor* dy,
                const tensor::Tensor* dh_last, const tensor::Tensor* dc_last, tensor::Tensor* dx,
                tensor::Tensor* dh0, tensor::Tensor* dc0, float* diff_bias);

  // Adds the weight gradients of every step kept since the last flush to the f32 PyTorch-layout
  // gradients (null ones skipped) and forgets the steps.
  void flush(tensor::Tensor* grad_ih, tensor::Tensor* grad_hh);

 private:
  int64_t input_;
  int64_t hidden_;
  tensor::DType data_type_;
  uint64_t staged_version_ = ~0ull;
  tensor::Tensor weights_;  // [4H, I + H] f32: [W_ih W_hh]
  MatMul gates_mm_;         // [x; h0]·weightsᵀ
  MatMul data_mm_;          // d gates·weights
  MatMul weights_mm_;       // d gatesᵀ·[x; h0] over every kept row
  // Kept rows for flush(), in the data type: [x; h0] and the gate gradients.
  tensor::RowBuffer kept_xh_, kept_dgates_;
  // Scratch, reused.
  tensor::Tensor h1_, c1_, dh_, zeros_, dgates_, dxh_, dc0_;
};

}  // namespace heed::onednn::detail
