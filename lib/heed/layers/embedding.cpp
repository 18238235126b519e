#include "heed/layers/embedding.h"

#include <cstring>
#include <string>

#include "heed/common/error.h"

namespace heed::layers {

void embedding_forward(const tensor::Tensor& weight, const int32_t* ids, int64_t n, int64_t t,
                       tensor::Tensor& out) {
  const int64_t vocab = weight.dim(0), width = weight.dim(1);
  out.resize(tensor::Shape{t, n, width});
  const float* w = weight.data();
  float* o = out.data();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t s = 0; s < t; ++s) {
      const int32_t id = ids[b * t + s];
      if (id < 0 || id >= vocab) {
        throw InternalError("embedding: id " + std::to_string(id) + " outside vocabulary of " +
                            std::to_string(vocab));
      }
      std::memcpy(o + (s * n + b) * width, w + id * width, sizeof(float) * size_t(width));
    }
  }
}

void embedding_backward(const tensor::Tensor& d_out, const int32_t* ids, const int64_t* lengths,
                        int64_t n, int64_t t, tensor::Tensor& d_weight) {
  const int64_t width = d_weight.dim(1);
  const float* d = d_out.data();
  float* g = d_weight.data();
  for (int64_t b = 0; b < n; ++b) {
    const int64_t len = lengths ? lengths[b] : t;
    for (int64_t s = 0; s < len; ++s) {
      float* row = g + int64_t(ids[b * t + s]) * width;
      const float* src = d + (s * n + b) * width;
      for (int64_t k = 0; k < width; ++k) row[k] += src[k];
    }
  }
}

}  // namespace heed::layers
