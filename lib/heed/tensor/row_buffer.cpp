#include "heed/tensor/row_buffer.h"

#include <algorithm>
#include <cstring>

#include "heed/common/check.h"

namespace heed::tensor {

void RowBuffer::reset(int64_t width, DType dtype) {
  HEED_CHECK(width > 0, "row buffer of width " + std::to_string(width));
  if (width != width_ || dtype != dtype_) {
    storage_ = Tensor();
    capacity_ = 0;
  }
  width_ = width;
  dtype_ = dtype;
  rows_ = 0;
}

void* RowBuffer::append(int64_t count) {
  HEED_CHECK(width_ > 0 && count >= 0, "row buffer append before reset");
  const size_t row_bytes = size_t(width_) * dtype_size(dtype_);
  if (rows_ + count > capacity_) {
    const int64_t capacity = std::max(rows_ + count, 2 * capacity_);
    Tensor grown = Tensor::uninitialized(Shape({capacity, width_}), dtype_);
    if (rows_ > 0) std::memcpy(grown.raw(), storage_.raw(), size_t(rows_) * row_bytes);
    storage_ = std::move(grown);
    capacity_ = capacity;
  }
  void* first = static_cast<char*>(storage_.raw()) + size_t(rows_) * row_bytes;
  rows_ += count;
  return first;
}

void RowBuffer::append(const void* rows, int64_t count) {
  void* to = append(count);
  if (count > 0) std::memcpy(to, rows, size_t(count * width_) * dtype_size(dtype_));
}

Tensor RowBuffer::view() const {
  HEED_CHECK(width_ > 0, "row buffer read before reset");
  if (rows_ == 0) return Tensor(Shape({0, width_}), dtype_);
  return storage_.slice(0, rows_);
}

}  // namespace heed::tensor
