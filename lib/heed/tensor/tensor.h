// Tensor: a row-major buffer of float32 (or bfloat16 scratch) with a Shape. It either owns a
// 64-byte aligned allocation (shared with its views) or borrows memory owned by someone else.
//
// Tensors are move-only; clone() copies the data, view()/slice()/select() alias it without a
// copy. Constness is shallow: a view of a const Tensor can write the shared data.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "heed/tensor/dtype.h"
#include "heed/tensor/shape.h"

namespace heed::tensor {

class Tensor {
 public:
  // No data: empty() is true.
  Tensor() = default;
  // Owning and zero-filled.
  explicit Tensor(const Shape& shape, DType dtype = DType::kF32);
  // Owning, contents unspecified (hot paths that overwrite everything).
  static Tensor uninitialized(const Shape& shape, DType dtype = DType::kF32);
  // Borrowed: the caller keeps data alive (and 4- or 2-byte aligned) while the tensor is used.
  static Tensor borrow(float* data, const Shape& shape);
  static Tensor borrow_bf16(uint16_t* data, const Shape& shape);
  // Owning f32 copy of values (values.size() must equal shape.numel()).
  static Tensor from_values(const Shape& shape, const std::vector<float>& values);

  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  ~Tensor() = default;

  // Deep copy into a new owning tensor (same dtype).
  Tensor clone() const;
  // Same data seen with another shape of the same numel (no copy).
  Tensor view(const Shape& shape) const;
  // Rows [begin, end) along axis 0 (contiguous, no copy).
  Tensor slice(int64_t begin, int64_t end) const;
  // Index i along axis 0, rank reduced by one (no copy).
  Tensor select(int64_t index) const;

  // Makes an owning tensor hold shape/dtype, reallocating only when its capacity is too small
  // (scratch buffers reused across batches). Contents are unspecified afterwards. A borrowed
  // tensor or a view is turned into a fresh owning tensor.
  void resize(const Shape& shape, DType dtype = DType::kF32);

  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int axis) const { return shape_.dim(axis); }
  int64_t numel() const { return shape_.numel(); }
  size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype_); }
  DType dtype() const { return dtype_; }
  bool empty() const { return data_ == nullptr; }
  bool owns_data() const { return storage_ != nullptr; }

  // Typed access; throws InternalError if the dtype differs.
  float* data();
  const float* data() const;
  uint16_t* data_bf16();
  const uint16_t* data_bf16() const;
  void* raw() { return data_; }
  const void* raw() const { return data_; }

  void zero();
  void fill(float value);
  // The values as floats (bf16 converted).
  std::vector<float> to_vector() const;

 private:
  Tensor(std::shared_ptr<void> storage, void* data, const Shape& shape, DType dtype,
         size_t capacity);

  std::shared_ptr<void> storage_;  // null when borrowed
  void* data_ = nullptr;
  Shape shape_;
  DType dtype_ = DType::kF32;
  size_t capacity_ = 0;  // bytes owned from data_ onwards (0 when borrowed)
};

}  // namespace heed::tensor
