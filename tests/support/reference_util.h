// Comparing library outputs with double-precision reference values.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "heed/tensor/tensor.h"

namespace heed::test {

inline std::vector<double> to_double(const tensor::Tensor& t) {
  const std::vector<float> v = t.to_vector();
  return {v.begin(), v.end()};
}

inline std::vector<double> to_double(const float* p, size_t n) {
  return {p, p + n};
}

// max |got − ref| / max |ref| (norm-relative, so values near zero do not blow it up);
// infinity on a size mismatch or NaN.
inline double relative_error(const std::vector<double>& ref, const std::vector<double>& got) {
  if (ref.size() != got.size()) return std::numeric_limits<double>::infinity();
  double scale = 1e-30, err = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    scale = std::max(scale, std::fabs(ref[i]));
    const double d = std::fabs(got[i] - ref[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    err = std::max(err, d);
  }
  return err / scale;
}

inline double relative_error(const std::vector<double>& ref, const tensor::Tensor& got) {
  return relative_error(ref, to_double(got));
}

}  // namespace heed::test
