#include "heed/onednn/linear.h"

#include <string>

#include "heed/common/check.h"
#include "heed/common/error.h"
#include "heed/onednn/memory.h"

namespace heed::onednn {

using tensor::DType;
using tensor::Shape;
using tensor::Tensor;

Linear::Linear(int64_t in_features, int64_t out_features, Precision precision)
    : in_(in_features),
      out_(out_features),
      precision_(precision),
      forward_(precision),
      backward_data_(precision),
      backward_weights_(precision) {
  if (in_features <= 0 || out_features <= 0) {
    throw ConfigError("linear layer sizes must be positive, got " + std::to_string(in_features) +
                      "→" + std::to_string(out_features));
  }
}

Linear::~Linear() = default;
Linear::Linear(Linear&&) noexcept = default;
Linear& Linear::operator=(Linear&&) noexcept = default;

void Linear::set_weights(const Tensor& weight, const Tensor* bias) {
  HEED_CHECK(weight.dtype() == DType::kF32 && weight.shape() == Shape({out_, in_}),
             "linear weight " + weight.shape().to_string() + ", expected [" + std::to_string(out_) +
                 ", " + std::to_string(in_) + "] f32");
  HEED_CHECK(bias == nullptr || (bias->dtype() == DType::kF32 && bias->numel() == out_),
             "linear bias of " + std::to_string(out_) + " f32 expected");
  weight_ = weight.view(weight.shape());
  bias_ = bias ? bias->view(bias->shape()) : Tensor();
  weights_changed();
}

void Linear::weights_changed() {
  forward_.weights_changed();
  backward_data_.weights_changed();
}

void Linear::forward(const Tensor& x, Tensor& y, Activation activation) {
  HEED_CHECK(!weight_.empty(), "linear forward before set_weights");
  HEED_CHECK(x.dim(-1) == in_ && y.dim(-1) == out_ && x.numel() / in_ == y.numel() / out_,
             "linear forward " + x.shape().to_string() + " → " + y.shape().to_string());
  MatMulOptions options;
  options.bias = bias_.empty() ? nullptr : &bias_;
  options.activation = activation;
  options.constant_b = true;
  forward_.run(MatrixRef::rows_of(x), MatrixRef::of(weight_).transposed(), MatrixRef::rows_of(y),
               options);
}

void Linear::backward_data(const Tensor& dy, Tensor& dx, bool accumulate) {
  HEED_CHECK(!weight_.empty(), "linear backward before set_weights");
  HEED_CHECK(dx.dim(-1) == in_ && dy.dim(-1) == out_ && dx.numel() / in_ == dy.numel() / out_,
             "linear backward_data " + dy.shape().to_string() + " → " + dx.shape().to_string());
  MatMulOptions options;
  options.accumulate = accumulate;
  options.constant_b = true;
  backward_data_.run(MatrixRef::rows_of(dy), MatrixRef::of(weight_), MatrixRef::rows_of(dx),
                     options);
}

void Linear::backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor* db) {
  HEED_CHECK(
      x.dim(-1) == in_ && dy.dim(-1) == out_ && x.numel() / in_ == dy.numel() / out_,
      "linear backward_weights x " + x.shape().to_string() + " dy " + dy.shape().to_string());
  HEED_CHECK(dw.dtype() == DType::kF32 && dw.shape() == Shape({out_, in_}),
             "linear weight gradient " + dw.shape().to_string());
  HEED_CHECK(db == nullptr || (db->dtype() == DType::kF32 && db->numel() == out_),
             "linear bias gradient of " + std::to_string(out_) + " expected");
  MatMulOptions options;
  options.accumulate = true;
  const MatrixRef dy_rows = MatrixRef::rows_of(dy);
  // dW [out, in] += dyᵀ [out, M] · x [M, in]
  backward_weights_.run(dy_rows.transposed(), MatrixRef::rows_of(x), MatrixRef::of(dw), options);
  if (db != nullptr) {
    // db [1, out] += ones [1, M] · dy [M, out]
    const int64_t m = dy_rows.rows;
    const DType ones_type = dy.dtype();
    if (ones_.empty() || ones_.numel() != m || ones_.dtype() != ones_type) {
      ones_.resize(Shape({1, m}), ones_type);
      ones_.fill(1.f);
    }
    backward_weights_.run(MatrixRef::of(ones_), dy_rows, MatrixRef::of(db->view(Shape({1, out_}))),
                          options);
  }
}

void Linear::backward(const Tensor& x, const Tensor& dy, Tensor* dx, Tensor& dw, Tensor* db,
                      bool accumulate_dx) {
  const Tensor* grad = &dy;
  if (precision_ == Precision::kBF16 && dy.dtype() == DType::kF32) {
    dy_bf16_.resize(dy.shape(), DType::kBF16);
    convert(dy, dy_bf16_);
    grad = &dy_bf16_;
  }
  if (dx != nullptr) backward_data(*grad, *dx, accumulate_dx);
  backward_weights(x, *grad, dw, db);
}

}  // namespace heed::onednn
