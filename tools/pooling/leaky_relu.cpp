#include "leaky_relu.h"

namespace heed::pooling {

void leaky_relu(const float* x, float* y, int64_t n, float slope) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : slope * x[i];
}

void leaky_relu_backward(const float* x, const float* dy, float* dx, int64_t n, float slope) {
  for (int64_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : slope * dy[i];
}

}  // namespace heed::pooling
