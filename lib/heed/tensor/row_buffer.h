// Rows appended over several calls and read at once: what a weight gradient's product needs
// from every step of a batch, so that it runs once over all of their rows instead of once a step
// (onednn/lstm_step.h, the additive attention's query projection). Its capacity outlives clear(),
// so a training run allocates only while its batches grow.
#pragma once

#include <cstdint>

#include "heed/tensor/tensor.h"

namespace heed::tensor {

class RowBuffer {
 public:
  // Empty, rows of `width` elements of `dtype`; keeps the capacity it has.
  void reset(int64_t width, DType dtype = DType::kF32);
  // Forgets the rows (the width, type and capacity stay).
  void clear() { rows_ = 0; }

  // Room for `count` more rows, their contents unspecified: the address of the first of them,
  // valid until the next append.
  void* append(int64_t count);
  // Appends `count` rows copied from `rows` (contiguous, of this buffer's type and width).
  void append(const void* rows, int64_t count);

  int64_t rows() const { return rows_; }
  int64_t width() const { return width_; }
  DType dtype() const { return dtype_; }
  // The rows kept, [rows, width], a view valid until the next append.
  Tensor view() const;

 private:
  Tensor storage_;  // [capacity, width]
  int64_t width_ = 0;
  int64_t rows_ = 0;
  int64_t capacity_ = 0;
  DType dtype_ = DType::kF32;
};

}  // namespace heed::tensor
