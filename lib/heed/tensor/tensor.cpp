#include "heed/tensor/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "heed/common/check.h"

namespace heed::tensor {
namespace {

constexpr size_t kAlignment = 64;

std::shared_ptr<void> allocate(size_t bytes, size_t* capacity) {
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  *capacity = rounded;
  if (rounded == 0) return nullptr;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace

const char* dtype_name(DType dtype) {
  return dtype == DType::kF32 ? "f32" : "bf16";
}

void float_to_bf16(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = float_to_bf16(src[i]);
}

void bf16_to_float(const uint16_t* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_float(src[i]);
}

Tensor::Tensor(std::shared_ptr<void> storage, void* data, const Shape& shape, DType dtype,
               size_t capacity)
    : storage_(std::move(storage)),
      data_(data),
      shape_(shape),
      dtype_(dtype),
      capacity_(capacity) {}

Tensor::Tensor(const Shape& shape, DType dtype) {
  *this = uninitialized(shape, dtype);
  zero();
}

Tensor Tensor::uninitialized(const Shape& shape, DType dtype) {
  size_t capacity = 0;
  auto storage = allocate(static_cast<size_t>(shape.numel()) * dtype_size(dtype), &capacity);
  void* data = storage.get();
  return Tensor(std::move(storage), data, shape, dtype, capacity);
}

Tensor Tensor::borrow(float* data, const Shape& shape) {
  HEED_CHECK(data != nullptr || shape.numel() == 0, "borrowing a null pointer");
  return Tensor(nullptr, data, shape, DType::kF32, 0);
}

Tensor Tensor::borrow_bf16(uint16_t* data, const Shape& shape) {
  HEED_CHECK(data != nullptr || shape.numel() == 0, "borrowing a null pointer");
  return Tensor(nullptr, data, shape, DType::kBF16, 0);
}

Tensor Tensor::from_values(const Shape& shape, const std::vector<float>& values) {
  HEED_CHECK(static_cast<int64_t>(values.size()) == shape.numel(),
             std::to_string(values.size()) + " values for shape " + shape.to_string());
  Tensor t = uninitialized(shape);
  if (!values.empty()) std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

Tensor::Tensor(Tensor&& other) noexcept
    : storage_(std::move(other.storage_)),
      data_(std::exchange(other.data_, nullptr)),
      shape_(std::exchange(other.shape_, Shape())),
      dtype_(other.dtype_),
      capacity_(std::exchange(other.capacity_, 0)) {}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    storage_ = std::move(other.storage_);
    data_ = std::exchange(other.data_, nullptr);
    shape_ = std::exchange(other.shape_, Shape());
    dtype_ = other.dtype_;
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

Tensor Tensor::clone() const {
  Tensor t = uninitialized(shape_, dtype_);
  if (bytes() > 0) std::memcpy(t.data_, data_, bytes());
  return t;
}

Tensor Tensor::view(const Shape& shape) const {
  HEED_CHECK(shape.numel() == numel(),
             "view " + shape.to_string() + " of a tensor of shape " + shape_.to_string());
  return Tensor(storage_, data_, shape, dtype_, storage_ ? capacity_ : 0);
}

Tensor Tensor::slice(int64_t begin, int64_t end) const {
  HEED_CHECK(rank() >= 1 && 0 <= begin && begin <= end && end <= shape_[0],
             "slice [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " +
                 shape_.to_string());
  std::vector<int64_t> dims = shape_.to_vector();
  dims[0] = end - begin;
  const size_t offset = static_cast<size_t>(begin * shape_.stride(0)) * dtype_size(dtype_);
  void* data = static_cast<char*>(data_) + offset;
  // A view never grows in place, so it reports no spare capacity.
  return Tensor(storage_, data, Shape(dims), dtype_, 0);
}

Tensor Tensor::select(int64_t index) const {
  HEED_CHECK(rank() >= 1 && 0 <= index && index < shape_[0],
             "index " + std::to_string(index) + " of " + shape_.to_string());
  std::vector<int64_t> dims(shape_.begin() + 1, shape_.end());
  const size_t offset = static_cast<size_t>(index * shape_.stride(0)) * dtype_size(dtype_);
  return Tensor(storage_, static_cast<char*>(data_) + offset, Shape(dims), dtype_, 0);
}

void Tensor::resize(const Shape& shape, DType dtype) {
  const size_t needed = static_cast<size_t>(shape.numel()) * dtype_size(dtype);
  // Only a sole owner of its allocation may reuse it: views must not see the data change shape.
  const bool reusable = storage_ != nullptr && storage_.use_count() == 1 && data_ == storage_.get();
  if (reusable && needed <= capacity_) {
    shape_ = shape;
    dtype_ = dtype;
    return;
  }
  *this = uninitialized(shape, dtype);
}

float* Tensor::data() {
  HEED_CHECK(dtype_ == DType::kF32, "f32 access to a bf16 tensor");
  return static_cast<float*>(data_);
}

const float* Tensor::data() const {
  HEED_CHECK(dtype_ == DType::kF32, "f32 access to a bf16 tensor");
  return static_cast<const float*>(data_);
}

uint16_t* Tensor::data_bf16() {
  HEED_CHECK(dtype_ == DType::kBF16, "bf16 access to an f32 tensor");
  return static_cast<uint16_t*>(data_);
}

const uint16_t* Tensor::data_bf16() const {
  HEED_CHECK(dtype_ == DType::kBF16, "bf16 access to an f32 tensor");
  return static_cast<const uint16_t*>(data_);
}

void Tensor::zero() {
  if (bytes() > 0) std::memset(data_, 0, bytes());
}

void Tensor::fill(float value) {
  const int64_t n = numel();
  if (dtype_ == DType::kF32) {
    float* p = data();
    for (int64_t i = 0; i < n; ++i) p[i] = value;
  } else {
    const uint16_t b = float_to_bf16(value);
    uint16_t* p = data_bf16();
    for (int64_t i = 0; i < n; ++i) p[i] = b;
  }
}

std::vector<float> Tensor::to_vector() const {
  std::vector<float> out(static_cast<size_t>(numel()));
  if (out.empty()) return out;
  if (dtype_ == DType::kF32) {
    std::memcpy(out.data(), data_, bytes());
  } else {
    bf16_to_float(data_bf16(), out.data(), numel());
  }
  return out;
}

}  // namespace heed::tensor
