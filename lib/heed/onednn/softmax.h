// Row-wise (log-)softmax and exp on oneDNN's JIT kernels (AVX-512 where the CPU has it): the
// vocabulary-sized loops of the output layer, ~10× faster than scalar libm. Plans are cached by
// shape, so per-batch and per-step calls allocate nothing.
#pragma once

#include "heed/tensor/tensor.h"

namespace heed::onednn {

// y = log_softmax(x) over the last axis (f32; y may be x; same shape).
void log_softmax(const tensor::Tensor& x, tensor::Tensor& y);
// y = softmax(x) over the last axis (f32; y may be x; same shape).
void softmax(const tensor::Tensor& x, tensor::Tensor& y);
// y = exp(x) elementwise (f32; y may be x; same numel).
void exp(const tensor::Tensor& x, tensor::Tensor& y);
// y = tanh(x) elementwise (f32; y may be x; same numel).
void tanh(const tensor::Tensor& x, tensor::Tensor& y);

}  // namespace heed::onednn
