// Plain-loop reference ops on f32 tensors: the oracle for tests and the implementation of the
// small non-GEMM parts of layers. Shapes are checked (InternalError on mismatch). Unless noted,
// out may alias an input (in-place).
#pragma once

#include <vector>

#include "heed/tensor/tensor.h"

namespace heed::tensor {

// out = a + b (same shape).
void add(const Tensor& a, const Tensor& b, Tensor& out);
// y += alpha · x (same numel).
void axpy(float alpha, const Tensor& x, Tensor& y);
// x *= factor.
void scale(Tensor& x, float factor);
// dst = src, converting between f32 and bf16 as needed (same numel).
void copy(const Tensor& src, Tensor& dst);

// Column blocks of the last axis, the other axes folded into rows (the same number in both;
// no aliasing): concatenations such as [embedding; context] and the gradients that split them.
// dst[..., offset : offset + src.cols] = src.
void copy_columns(const Tensor& src, Tensor& dst, int64_t offset);
// dst = src[..., offset : offset + dst.cols].
void take_columns(const Tensor& src, int64_t offset, Tensor& dst);
// dst [rows.size(), C] = the rows of src [R, C] that rows names (repeats allowed; no aliasing),
// as a beam search continues hypotheses.
void gather_rows(const Tensor& src, const std::vector<int64_t>& rows, Tensor& dst);

// y = tanh(x); dx = dy · (1 − y²) from the forward output y.
void tanh(const Tensor& x, Tensor& y);
void tanh_backward(const Tensor& y, const Tensor& dy, Tensor& dx);
// y = 1 / (1 + exp(−x)); dx = dy · y · (1 − y).
void sigmoid(const Tensor& x, Tensor& y);
void sigmoid_backward(const Tensor& y, const Tensor& dy, Tensor& dx);

// Over the last axis. Backward takes the forward output y:
// softmax: dx = y ⊙ (dy − Σ dy·y); log_softmax: dx = dy − exp(y) · Σ dy.
void softmax(const Tensor& x, Tensor& y);
void softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx);
void log_softmax(const Tensor& x, Tensor& y);
void log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx);

// x[i] = value where mask[i] != 0. mask has x's rank; each of its dims equals x's or is 1
// (broadcast), e.g. a [N, 1, S] length mask over [N, T, S] attention scores.
void masked_fill(Tensor& x, const Tensor& mask, float value);

// Sum over one axis (negative counts from the end); the axis is removed from the shape.
Tensor sum(const Tensor& x, int axis);

// max |a − b| over all elements (same numel; bf16 compared as float), in double.
double max_abs_diff(const Tensor& a, const Tensor& b);

}  // namespace heed::tensor
