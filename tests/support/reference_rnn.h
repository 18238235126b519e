// Plain-loop LSTM / GRU in double, written from PyTorch's equations: the oracle for
// onednn::Rnn forward and backward. Parameters in PyTorch layout (weight_ih [G·H, I],
// weight_hh [G·H, H], bias_ih, bias_hh [G·H]); LSTM gates i, f, g, o; GRU gates r, z, n with
// the reset applied after the hidden matmul (nn.GRU):
//   LSTM: c' = σ(f)·c + σ(i)·tanh(g), h' = σ(o)·tanh(c')
//   GRU:  n = tanh(W_in x + b_in + r·(W_hn h + b_hn)), h' = (1 − z)·n + z·h
// Time-major data: x [T, N, I], y [T, N, H], states [N, H], all flat vectors.
#pragma once

#include <cstdint>
#include <vector>

namespace heed::test {

struct ReferenceRnn {
  bool lstm = true;
  int64_t input = 0;
  int64_t hidden = 0;
  std::vector<double> weight_ih, weight_hh, bias_ih, bias_hh;

  int64_t gates() const { return lstm ? 4 : 3; }
};

struct ReferenceForward {
  int64_t steps = 0;
  int64_t batch = 0;
  std::vector<double> y, h_last, c_last;
  // Saved per step for backward: the states before each step and the gate activations.
  std::vector<double> h_prev, c_prev, act, c_new, hidden_n;
};

struct ReferenceGrads {
  std::vector<double> dx, dh0, dc0, dweight_ih, dweight_hh, dbias_ih, dbias_hh;
};

// h0/c0 empty means zeros.
ReferenceForward reference_forward(const ReferenceRnn& rnn, const std::vector<double>& x,
                                   int64_t steps, int64_t batch, const std::vector<double>& h0,
                                   const std::vector<double>& c0);

// dh_last/dc_last empty means zeros.
ReferenceGrads reference_backward(const ReferenceRnn& rnn, const ReferenceForward& fwd,
                                  const std::vector<double>& x, const std::vector<double>& dy,
                                  const std::vector<double>& dh_last,
                                  const std::vector<double>& dc_last);

}  // namespace heed::test
