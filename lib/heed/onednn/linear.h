// Linear (fully connected) layer kernels on matmul: y = x·Wᵀ + b and the two backward
// products. Measured on this machine (M=1280, 512→8000, 2 threads), matmul with a pre-packed
// `any` B is as fast as inner_product forward and faster for both backward products, and its
// sum post-op accumulates straight into the caller's gradient (docs/architecture.md).
//
// The f32 master weight [out, in] (and bias [out]) stay with the caller, borrowed; Linear
// keeps packed (and bf16) copies, rebuilt on the first use after weights_changed().
#pragma once

#include <cstdint>
#include <memory>

#include "heed/onednn/matmul.h"
#include "heed/onednn/precision.h"
#include "heed/tensor/tensor.h"

namespace heed::onednn {

class Linear {
 public:
  // Throws ConfigError for non-positive sizes or bf16 where unsupported.
  Linear(int64_t in_features, int64_t out_features, Precision precision = Precision::kF32);
  ~Linear();
  Linear(Linear&&) noexcept;
  Linear& operator=(Linear&&) noexcept;

  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }
  Precision precision() const { return precision_; }

  // Borrows weight [out, in] and bias [out] (may be null: no bias), both f32, until the next
  // call: Linear keeps views of them (the Tensor objects may move; owned storage stays alive).
  // Implies weights_changed().
  void set_weights(const tensor::Tensor& weight, const tensor::Tensor* bias);
  // Call after every in-place update of the weights (optimizer step).
  void weights_changed();

  // y [..., out] = activation(x [..., in] · Wᵀ + b). x f32 or bf16 (bf16 precision only),
  // y f32 (or bf16 in bf16 precision).
  void forward(const tensor::Tensor& x, tensor::Tensor& y,
               Activation activation = Activation::kNone);
  // dx [..., in] = dy · W, or += with accumulate.
  void backward_data(const tensor::Tensor& dy, tensor::Tensor& dx, bool accumulate = false);
  // dw [out, in] += dyᵀ · x and db [out] += Σ_rows dy (db may be null). Always accumulates,
  // like the RNN kernels: zero the gradients once per batch.
  void backward_weights(const tensor::Tensor& x, const tensor::Tensor& dy, tensor::Tensor& dw,
                        tensor::Tensor* db);
  // Both products; in bf16 precision an f32 dy is converted once for both.
  void backward(const tensor::Tensor& x, const tensor::Tensor& dy, tensor::Tensor* dx,
                tensor::Tensor& dw, tensor::Tensor* db, bool accumulate_dx = false);

 private:
  int64_t in_;
  int64_t out_;
  Precision precision_;
  tensor::Tensor weight_;  // views of the caller's parameters (empty before set_weights)
  tensor::Tensor bias_;
  MatMul forward_;        // B = Wᵀ, constant
  MatMul backward_data_;  // B = W, constant
  MatMul backward_weights_;
  tensor::Tensor ones_;     // [M] ones for the bias gradient, grown as needed
  tensor::Tensor dy_bf16_;  // backward(): dy converted once
};

}  // namespace heed::onednn
