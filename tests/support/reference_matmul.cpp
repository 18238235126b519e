#include "support/reference_matmul.h"

#include <algorithm>

#include "heed/tensor/dtype.h"

namespace heed::test {

double element(const onednn::MatrixRef& m, int64_t b, int64_t r, int64_t c) {
  const int64_t bb = m.batch == 1 ? 0 : b;
  const int64_t offset = bb * m.batch_stride + r * m.row_stride + c * m.col_stride;
  if (m.dtype == tensor::DType::kF32)
    return static_cast<double>(static_cast<const float*>(m.data)[offset]);
  return static_cast<double>(tensor::bf16_to_float(static_cast<const uint16_t*>(m.data)[offset]));
}

std::vector<double> reference_matmul(const onednn::MatrixRef& a, const onednn::MatrixRef& b) {
  const int64_t batch = std::max(a.batch, b.batch);
  std::vector<double> c(static_cast<size_t>(batch * a.rows * b.cols), 0.0);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t r = 0; r < a.rows; ++r) {
      for (int64_t k = 0; k < b.cols; ++k) {
        double s = 0;
        for (int64_t j = 0; j < a.cols; ++j) s += element(a, n, r, j) * element(b, n, j, k);
        c[static_cast<size_t>((n * a.rows + r) * b.cols + k)] = s;
      }
    }
  }
  return c;
}

}  // namespace heed::test
