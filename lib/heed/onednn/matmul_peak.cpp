#include "heed/onednn/matmul_peak.h"

#include <algorithm>

#include "heed/common/timer.h"
#include "heed/onednn/context.h"
#include "heed/onednn/matmul.h"
#include "heed/tensor/tensor.h"

namespace heed::onednn {

using tensor::Shape;

MatmulPeak measure_matmul_peak(int64_t size, int threads, int64_t repeats) {
  set_threads(threads);
  MatmulPeak peak;
  const double flops = 2.0 * double(size) * double(size) * double(size);
  const auto best_gflops = [&](Precision precision, tensor::DType dtype) {
    MatMul matmul(precision);
    tensor::Tensor a(Shape{size, size}, dtype), b(Shape{size, size}, dtype), c(Shape{size, size});
    double best = 0;
    for (int64_t i = 0; i <= repeats; ++i) {
      Timer timer;
      matmul.run(MatrixRef::of(a), MatrixRef::of(b), MatrixRef::of(c));
      const double seconds = timer.seconds();
      if (i > 0) best = std::max(best, flops / seconds / 1e9);  // the first run sets up
    }
    return best;
  };
  peak.f32_gflops = best_gflops(Precision::kF32, tensor::DType::kF32);
  if (bf16_supported()) {
    peak.bf16_gflops = best_gflops(Precision::kBF16, tensor::DType::kBF16);
  }
  return peak;
}

}  // namespace heed::onednn
