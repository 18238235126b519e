// An Rnn run over a right-padded, time-major batch of sentences with their own lengths, with
// exactly the results of running each sentence alone (docs/onednn.md §4; oneDNN has no
// sequence-length input):
//  - left-to-right runs the padded batch as is; padding comes after the real tokens, so it
//    cannot reach them. The final state of sentence n is y[len_n − 1, n]; in backward, the
//    gradient at padded steps is zeroed and the final-state gradient is injected at len_n − 1;
//  - right-to-left reverses every sentence within its length, runs left to right and maps the
//    outputs (and, in backward, the gradients) back;
//  - only max(lengths) steps are computed; outputs and input gradients past a sentence's end
//    are zeros;
//  - the final cell state (LSTM) is not in y. When c_final is asked for and lengths differ,
//    the batch runs in segments that end at each distinct length (one primitive call per
//    segment, chained through h/c), which is exact but slower; without c_final it is one call.
//
// This is what an encoder layer calls, one PaddedRnn per layer and direction.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heed/onednn/rnn.h"
#include "heed/tensor/tensor.h"

namespace heed::onednn {

enum class Direction { kLeftToRight, kRightToLeft };

class PaddedRnn {
 public:
  PaddedRnn(const RnnConfig& config, Direction direction);
  ~PaddedRnn();
  PaddedRnn(PaddedRnn&&) noexcept;
  PaddedRnn& operator=(PaddedRnn&&) noexcept;

  // Parameters, gradients (set_weights, weights_changed, flush_grads) live here.
  Rnn& rnn();
  const Rnn& rnn() const;
  Direction direction() const;

  // x [T, N, I]; lengths[n] in [1, T]; h0/c0 [N, H] or null (zeros) are the state before each
  // sentence's first step in reading order. y [T, N, H] is overwritten (zeros past each end);
  // h_final/c_final [N, H] (may be null) get the state after each sentence's last step in
  // reading order (for right-to-left: after its first token). With training, x, y, h0 and c0
  // must stay alive and unchanged until backward(). Any forward replaces the pending one.
  void forward(const tensor::Tensor& x, const std::vector<int64_t>& lengths,
               const tensor::Tensor* h0, const tensor::Tensor* c0, tensor::Tensor& y,
               tensor::Tensor* h_final, tensor::Tensor* c_final, bool training);

  // Backward of the last training forward. dy [T, N, H] (values past each end are ignored),
  // dh_final/dc_final [N, H] may be null (zeros; dc_final needs c_final in forward). dx, dh0,
  // dc0 are overwritten when non-null. Weight gradients accumulate in rnn().
  void backward(const tensor::Tensor& dy, const tensor::Tensor* dh_final,
                const tensor::Tensor* dc_final, tensor::Tensor* dx, tensor::Tensor* dh0,
                tensor::Tensor* dc0);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heed::onednn
