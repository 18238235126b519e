// Triple-loop matrix products in double over onednn::MatrixRef views (f32 or bf16 data): the
// oracle for onednn::MatMul and Linear.
#pragma once

#include <vector>

#include "heed/onednn/matmul.h"

namespace heed::test {

// Element (b, r, c) of a view as double (batch 1 views broadcast).
double element(const onednn::MatrixRef& m, int64_t b, int64_t r, int64_t c);

// c[b][r][k] = Σ_j a[b][r][j] · b[b][j][k], flat [batch, rows, cols].
std::vector<double> reference_matmul(const onednn::MatrixRef& a, const onednn::MatrixRef& b);

}  // namespace heed::test
