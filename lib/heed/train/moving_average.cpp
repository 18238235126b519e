#include "heed/train/moving_average.h"

#include <algorithm>

namespace heed::train {

float smoothing_weight(float decay, int64_t step) {
  const double t = double(step);
  return std::max(decay, float(1.0 - (t + 1.0) / (t + 10.0)));
}

void smooth(std::vector<std::vector<float>>& average, const std::vector<ParamRef>& params,
            float weight) {
#pragma omp parallel
  for (size_t p = 0; p < params.size(); ++p) {
    const float* w = params[p].value;
    float* a = average[p].data();
    const auto n = static_cast<int64_t>(params[p].size);
#pragma omp for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] += weight * (w[i] - a[i]);
  }
}

}  // namespace heed::train
