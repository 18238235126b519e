// Tensor-level data movement through oneDNN (threaded, JIT-compiled reorders).
#pragma once

#include "heed/tensor/tensor.h"

namespace heed::onednn {

// dst = src with f32 ⇄ bf16 conversion (round to nearest even) or a plain copy; same numel.
// Reorder primitives are cached by (numel, types), so calling this every step allocates nothing.
void convert(const tensor::Tensor& src, tensor::Tensor& dst);

}  // namespace heed::onednn
